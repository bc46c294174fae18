import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { RateLimitedError } from "../../src/core/errors.ts";
import { RedisRateLimiter } from "../../src/core/limits/redis-rate-limiter.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";

// The limits every instance shares, on the Redis that `CLUSTER=1 ./scripts/test` starts: the
// same rules as the limits in memory (tests/unit/rate-limiter.test.ts), taken in one step.
const connections: Redis[] = [];
afterAll(() => {
  for (const c of connections) c.disconnect();
});

const rule = { limit: 3, windowMs: 60_000 };
const slot = (key: string) => [{ key, rule }];

function limiter(start = 1_000_000) {
  const redis = new Redis(clusterServers?.redisUrl ?? "");
  connections.push(redis);
  const clock = new VirtualClock(start);
  // A fresh prefix per test: its own keys.
  const prefix = `test-limits-${randomBytes(6).toString("hex")}:`;
  return { limits: new RedisRateLimiter(redis, prefix, clock), clock, redis, prefix };
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

describe.skipIf(withoutClusterServers)("the rate limits on Redis", () => {
  test("allow up to the limit, then refuse with the wait in whole seconds, rounded up", async () => {
    const { limits, clock } = limiter();
    for (let i = 0; i < 3; i++) {
      await limits.take(slot("k"));
      clock.advance(10_500);
    }
    // The oldest of the three leaves the window 60 s after it came: 28.5 s from now.
    expect(await waitOf(limits.take(slot("k")))).toBe(29);
    clock.advance(28_500);
    await limits.take(slot("k"));
  });

  test("all or nothing: a refusal takes no slot on any key", async () => {
    const { limits } = limiter();
    for (let i = 0; i < 3; i++) await limits.take(slot("visitor"));
    expect(await waitOf(limits.take([...slot("visitor"), ...slot("ip")]))).toBe(60);
    for (let i = 0; i < 3; i++) await limits.take(slot("ip"));
  });

  test("calls that run together cannot pass the limit: 30 parallel takes, 3 succeed", async () => {
    const { limits } = limiter();
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () => limits.take(slot("k"))),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
  });

  test("a refund gives back exactly its own slots, once", async () => {
    const { limits } = limiter();
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
  });

  test("keys live under the prefix and expire with their windows", async () => {
    const { limits, redis, prefix } = limiter();
    await limits.take(slot("k"));
    const key = `${prefix}limit:k`;
    expect(await redis.zcard(key)).toBe(1);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(rule.windowMs);
    expect(await redis.keys(`${prefix}*`)).toEqual([key]);
  });

  test("different rules on different keys: each key keeps its own window", async () => {
    const { limits, clock } = limiter();
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
