import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { RateLimitedError } from "../../src/core/errors.ts";
import { RedisRateLimiter } from "../../src/core/limits/redis-rate-limiter.ts";
import { isCluster } from "../../src/core/redis-script.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
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

  test("all or nothing: a refusal takes no slot on any key (keys on different nodes too)", async () => {
    const { limits } = await limiter();
    for (let i = 0; i < 3; i++) await limits.take(slot("visitor"));
    expect(await waitOf(limits.take([...slot("visitor"), ...slot("ip")]))).toBe(60);
    for (let i = 0; i < 3; i++) await limits.take(slot("ip"));
    expect(await waitOf(limits.take(slot("ip")))).toBe(60);
  });

  test("calls that run together, from two instances, cannot pass the limit: 60 parallel takes of two keys, at most 3 succeed and the refused give back what they took", async () => {
    const { limits, other, redis } = await limiter();
    const second = await other();
    const both = () => [...slot("k"), ...slot("j")];
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? limits : second).take(both())),
    );
    const passed = results.filter((r) => r.status === "fulfilled").length;
    // Refused by the limit, not failed.
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(RateLimitedError);
    }
    if (isCluster(redis)) {
      // Each key is taken on its own node: two calls racing for the last places on the two keys
      // may both be refused, so fewer may pass, never more.
      expect(passed).toBeLessThanOrEqual(3);
    } else {
      // One script takes both keys: exactly the limit passes.
      expect(passed).toBe(3);
    }
    // The refused calls gave back whatever they took: the places left are all still there.
    let after = 0;
    while (after <= 3 && (await passes(limits.take(both())))) after++;
    expect(passed + after).toBe(3);
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

  test("keys live under the prefix and expire with their windows", async () => {
    const { limits, redis, prefix } = await limiter();
    await limits.take(slot("k"));
    const key = `${prefix}limit:k`;
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
