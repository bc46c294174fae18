import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { RateLimitedError } from "../../src/core/errors.ts";
import { RedisRateLimiter } from "../../src/core/limits/redis-rate-limiter.ts";
import { redisConnections } from "../helpers/redis.ts";

// The limits every instance shares, on the Redis of `CLUSTER=1 ./scripts/test` (one server, or
// a Redis Cluster, where each key may sit on another node): the same rules as the limits of one
// process (tests/unit/rate-limiter.test.ts).
const connections = redisConnections();
afterAll(() => connections.close());

const rule = { limit: 3, windowMs: 60_000 };
const slot = (key: string) => [{ key, rule }];

async function limiter() {
  const { redis } = await connections.open();
  let t = 1_000_000;
  const prefix = `limits-${randomBytes(4).toString("hex")}:`;
  return {
    limiter: new RedisRateLimiter(redis, prefix, () => t),
    /** The same limits from another instance's connection. */
    async other() {
      const separate = await connections.separate();
      return new RedisRateLimiter(separate.redis, prefix, () => t);
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

async function refusal(take: Promise<unknown>): Promise<RateLimitedError> {
  try {
    await take;
  } catch (error) {
    if (error instanceof RateLimitedError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe(`limits on ${connections.label}`, () => {
  test("allows up to the limit, then refuses with the wait in seconds", async () => {
    const { limiter: l } = await limiter();
    for (let i = 0; i < 3; i++) await l.take(slot("k"));
    expect((await refusal(l.take(slot("k")))).retryAfterSeconds).toBe(60);
  });

  test("the window slides: the oldest action frees a place when it leaves", async () => {
    const { limiter: l, advance } = await limiter();
    await l.take(slot("k"));
    advance(30_000);
    await l.take(slot("k"));
    await l.take(slot("k"));
    expect((await refusal(l.take(slot("k")))).retryAfterSeconds).toBe(30);
    advance(30_000);
    await l.take(slot("k"));
    await refusal(l.take(slot("k")));
  });

  test("all or nothing: a refusal takes no slot on any key (keys on different nodes too)", async () => {
    const { limiter: l } = await limiter();
    for (let i = 0; i < 3; i++) await l.take(slot("visitor"));
    await refusal(l.take([...slot("visitor"), ...slot("ip")]));
    for (let i = 0; i < 3; i++) await l.take(slot("ip"));
    await refusal(l.take(slot("ip")));
  });

  test("calls that run together, from two instances, cannot pass the limit: 60 parallel takes, 3 succeed", async () => {
    const { limiter: l, other } = await limiter();
    const second = await other();
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? l : second).take([...slot("k"), ...slot("j")])),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
  });

  test("a refund gives the slots back, once", async () => {
    const { limiter: l } = await limiter();
    const first = await l.take([...slot("a"), ...slot("b")]);
    await l.take(slot("a"));
    await l.take(slot("a"));
    await refusal(l.take(slot("a")));
    await first.refund();
    await first.refund();
    await l.take(slot("a"));
    await refusal(l.take(slot("a")));
    // b got its place back too.
    await l.take(slot("b"));
    await l.take(slot("b"));
    await l.take(slot("b"));
    await refusal(l.take(slot("b")));
  });

  test("different rules on different keys: each key keeps its own window", async () => {
    const { limiter: l, advance } = await limiter();
    const both = [
      { key: "minute", rule: { limit: 2, windowMs: 60_000 } },
      { key: "day", rule: { limit: 3, windowMs: 24 * 60 * 60_000 } },
    ];
    await l.take(both);
    await l.take(both);
    await refusal(l.take(both));
    advance(61_000);
    await l.take(both);
    advance(61_000);
    expect((await refusal(l.take(both))).retryAfterSeconds).toBeGreaterThan(3600);
  });
});
