import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatTester, isType, listening, pairListening } from "../helpers/chat-client.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { createPostgresDatabase, TEST_DB_URL, TEST_REDIS_URL } from "../helpers/database.ts";
import { sampled, scrape } from "../helpers/metrics.ts";
import { type ServerProcess, startServerProcess } from "../helpers/process.ts";
import { TEST_SECRET } from "../helpers/server.ts";

// Readiness with real faults: a PostgreSQL server and a Redis server of this test's own
// (scripts/cluster), really stopped and started again under a running site. And a stopping
// instance whose visitors carry on through another one. Run by `CLUSTER=1 ./scripts/test`.
// Without them, skipped (tests/helpers/cluster-servers.ts says how to run them).

const root = join(import.meta.dir, "..", "..");
const token = "a-scrape-token-for-the-cluster";

/** Runs a line of bash with scripts/cluster.sh's helpers (as_pg_owner, pg_bin_dir). */
async function shell(script: string): Promise<string> {
  const child = Bun.spawn(["bash", "-c", `source scripts/cluster.sh; ${script}`], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${script} failed (${code}): ${out}${err}`);
  return out;
}

/** Waits for `check` to hold, asking again as soon as each answer comes (bounded). */
async function until<T>(ask: () => Promise<T>, check: (value: T) => boolean, tries = 600) {
  let value = await ask();
  for (let i = 0; i < tries && !check(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await ask();
  }
  expect(check(value)).toBe(true);
  return value;
}

async function readiness(site: ServerProcess) {
  const response = await fetch(`${site.url}/healthz/ready`);
  const body = (await response.json()) as { checks: Record<string, string> };
  return { status: response.status, checks: body.checks };
}

describe.skipIf(withoutClusterServers)(
  "readiness with a real stopped database and a real stopped Redis",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "tidings-faults-"));
    let dbUrl: URL;
    let redisUrl: URL;
    let site: ServerProcess;

    beforeAll(async () => {
      const started = await shell(`start_cluster ${dir}`);
      dbUrl = new URL(/CLUSTER_DB_URL=(\S+)/.exec(started)?.[1] ?? "");
      redisUrl = new URL(/CLUSTER_REDIS_URL=(\S+)/.exec(started)?.[1] ?? "");
      site = await startServerProcess({
        DB_URL: dbUrl.toString(),
        REDIS_URL: redisUrl.toString(),
        METRICS_TOKEN: token,
        LOG_FORMAT: "off",
      });
    }, 60_000);
    afterAll(async () => {
      await site?.stop();
      await shell(`stop_cluster ${dir}`);
    });
    /** Waits until the site answers readiness with this status; answers that reading. */
    const readyAs = (status: number) =>
      until(
        () => readiness(site),
        (r) => r.status === status,
      );

    const startPostgres = () =>
      shell(
        `as_pg_owner "$(pg_bin_dir)/pg_ctl" -D ${dir}/pg -l ${dir}/pg/server.log -w -t 60 -o "-p ${dbUrl.port} -k ${dir}/pg -c listen_addresses=127.0.0.1 -c fsync=off" start`,
      );
    const stopPostgres = () =>
      shell(`as_pg_owner "$(pg_bin_dir)/pg_ctl" -D ${dir}/pg -m fast -w stop`);
    const redisPid = () => Number(readFileSync(join(dir, "redis.pid"), "utf8").trim());
    const stopRedis = async () => {
      const pid = redisPid();
      process.kill(pid, "SIGTERM");
      await until(
        async () => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        },
        (alive) => !alive,
      );
    };
    const startRedis = () =>
      shell(
        `redis-server --port ${redisUrl.port} --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile ${dir}/redis.pid --logfile ${dir}/redis.log --dir ${dir}`,
      );

    test("ready while both answer; Redis's round trip is in the metrics", async () => {
      expect(await readiness(site)).toEqual({
        status: 200,
        checks: { database: "ok", redis: "ok", serving: "ok" },
      });
      const samples = await scrape(`${site.url}/metrics`, token);
      expect(sampled(samples, "tidings_redis_up")).toBe(1);
      expect(sampled(samples, "tidings_redis_ping_seconds")).toBeGreaterThan(0);
    });

    test("PostgreSQL stopped: not ready, still live; started again: ready again", async () => {
      await stopPostgres();
      const down = await readyAs(503);
      expect(down.checks).toMatchObject({ database: "unreachable", redis: "ok" });
      expect((await fetch(`${site.url}/healthz/live`)).status).toBe(200);
      await startPostgres();
      await readyAs(200);
    }, 60_000);

    test("Redis stopped: not ready, still live, counted in the metrics; started again: ready again", async () => {
      await stopRedis();
      const down = await readyAs(503);
      expect(down.checks).toMatchObject({ database: "ok", redis: "unreachable" });
      expect((await fetch(`${site.url}/healthz/live`)).status).toBe(200);
      const samples = await scrape(`${site.url}/metrics`, token);
      expect(sampled(samples, "tidings_redis_up")).toBe(0);
      await startRedis();
      await readyAs(200);
      expect(sampled(await scrape(`${site.url}/metrics`, token), "tidings_redis_up")).toBe(1);
    }, 60_000);
  },
);

describe.skipIf(withoutClusterServers)("a stopping instance", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let one: ServerProcess;
  let two: ServerProcess;
  // Every instance of one site agrees on its origin; the browser's Origin is that.
  const origin = "http://tidings.test";
  const env = {
    PUBLIC_ORIGIN: origin,
    REDIS_URL: TEST_REDIS_URL ?? "",
    REDIS_PREFIX: `drain-${randomBytes(4).toString("hex")}:`,
    SECRET: TEST_SECRET,
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
  };
  beforeAll(async () => {
    database = await createPostgresDatabase(TEST_DB_URL ?? "");
    [one, two] = await Promise.all([
      startServerProcess({ ...env, DB_URL: database.url, SHUTDOWN_DRAIN: "1s" }),
      startServerProcess({ ...env, DB_URL: database.url }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await two?.stop();
    await one?.stop().catch(() => {});
    await database?.drop();
  });

  test("is let go by the balancer, then its visitors reconnect to another and chat on", async () => {
    // A load balancer: instance one until its readiness fails, then instance two.
    let target = one.url;
    const a = await listening(
      chatTester(one.url, { address: "100.93.0.1", origin, url: () => target, asTheWeb: true }),
    );
    const b = await listening(chatTester(two.url, { address: "100.93.0.2", origin }));
    await pairListening(a, b);

    one.process.kill("SIGTERM");
    await until(
      () => fetch(`${one.url}/healthz/ready`).then((r) => r.status),
      (status) => status === 503,
    );
    target = two.url;
    expect(await one.process.exited).toBe(0);

    // The chat goes on through instance two: nothing was lost, nobody left.
    const message = await b.api.chat.send.mutate({ content: "still there?" });
    await a.waitFor((e) => e.type === "message" && e.message.id === message.id, 10_000);
    const reply = await a.api.chat.send.mutate({ content: "still here" });
    await b.waitFor((e) => e.type === "message" && e.message.id === reply.id);
    expect(a.events.some(isType("partner-left"))).toBe(false);
    expect(b.events.some(isType("partner-left"))).toBe(false);
    a.close();
    b.close();
  }, 60_000);
});
