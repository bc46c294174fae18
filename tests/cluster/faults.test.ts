import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import type { ChatEvent } from "../../src/common/chat.ts";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
} from "../helpers/chat-client.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { createPostgresDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";
import { type ServerProcess, startServerProcess } from "../helpers/process.ts";
import { bottleInput, bottleWriter, failure } from "../helpers/server.ts";

// Faults, each a real process stopped and started: this file runs its own throwaway PostgreSQL
// and Redis (scripts/cluster), since it stops them, and two instances of the site on them.
const root = join(import.meta.dir, "..", "..");
const base = mkdtempSync(join(tmpdir(), "tidings-faults-"));
// The postgres user runs the database from inside it.
chmodSync(base, 0o755);
const dir = join(base, "servers");

function cluster(command: string, where = dir): string {
  const run = Bun.spawnSync([join(root, "scripts", "cluster"), command, where], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (run.exitCode !== 0) throw new Error(`scripts/cluster ${command}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

let adminUrl = "";
let redisUrl = "";
let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
const secret = randomBytes(24).toString("hex");
const started: ServerProcess[] = [];
const open: ChatTester[] = [];

beforeAll(() => {
  if (withoutClusterServers) return;
  const out = cluster("start");
  adminUrl = /^CLUSTER_DB_URL=(.*)$/m.exec(out)?.[1] ?? "";
  redisUrl = /^CLUSTER_REDIS_URL=(.*)$/m.exec(out)?.[1] ?? "";
});
afterAll(async () => {
  for (const t of open) t.close();
  await Promise.all(started.map((s) => s.stop("SIGKILL").catch(() => {})));
  if (!withoutClusterServers) {
    cluster("stop");
    if (clusterUrl) cluster("stop", clusterDir);
  }
});

/** The key prefix of the last site started (to read its pool when a test fails). */
let sitePrefix = "";

/** Two instances of one site on this file's servers, with a database and key prefix of their own. */
async function site(name: string, redis = redisUrl) {
  database = await createPostgresDatabase(adminUrl);
  sitePrefix = `${name}-${randomBytes(3).toString("hex")}:`;
  const env = {
    DB_URL: database.url,
    REDIS_URL: redis,
    REDIS_PREFIX: sitePrefix,
    SECRET: secret,
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
  };
  const both = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  started.push(...both);
  return both as [ServerProcess, ServerProcess];
}

let addresses = 0;
const nextAddress = () => `198.18.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
function tester(server: ServerProcess) {
  const t = chatTester(server.url, { address: nextAddress(), secret });
  open.push(t);
  return t;
}

const messagesOf = (t: ChatTester) =>
  t.events.filter(isType("message")).map((e) => (e as { message: { id: string } }).message.id);
const lost = (e: ChatEvent) => e.type === "status" && e.status.state === "idle";
const chatIdOf = (e: ChatEvent | undefined) =>
  e?.type === "matched"
    ? e.chatId
    : e?.type === "status" && e.status.state === "chatting"
      ? e.status.chatId
      : undefined;

/** A Redis Cluster of three primaries of this file's own, for the outage on a Cluster. */
let clusterUrl = "";
const clusterDir = join(base, "redis-cluster");

/**
 * Redis (one server, or every node of the Cluster) killed and started again empty 3 s later
 * under 50 chats across two instances whose visitors keep sending once a second, as people keep
 * typing, through the outage and after it.
 */
async function outageWhileTyping(
  name: string,
  redis: { url: string; kill: () => void; start: () => void },
) {
  const [one, two] = await site(name, redis.url);
  const sides = await Promise.all(
    Array.from({ length: 50 }, () => Promise.all([listening(tester(one)), listening(tester(two))])),
  );
  // Paired one chat after another, so each pair is the two meant for each other.
  const pairs: Array<{ a: ChatTester; b: ChatTester }> = [];
  for (const [a, b] of sides) {
    await pairListening(a, b);
    pairs.push({ a, b });
  }
  const everyone = pairs.flatMap(({ a, b }) => [a, b]);
  const seenBefore = new Map(everyone.map((t) => [t, t.events.length]));
  /** Events a visitor received since the outage began. */
  const since = (t: ChatTester) => t.events.slice(seenBefore.get(t) ?? 0);
  const told = (t: ChatTester) => since(t).some((e) => lost(e) || e.type === "partner-left");
  /** Every message a send call acknowledged, by its sender. */
  const acknowledged = new Map<ChatTester, string[]>(everyone.map((t) => [t, []]));
  const answers = new Map<string, number>();
  let typing = true;
  const typists = everyone.map(async (t, i) => {
    // Spread over the second, as people's keystrokes are.
    await Bun.sleep((i * 1000) / everyone.length);
    for (let n = 0; typing && !told(t); n++) {
      const next = Bun.sleep(1000);
      await t.api.chat.send.mutate({ content: `still typing ${n}` }).then(
        (message) => acknowledged.get(t)?.push(message.id),
        async (error) => {
          // A refusal the socket itself answers (it closed) counts too, by what it says.
          const answer = await failure(Promise.reject(error)).catch(() => undefined);
          const code = answer?.data.appCode ?? String(error).slice(0, 80);
          answers.set(code, (answers.get(code) ?? 0) + 1);
        },
      );
      await next;
    }
  });
  const outputBefore = [one.output().length, two.output().length];
  await Bun.sleep(1500);
  redis.kill();
  const [health] = await Promise.all([fetch(`${one.url}/healthz`), Bun.sleep(3000)]);
  redis.start();
  // While Redis is away the site says so, as its readiness does: retry later, not a fault.
  expect(health.status).toBe(503);
  expect(Number(health.headers.get("retry-after"))).toBeGreaterThan(0);
  const back = Date.now();

  // Every side of every chat hears it was lost, from the instance holding it, though they kept
  // sending meanwhile.
  await eventually(() => everyone.every(told), "every side of every chat told", 20_000);
  const toldWithin = Date.now() - back;
  typing = false;
  await Promise.all(typists);
  // Nothing acknowledged was lost or came twice.
  for (const { a, b } of pairs) {
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const received = messagesOf(to);
      for (const id of acknowledged.get(from) ?? []) {
        expect(received.filter((r) => r === id)).toHaveLength(1);
      }
    }
  }
  // Everyone still connected presses start and is matched again.
  const pressed = Date.now();
  const statuses = await Promise.all(everyone.map((t) => t.start()));
  expect(statuses.every((s) => s.state === "waiting" || s.state === "chatting")).toBe(true);
  const matchedAgain = (t: ChatTester) =>
    t.events
      .slice(t.events.findLastIndex((e) => lost(e) || e.type === "partner-left"))
      .some((e) => chatIdOf(e) !== undefined);
  await eventually(() => everyone.every(matchedAgain), "everyone matched again", 20_000).catch(
    (error) => {
      // Who was left, with what their start answered and what they heard since, to tell a lost
      // "matched" from a visitor the pool never held.
      // And what the pool holds of them (its hash lives on one node, also on a Cluster).
      const [host, port] = (redis.url.split(",")[0] ?? "").replace("redis://", "").split(":");
      const pool = Bun.spawnSync([
        "redis-cli",
        "-c",
        "-h",
        host ?? "",
        "-p",
        port ?? "",
        "HGETALL",
        `${sitePrefix}{pool}:visitors`,
      ])
        .stdout.toString()
        .split("\n");
      const heldOf = (visitorId: string) =>
        pool.flatMap((line, k) =>
          line.startsWith(`${visitorId}|`) ? [`${line}=${pool[k + 1]}`] : [],
        );
      const left = everyone.flatMap((t, i) =>
        matchedAgain(t)
          ? []
          : [
              `#${i} ${JSON.stringify(statuses[i])} heard ${JSON.stringify(t.events.slice(-4))}` +
                ` pool ${heldOf(t.visitorId).join(" ")}`,
            ],
      );
      throw new Error(`${error}; left unmatched:\n${left.join("\n")}`);
    },
  );
  const matchedWithin = Date.now() - pressed;
  console.log(
    `${name}: every side told within ${toldWithin} ms of Redis coming back, everyone matched ` +
      `again within ${matchedWithin} ms; sends refused: ${JSON.stringify(Object.fromEntries(answers))}`,
  );
  expect(toldWithin).toBeLessThan(5000);
  expect(matchedWithin).toBeLessThan(5000);
  expect(answers.get("UNAVAILABLE") ?? 0).toBeGreaterThan(0);
  // The outage was told in a bounded number of lines, however long it lasted and however many
  // calls it refused.
  const lines = [one, two].map((s, i) => s.output().slice(outputBefore[i]).split("\n"));
  for (const output of lines) {
    expect(output.filter((line) => /redis/i.test(line)).length).toBeLessThanOrEqual(6);
    expect(output.filter((line) => /unhandled|^\s+at /i.test(line))).toEqual([]);
  }
  for (const t of everyone) t.close();
}

describe.skipIf(withoutClusterServers)("faults", () => {
  test("Redis killed and restarted empty while visitors keep typing: everyone told within 5 s, nothing acknowledged lost or twice, everyone matched again", async () => {
    await outageWhileTyping("redis-fault", {
      url: redisUrl,
      kill: () => cluster("kill-redis"),
      start: () => cluster("start-redis"),
    });
  }, 120_000);

  test("the same on a 3-primary Redis Cluster, every node killed and started again empty", async () => {
    clusterUrl ||=
      /^CLUSTER_REDIS_CLUSTER_URL=(.*)$/m.exec(cluster("redis-cluster", clusterDir))?.[1] ?? "";
    await outageWhileTyping("redis-cluster-fault", {
      url: clusterUrl,
      kill: () => cluster("kill-redis-cluster", clusterDir),
      start: () => cluster("restart-redis-cluster", clusterDir),
    });
  }, 120_000);

  test("an age answer changed while Redis was away is not left behind in an instance's memory", async () => {
    const [, two] = await site("age-outage");
    // Confirmed and started on the second instance, which keeps the answer in memory since it
    // hears of every change from the others.
    const visitor = await listening(tester(two));
    expect(await visitor.start()).toEqual({ state: "waiting" });
    await visitor.api.chat.end.mutate();
    // While Redis is away the answer turns "under 18", written by an instance whose news could
    // not go out.
    cluster("kill-redis");
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    await sql`UPDATE visitor_ages SET answer = 'minor', answered_at = ${Date.now()}
      WHERE visitor_id = ${visitor.visitorId} AND gate = 'chat'`;
    await sql.end();
    cluster("start-redis");
    // Back on Redis, the second instance lets go of what it kept and reads the answer again.
    const refused = await eventually(
      () =>
        visitor.api.chat.start.mutate().then(
          async () => {
            await visitor.api.chat.end.mutate().catch(() => {});
            return undefined;
          },
          async (e) => {
            const answer = await failure(Promise.reject(e));
            return answer.data.appCode === "AGE_REFUSED" ? answer : undefined;
          },
        ),
      "the second instance refusing the start once Redis is back",
      20_000,
    );
    expect(refused.data.appCode).toBe("AGE_REFUSED");
  }, 60_000);

  test("PostgreSQL stopped and started: a retryable 503 meanwhile, nothing half-written, recovery without a restart, a quick clean stop", async () => {
    const [one, two] = await site("pg-fault");
    // Each throw from a writer of its own (a visitor may throw only a few a minute).
    const throwOnce = async (server: ServerProcess, text: string) => {
      const writer = await bottleWriter(server.url, { "X-Forwarded-For": nextAddress() });
      return (await writer.bottles.throw.mutate(bottleInput(text))).id;
    };
    const thrown: number[] = [];
    for (let i = 0; i < 6; i++)
      thrown.push(await throwOnce(i % 2 ? one : two, `Before the stop ${i}`));
    const writer = await bottleWriter(one.url, { "X-Forwarded-For": nextAddress() });
    cluster("stop-postgres");
    // Started again however this part ends, so a failure here does not fail the next tests.
    try {
      const during = await failure(writer.bottles.throw.mutate(bottleInput("While it is down")));
      expect(during.status).toBe(503);
      expect(during.data.appCode).toBe("UNAVAILABLE");
      expect(during.data.retryAfter).toBeGreaterThan(0);
      // The raw answer, as any client sees it: 503 with Retry-After (on a connection of its own:
      // a pooled one may have idled out while PostgreSQL stopped on a slow machine).
      const raw = await fetch(`${two.url}/trpc/bottles.discover`, {
        headers: { "X-Forwarded-For": nextAddress() },
        keepalive: false,
      });
      expect(raw.status).toBe(503);
      expect(Number(raw.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      cluster("start-postgres");
    }
    // The instances recover by themselves.
    thrown.push(
      await eventually(
        () => throwOnce(two, "After the start").catch(() => undefined),
        "a throw succeeding again",
        20_000,
      ),
    );
    for (let i = 0; i < 5; i++)
      thrown.push(await throwOnce(i % 2 ? one : two, `After the start ${i}`));
    // Every acknowledged bottle is kept, and nothing else.
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const rows = await sql<{ id: number }[]>`SELECT id::int AS id FROM bottles`;
    await sql.end();
    expect(rows.map((row) => row.id).sort((x, y) => x - y)).toEqual(thrown.sort((x, y) => x - y));
    // Stopping is quick and clean after the restart.
    for (const server of [one, two]) {
      const stopping = Date.now();
      server.process.kill("SIGTERM");
      expect(await server.process.exited).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(4000);
    }
  }, 90_000);

  test("an instance killed: its visitors' partners are told within 20 s, and nobody is matched with a visitor of the dead instance", async () => {
    const [one, two] = await site("kill");
    const pairs: Array<{ a: ChatTester; b: ChatTester }> = [];
    for (let i = 0; i < 3; i++) {
      const [a, b] = await Promise.all([listening(tester(one)), listening(tester(two))]);
      await pairListening(a, b);
      pairs.push({ a, b });
    }
    // Visitors waiting on the instance about to die.
    const ghosts: ChatTester[] = [];
    for (let i = 0; i < 5; i++) {
      const t = await listening(tester(one));
      await t.start();
      ghosts.push(t);
    }
    const ghostChats = new Set<string>();
    const killedAt = Date.now();
    one.process.kill("SIGKILL");
    await one.process.exited;
    // Ten visitors press start on the live instance right away, one after another.
    const fresh: ChatTester[] = [];
    for (let i = 0; i < 10; i++) {
      const t = await listening(tester(two));
      const status = await t.start();
      if (status.state === "chatting") ghostChats.add(status.chatId);
      fresh.push(t);
    }
    await eventually(
      () => fresh.every((t) => t.events.some((e) => chatIdOf(e))),
      "the ten matched",
      10_000,
    );
    // Each was matched with another of the ten, never with a visitor of the dead instance.
    const byChat = new Map<string, number>();
    for (const t of fresh) {
      const chat = chatIdOf(t.events.find((e) => chatIdOf(e)));
      if (chat) byChat.set(chat, (byChat.get(chat) ?? 0) + 1);
    }
    expect([...byChat.values()]).toEqual([2, 2, 2, 2, 2]);
    for (const { b } of pairs) await b.waitFor(isType("partner-left"), 20_000);
    const told = Date.now() - killedAt;
    console.log(`instance killed: partners told within ${told} ms`);
    expect(told).toBeLessThan(20_000);
    expect(ghosts.length).toBe(5);
  }, 60_000);
});
