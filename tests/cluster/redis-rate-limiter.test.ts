import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { RateLimitedError } from "../../src/core/errors.ts";
import { RedisRateLimiter } from "../../src/core/limits/redis-rate-limiter.ts";
import { isCluster } from "../../src/core/redis-script.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { eventually } from "../helpers/eventually.ts";
import { monitorOf } from "../helpers/monitor.ts";
import { redisConnections } from "../helpers/redis.ts";

// The limits every instance shares, on the Redis that `CLUSTER=1 ./scripts/test` starts (one
// server, or a Redis Cluster, where the keys of one action may sit on different nodes): the same
// rules as the limits in memory (tests/unit/rate-limiter.test.ts).
const connections = redisConnections();
afterAll(() => connections.close());

const rule = { limit: 3, windowMs: 60_000 };
const slot = (key: string) => [{ key, rule }];

async function limiter(start = 1_000_000) {
  const { redis } = await connections.open();
  const clock = new VirtualClock(start);
  // A fresh prefix per test: its own keys.
  const prefix = `test-limits-${randomBytes(6).toString("hex")}:`;
  return {
    limits: new RedisRateLimiter(redis, prefix, clock),
    clock,
    redis,
    prefix,
    /** The same limits from another instance, on connections of its own. */
    async other() {
      const separate = await connections.separate();
      return new RedisRateLimiter(separate.redis, prefix, clock);
    },
  };
}

async function waitOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RateLimitedError) return error.retryAfterSeconds;
    throw error;
  }
  throw new Error("expected a refusal");
}

/** Whether a take passed (false when the limit refused it; any other failure is thrown). */
async function passes(take: Promise<unknown>): Promise<boolean> {
  try {
    await take;
    return true;
  } catch (error) {
    if (error instanceof RateLimitedError) return false;
    throw error;
  }
}

