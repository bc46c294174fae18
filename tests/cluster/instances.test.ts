import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { ChatEvent } from "../../src/common/chat.ts";
import { CONTACT_RATE } from "../../src/core/contact/contact.ts";
import { encodeHoldNews } from "../../src/core/holds/replicated.ts";
import { REFUSAL_HOLDS_MS } from "../../src/core/safety/ages.ts";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
} from "../helpers/chat-client.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";
import { createPostgresDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";
import { type ServerProcess, startServerProcess } from "../helpers/process.ts";
import { redisConnections } from "../helpers/redis.ts";
import {
  bottleInput,
  bottleWriter,
  CookieJar,
  failure,
  signedVisitorCookie,
  trpcClient,
} from "../helpers/server.ts";

// Two instances of the site, as an operator runs them: separate processes on one PostgreSQL
// database and one Redis, with the same secret. Run by `CLUSTER=1 ./scripts/test`.

let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
let one: ServerProcess;
let two: ServerProcess;
const env = () => ({
  DB_URL: database.url,
  REDIS_URL: clusterServers?.redisUrl ?? "",
  REDIS_PREFIX: prefix,
  SECRET: secret,
  TRUST_PROXY: "true",
  LOG_FORMAT: "off",
});
const prefix = `pair-${randomBytes(4).toString("hex")}:`;
const secret = randomBytes(24).toString("hex");
const open: ChatTester[] = [];

beforeAll(async () => {
  if (!clusterServers) return;
  database = await createPostgresDatabase(clusterServers.dbUrl);
  // Started together, as a rolling deploy does: they migrate the one database in turn.
  [one, two] = await Promise.all([startServerProcess(env()), startServerProcess(env())]);
});
afterAll(async () => {
  for (const t of open) t.close();
  await Promise.all([one?.stop(), two?.stop()]);
  await database?.drop();
});

let addresses = 0;
const nextAddress = () => `198.18.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
function tester(server: ServerProcess, options: Parameters<typeof chatTester>[1] = {}) {
  const t = chatTester(server.url, { address: nextAddress(), secret, ...options });
  open.push(t);
  return t;
}
async function pairAcross() {
  const [a, b] = await Promise.all([listening(tester(one)), listening(tester(two))]);
  await pairListening(a, b);
  return { a, b };
}

async function health(server: ServerProcess) {
  return (await (await fetch(`${server.url}/healthz`)).json()) as {
    chats: number;
    waiting: number;
    present: number;
  };
}

describe.skipIf(withoutClusterServers)("two instances, one site", () => {
  test("visitors on different instances are paired and chat both ways", async () => {
    const { a, b } = await pairAcross();
    const hello = await a.api.chat.send.mutate({ content: "from the first instance" });
    await b.waitFor((e) => e.type === "message" && e.message.id === hello.id);
    const reply = await b.api.chat.send.mutate({ content: "from the second instance" });
    await a.waitFor((e) => e.type === "message" && e.message.id === reply.id);
    // Both count the one chat.
    expect((await health(one)).chats).toBeGreaterThanOrEqual(1);
    expect((await health(two)).chats).toBe((await health(one)).chats);
    await a.api.chat.end.mutate();
    await b.waitFor(isType("partner-left"));
  });

  test("a socket that moves to the other instance resumes with nothing lost or twice", async () => {
    const { a, b } = await pairAcross();
    const last = a.lastEventId;
    a.close();
    const sent: Array<{ id: string }> = [];
    for (let i = 0; i < 3; i++)
      sent.push(await b.api.chat.send.mutate({ content: `while away ${i}` }));
    const moved = tester(two, { visitorId: a.visitorId });
    moved.listen(last);
    await moved.waitFor((e) => e.type === "message" && e.message.id === sent[2]?.id);
    const messages = moved.events.filter(isType("message"));
    expect(messages.map((e) => (e as { message: { id: string } }).message.id)).toEqual(
      sent.map((m) => m.id),
    );
    expect((await moved.api.chat.send.mutate({ content: "back" })).content).toBe("back");
  });

  test("another tab of a visitor's, on either instance, leaves their chat running when it goes away", async () => {
    const { a, b } = await pairAcross();
    for (const [round, server] of [one, two, one, two].entries()) {
      // Another tab of theirs: its stream is told of the chat, then the tab is closed (1001,
      // going away, which ends the chat of a visitor with no other tab open anywhere).
      const second = tester(server, { visitorId: a.visitorId });
      second.listen();
      await second.waitFor((e) => e.type === "status" && e.status.state === "chatting");
      second.leave(1001);
      const hello = await a.api.chat.send.mutate({ content: `still here ${round}` });
      await b.waitFor((e) => e.type === "message" && e.message.id === hello.id);
      const reply = await b.api.chat.send.mutate({ content: `still here too ${round}` });
      await a.waitFor((e) => e.type === "message" && e.message.id === reply.id);
    }
    for (const side of [a, b]) {
      expect(side.events.filter((e) => e.type === "partner-left" || e.type === "idle")).toEqual([]);
    }
    // Their last tab going away ends it, as it always has.
    a.leave(1001);
    await b.waitFor(isType("partner-left"), 3000);
  });

  test("2,000 starts spread over both instances pair everyone exactly once", async () => {
    const n = 2000;
    const matched = new Map<string, string>();
    const sockets: WebSocket[] = [];
    // Exactly once is what this checks; how quickly is the match benchmark's. Each visitor
    // answers the safety gate first (a database write), so a busy machine takes a while.
    try {
      await Promise.all(
        Array.from({ length: n }, (_, i) => {
          const server = i % 2 === 0 ? one : two;
          const id = `crowd${String(i).padStart(5, "0")}${"y".repeat(12)}`.slice(0, 22);
          return new Promise<void>((resolve, reject) => {
            const socket = new WebSocket(`${server.url.replace("http", "ws")}/trpc`, {
              headers: {
                Origin: server.url,
                Cookie: signedVisitorCookie(id, { secret }),
                "X-Forwarded-For": nextAddress(),
              },
            } as unknown as string[]);
            sockets.push(socket);
            const timer = setTimeout(() => reject(new Error(`${id} was never matched`)), 100_000);
            socket.onopen = () => {
              // The safety gate first; start once it has answered.
              socket.send(
                JSON.stringify([
                  { id: 1, method: "subscription", params: { path: "chat.events", input: {} } },
                  {
                    id: 3,
                    method: "mutation",
                    params: { path: "chat.confirmAge", input: { adult: true } },
                  },
                ]),
              );
            };
            socket.onmessage = (event) => {
              const frame = JSON.parse(String(event.data)) as {
                id?: number;
                result?: { data?: { data?: ChatEvent[] } };
              };
              if (frame.id === 3) {
                socket.send(
                  JSON.stringify({
                    id: 2,
                    method: "mutation",
                    params: { path: "chat.start", input: {} },
                  }),
                );
                return;
              }
              // Events arrive in batches.
              for (const e of frame.result?.data?.data ?? []) {
                const chat =
                  e.type === "matched"
                    ? e.chatId
                    : e.type === "status" && e.status.state === "chatting"
                      ? e.status.chatId
                      : undefined;
                if (!chat) continue;
                if (matched.has(id) && matched.get(id) !== chat) {
                  reject(new Error(`${id} matched twice`));
                }
                matched.set(id, chat);
                clearTimeout(timer);
                resolve();
              }
            };
          });
        }),
      );
      // Everyone answered once; a second pairing of anyone would have rejected above.
      const byChat = new Map<string, number>();
      for (const chat of matched.values()) byChat.set(chat, (byChat.get(chat) ?? 0) + 1);
      expect(matched.size).toBe(n);
      expect(byChat.size).toBe(n / 2);
      expect([...byChat.values()].every((count) => count === 2)).toBe(true);
    } finally {
      for (const socket of sockets) socket.close();
    }
  }, 120_000);

  test("a limit holds across instances", async () => {
    const address = nextAddress();
    const cookie = signedVisitorCookie("acrossinstances0000000", { secret });
    const message = { name: "Mei", email: "mei@example.org", message: "Across the instances" };
    const results: number[] = [];
    for (let i = 0; i < CONTACT_RATE.limit + 2; i++) {
      const server = i % 2 === 0 ? one : two;
      const api = trpcClient(server.url, { "X-Forwarded-For": address, Cookie: cookie });
      results.push(
        await api.contact.send.mutate(message).then(
          () => 200,
          async (e) => (await failure(Promise.reject(e))).status,
        ),
      );
    }
    expect(results.filter((s) => s === 200)).toHaveLength(CONTACT_RATE.limit);
    expect(results.slice(CONTACT_RATE.limit)).toEqual([429, 429]);
  });

  test("a ban made on one instance is refused by the other within a second", async () => {
    const { a, b } = await pairAcross();
    // An unsafe message, reported on the first instance, bans its sender there at once.
    const unsafe = await b.api.chat.send.mutate({ content: "you are a fucking idiot" });
    await a.waitFor((e) => e.type === "message" && e.message.id === unsafe.id);
    await a.api.chat.report.mutate({ messageId: unsafe.id, reason: "harassment" });
    await b.waitFor(isType("banned"));
    const again = trpcClient(two.url, {
      "X-Forwarded-For": nextAddress(),
      Cookie: signedVisitorCookie(b.visitorId, { secret }),
    });
    const refused = await eventually(
      () => failure(again.chat.start.mutate()),
      "the other instance refusing",
      1000,
    );
    expect(refused.data.appCode).toBe("CHAT_BANNED");
  });

  test("an age answer changed on one instance holds on the other within a second", async () => {
    // Confirmed, and started once on the second instance, which then keeps the answer.
    const visitor = tester(two);
    await listening(visitor);
    expect(await visitor.start()).toEqual({ state: "waiting" });
    await visitor.api.chat.end.mutate();
    // The same visitor, on the first instance, says they are under 18.
    const young = trpcClient(one.url, {
      "X-Forwarded-For": nextAddress(),
      Cookie: signedVisitorCookie(visitor.visitorId, { secret }),
    });
    expect(await young.chat.confirmAge.mutate({ adult: false })).toEqual({ age: "refused" });
    // A start let in before the news arrives leaves the pool again, so no later test meets it.
    const refused = await eventually(
      () =>
        visitor.api.chat.start.mutate().then(
          async () => {
            await visitor.api.chat.end.mutate();
            return undefined;
          },
          (e) => failure(Promise.reject(e)),
        ),
      "the other instance refusing",
      1000,
    );
    expect(refused.data.appCode).toBe("AGE_REFUSED");
  });

  test("a start let in before the news of an 'under 18' answer leaves the pool when it comes", async () => {
    const visitor = tester(two);
    await listening(visitor);
    expect(await visitor.start()).toEqual({ state: "waiting" });
    // The first instance wrote the answer and ended the search it found before this start
    // landed: all the second instance has left to go on is the news.
    const sql = postgres(env().DB_URL, { max: 1, onnotice: () => {} });
    const answeredAt = Date.now();
    await sql`UPDATE visitor_ages SET answer = 'minor', answered_at = ${answeredAt}
      WHERE visitor_id = ${visitor.visitorId} AND gate = 'chat'`;
    await sql.end();
    const redis = redisConnections();
    try {
      const { redis: client } = await redis.open();
      const refused = { key: `chat:${visitor.visitorId}`, until: answeredAt + REFUSAL_HOLDS_MS };
      await client.publish(`${prefix}ages`, encodeHoldNews({ ...refused, from: "first-instance" }));
      await visitor.waitFor((e) => e.type === "idle");
    } finally {
      redis.close();
    }
  });

  test("an off switch set on one instance takes effect on the other within 10 s", async () => {
    const jar = new CookieJar();
    const op = trpcClient(one.url, { "X-Forwarded-For": nextAddress() }, jar);
    await op.auth.signUp.mutate({ username: "pair_operator", password: "long-enough-pw" });
    // `tidings operator add pair_operator`, as the operator would run it.
    const sql = postgres(env().DB_URL, { max: 1, onnotice: () => {} });
    await sql`UPDATE users SET is_operator = 1 WHERE username_key = 'pair_operator'`;
    await sql.end();
    await op.moderation.setFeature.mutate({ feature: "publicBottles", enabled: false });
    const reader = trpcClient(two.url, { "X-Forwarded-For": nextAddress() });
    const resting = await eventually(
      () =>
        reader.bottles.publicList.query().then(
          () => false,
          async (e) => (await failure(Promise.reject(e))).data.appCode === "FEATURE_RESTING",
        ),
      "the switch read on the other instance",
      10_000,
    );
    expect(resting).toBe(true);
    await op.moderation.setFeature.mutate({ feature: "publicBottles", enabled: true });
  }, 20_000);

  test("a bottle thrown on one instance is discovered on the other", async () => {
    const writer = await bottleWriter(one.url, { "X-Forwarded-For": nextAddress() });
    const { id } = await writer.bottles.throw.mutate(
      bottleInput("Across two instances and one ocean", { isPublic: true }),
    );
    const reader = trpcClient(two.url, { "X-Forwarded-For": nextAddress() });
    const found = await reader.bottles.discover.query();
    expect(found.bottle?.id).toBe(id);
  });

  test("a bottle discovered on one instance translates on the other at once, for its reader only", async () => {
    const message = "這個瓶子從遠方漂來";
    const writer = await bottleWriter(one.url, { "X-Forwarded-For": nextAddress() });
    const { id } = await writer.bottles.throw.mutate(bottleInput(message));
    const jar = new CookieJar();
    const address = nextAddress();
    const onOne = trpcClient(one.url, { "X-Forwarded-For": address }, jar);
    const onTwo = trpcClient(two.url, { "X-Forwarded-For": address }, jar);
    const stranger = trpcClient(two.url, { "X-Forwarded-For": nextAddress() });
    expect(
      (await failure(stranger.translate.bottle.mutate({ bottleId: id, target: "zh-CN" }))).status,
    ).toBe(404);
    let shownPass: string | undefined;
    for (let i = 0; i < 40 && !shownPass; i++) {
      const { bottle } = await onOne.bottles.discover.query();
      if (bottle?.id === id) shownPass = bottle.shownPass;
    }
    expect(shownPass).toEqual(expect.any(String));
    // Straight away on the other instance: nothing it needs is written behind.
    expect(
      await onTwo.translate.bottle.mutate({ bottleId: id, shownPass, target: "zh-CN" }),
    ).toEqual({ text: "这个瓶子从远方漂来", target: "zh-CN" });
    expect((await onTwo.translate.languages.query({ bottleId: id, shownPass })).targets).toEqual([
      "zh-CN",
    ]);
    expect(
      (
        await failure(
          stranger.translate.bottle.mutate({ bottleId: id, shownPass, target: "zh-CN" }),
        )
      ).status,
    ).toBe(404);
  });

  // On one Redis, faults.test.ts kills an instance the same way and checks more; here it runs
  // on the Redis Cluster, where faults.test.ts does not run.
  test.skipIf(!clusterServers?.redisCluster)(
    "killing an instance tells its visitors' partners within 20 s and leaves no ghost",
    async () => {
      const { a, b } = await pairAcross();
      const lonely = tester(one);
      lonely.listen();
      await lonely.waitFor(isType("status"));
      await lonely.start();
      expect(a.visitorId).not.toBe(b.visitorId);
      const killedAt = Date.now();
      one.process.kill("SIGKILL");
      await b.waitFor(isType("partner-left"), 20_000);
      expect(Date.now() - killedAt).toBeLessThan(20_000);
      // The one left waiting on the dead instance is gone from the pool too.
      const after = await eventually(
        async () => {
          const now = await health(two);
          return now.waiting === 0 ? now : undefined;
        },
        "the pool without the dead instance's visitor",
        5000,
      );
      expect(after.waiting).toBe(0);
    },
    30_000,
  );
});
