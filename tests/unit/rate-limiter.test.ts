import { describe, expect, test } from "bun:test";
import { RateLimitedError } from "../../src/core/errors.ts";
import { RateLimiter } from "../../src/core/limits/rate-limiter.ts";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("RateLimiter", () => {
  const rule = { limit: 3, windowMs: 60_000 };

  test("allows up to the limit, then refuses with the wait in seconds", () => {
    const c = clock();
    const limiter = new RateLimiter(c.now);
    for (let i = 0; i < 3; i++) limiter.consume(["k"], rule);
    try {
      limiter.consume(["k"], rule);
      throw new Error("expected a refusal");
    } catch (error) {
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterSeconds).toBe(60);
    }
  });

  test("the window slides: the oldest action frees a place when it leaves", () => {
    const c = clock();
    const limiter = new RateLimiter(c.now);
    limiter.consume(["k"], rule);
    c.advance(30_000);
    limiter.consume(["k"], rule);
    limiter.consume(["k"], rule);
    expect(limiter.waitFor("k", rule)).toBe(30_000);
    c.advance(30_000);
    expect(limiter.waitFor("k", rule)).toBe(0);
    limiter.consume(["k"], rule);
    expect(() => limiter.consume(["k"], rule)).toThrow(RateLimitedError);
  });

  test("a refusal records nothing on any key", () => {
    const c = clock();
    const limiter = new RateLimiter(c.now);
    for (let i = 0; i < 3; i++) limiter.consume(["visitor"], rule);
    expect(() => limiter.consume(["visitor", "ip"], rule)).toThrow(RateLimitedError);
    expect(limiter.waitFor("ip", rule)).toBe(0);
    limiter.consume(["ip"], rule);
  });

  test("keys are independent", () => {
    const limiter = new RateLimiter(clock().now);
    for (let i = 0; i < 3; i++) limiter.consume(["a"], rule);
    expect(() => limiter.consume(["b"], rule)).not.toThrow();
  });

  test("prune forgets keys whose windows have passed", () => {
    const c = clock();
    const limiter = new RateLimiter(c.now);
    for (let i = 0; i < 3; i++) limiter.consume(["k"], rule);
    c.advance(61_000);
    limiter.prune(60_000);
    expect(limiter.waitFor("k", rule)).toBe(0);
  });
});