describe.skipIf(withoutClusterServers)(`the rate limits on ${connections.label}`, () => {
  test("allow up to the limit, then refuse with the wait in whole seconds, rounded up", async () => {
    const { limits, clock } = await limiter();
    for (let i = 0; i < 3; i++) {
      await limits.take(slot("k"));
      clock.advance(10_500);
    }
    // The oldest of the three leaves the window 60 s after it came: 28.5 s from now.
    expect(await waitOf(limits.take(slot("k")))).toBe(29);
    clock.advance(28_500);
    await limits.take(slot("k"));
  });

  test("the window slides: the oldest action frees a place when it leaves", async () => {
    const { limits, clock } = await limiter();
    await limits.take(slot("k"));
    clock.advance(30_000);
    await limits.take(slot("k"));
    await limits.take(slot("k"));
    expect(await waitOf(limits.take(slot("k")))).toBe(30);
    clock.advance(30_000);
    await limits.take(slot("k"));
    expect(await waitOf(limits.take(slot("k")))).toBeGreaterThan(0);
  });

  test("a key keeps only its last `limit` actions, oldest first, and an address's 60 decide as 3 do", async () => {
    const { limits, clock, redis, prefix } = await limiter();
    for (let i = 0; i < 10; i++) {
      await limits.take(slot("k"));
      clock.advance(25_000);
    }
    const [count, list] = (await redis.get(`${prefix}limit:{k}`))?.split("|") ?? [];
    expect(count).toBe("3");
    const words = list?.split(" ") ?? [];
    expect(words.map((word) => Number(word.split(":")[0]) - 1_000_000)).toEqual([
      175_000, 200_000, 225_000,
    ]);
    const wide = [{ key: "ip:a", rule: { limit: 60, windowMs: 60_000 } }];
    for (let i = 0; i < 60; i++) {
      await limits.take(wide);
      clock.advance(500);
    }
    // The first of the 60 leaves the window 60 s after it came: 30 s from now.
    expect(await waitOf(limits.take(wide))).toBe(30);
    clock.advance(30_000);
    await limits.take(wide);
    expect(await waitOf(limits.take(wide))).toBe(1);
    const [count60, list60] = (await redis.get(`${prefix}limit:{ip}:a`))?.split("|") ?? [];
    expect([count60, list60?.split(" ").length]).toEqual(["60", 60]);
  });

  test("a key written before its count was kept (an upgrade within one window) still counts", async () => {
    const { limits, clock, redis, prefix } = await limiter();
    const key = `${prefix}limit:{k}`;
    await redis.set(key, "970000:aaaaaaaa 980000:bbbbbbbb 990000:cccccccc", "PX", 60_000);
    // The first of the three leaves the window at 1,030,000: 30 s from now.
    expect(await waitOf(limits.take(slot("k")))).toBe(30);
    clock.advance(30_000);
    const taken = await limits.take(slot("k"));
    expect(await redis.get(key)).toMatch(/^3\|980000:bbbbbbbb 990000:cccccccc 1030000:/);
    await taken.refund();
    expect(await redis.get(key)).toBe("2|980000:bbbbbbbb 990000:cccccccc");
  });

  test("a lowered limit counts the newest actions, and the key shrinks to it", async () => {
    const { limits, clock, redis, prefix } = await limiter();
    const five = [{ key: "k", rule: { limit: 5, windowMs: 60_000 } }];
    for (let i = 0; i < 5; i++) {
      await limits.take(five);
      clock.advance(10_000);
    }
    // Now 3 a minute: the third newest (30 s old) leaves the window in 30 s; the oldest two
    // (50 and 40 s old) would say 10 and 20.
    expect(await waitOf(limits.take(slot("k")))).toBe(30);
    clock.advance(30_000);
    await limits.take(slot("k"));
    const [count, list] = (await redis.get(`${prefix}limit:{k}`))?.split("|") ?? [];
    expect(count).toBe("3");
    expect(list?.split(" ").map((word) => Number(word.split(":")[0]) - 1_000_000)).toEqual([
      30_000, 40_000, 80_000,
    ]);
  });

  test("all or nothing: a refusal takes no slot on any key (keys on different nodes too)", async () => {
    const { limits } = await limiter();
    for (let i = 0; i < 3; i++) await limits.take(slot("visitor"));
    expect(await waitOf(limits.take([...slot("visitor"), ...slot("ip")]))).toBe(60);
    for (let i = 0; i < 3; i++) await limits.take(slot("ip"));
    expect(await waitOf(limits.take(slot("ip")))).toBe(60);
  });

  /** 60 takes at once from two instances of `both()`; how many passed (refusals only). */
  async function race(both: () => ReturnType<typeof slot>) {
    const { limits, other, redis } = await limiter();
    const second = await other();
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? limits : second).take(both())),
    );
    // Refused by the limit, not failed.
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(RateLimitedError);
    }
    const passed = results.filter((r) => r.status === "fulfilled").length;
    // The refused calls gave back whatever they took: the places left are all still there.
    let after = 0;
    while (after <= 3 && (await passes(limits.take(both())))) after++;
    expect(passed + after).toBe(3);
    return { passed, cluster: isCluster(redis) };
  }

  test("calls that run together, from two instances, cannot pass the limit: 60 parallel takes of one action's visitor and address keys, exactly 3 succeed (one script, on a Cluster too)", async () => {
    const { passed } = await race(() => [...slot("act:v:one"), ...slot("act:ip:home")]);
    expect(passed).toBe(3);
  });

  test("one action's visitor and address slots are taken in one script call, on a Cluster too", async () => {
    const { limits, redis, prefix } = await limiter();
    const nodes = isCluster(redis) ? redis.nodes("master") : [redis];
    // The scripts sent with this limiter's keys, as every node saw them: other suites run their
    // own scripts on the same Redis meanwhile, which a count of all calls would take in.
    let calls = 0;
    const monitors = await Promise.all(nodes.map(monitorOf));
    for (const monitor of monitors) {
      monitor.on("monitor", (_time: string, args: string[]) => {
        const name = String(args[0]).toLowerCase();
        if ((name === "evalsha" || name === "eval") && args.some((a) => a.startsWith(prefix))) {
          calls += 1;
        }
      });
    }
    try {
      for (let i = 0; i < 20; i++) {
        await limits.take([...slot(`act:v:${i}`), ...slot(`act:ip:${i}`)]);
      }
      // MONITOR's lines come on connections of their own: each take's has come once 20 have.
      await eventually(() => calls >= 20, "20 scripts seen");
      await limits.take(slot("other:v:0"));
      await eventually(() => calls >= 21, "the last take's script seen");
      expect(calls).toBe(21);
    } finally {
      for (const monitor of monitors) monitor.disconnect();
    }
  });

  test("60 parallel takes under two actions at once: at most 3 succeed and the refused give back what they took", async () => {
    const { passed, cluster } = await race(() => [...slot("k"), ...slot("j")]);
    if (cluster) {
      // Each action is taken on its own slot: two calls racing for the last places under the two
      // may both be refused, so fewer may pass, never more.
      expect(passed).toBeLessThanOrEqual(3);
    } else {
      // One script takes both keys: exactly the limit passes.
      expect(passed).toBe(3);
    }
  });

  test("a refund gives back exactly its own slots, once", async () => {
    const { limits } = await limiter();
    const first = await limits.take([...slot("a"), ...slot("b")]);
    await limits.take(slot("a"));
    await limits.take(slot("a"));
    expect(await waitOf(limits.take(slot("a")))).toBeGreaterThan(0);
    await first.refund();
    await first.refund();
    await limits.take(slot("a"));
    expect(await waitOf(limits.take(slot("a")))).toBeGreaterThan(0);
    // "b" was given back too: its whole limit is there.
    for (let i = 0; i < 3; i++) await limits.take(slot("b"));
    expect(await waitOf(limits.take(slot("b")))).toBeGreaterThan(0);
  });

  test("keys live under the prefix, tagged with their action, and expire with their windows", async () => {
    const { limits, redis, prefix } = await limiter();
    await limits.take([...slot("k"), ...slot("act:v:one")]);
    expect(await redis.exists(`${prefix}limit:{k}`)).toBe(1);
    const key = `${prefix}limit:{act}:v:one`;
    expect(await redis.exists(key)).toBe(1);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(rule.windowMs);
  });

  test("different rules on different keys: each key keeps its own window", async () => {
    const { limits, clock } = await limiter();
    const both = [
      { key: "minute", rule: { limit: 2, windowMs: 60_000 } },
      { key: "day", rule: { limit: 3, windowMs: 24 * 60 * 60_000 } },
    ];
    await limits.take(both);
    await limits.take(both);
    expect(await waitOf(limits.take(both))).toBe(60);
    clock.advance(61_000);
    await limits.take(both);
    clock.advance(61_000);
    expect(await waitOf(limits.take(both))).toBeGreaterThan(3600);
  });
});
