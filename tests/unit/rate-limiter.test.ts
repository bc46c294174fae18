import { describe, expect, test } from "bun:test";
import { RateLimitedError } from "../../src/core/errors.ts";
import { MemoryRateLimiter, visitorSlots } from "../../src/core/limits/rate-limiter.ts";
import { VirtualClock } from "../helpers/clock.ts";

const clock = () => new VirtualClock(1_000_000);

const rule = { limit: 3, windowMs: 60_000 };
const slot = (key: string) => [{ key, rule }];

function refusal(fn: () => unknown): RateLimitedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RateLimitedError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("MemoryRateLimiter", () => {
  test("allows up to the limit, then refuses with the wait in seconds", () => {
    const limiter = new MemoryRateLimiter(clock());
    for (let i = 0; i < 3; i++) limiter.takeNow(slot("k"));
    expect(refusal(() => limiter.takeNow(slot("k"))).retryAfterSeconds).toBe(60);
  });

  test("the window slides: the oldest action frees a place when it leaves", () => {
    const c = clock();
    const limiter = new MemoryRateLimiter(c);
    limiter.takeNow(slot("k"));
    c.advance(30_000);
    limiter.takeNow(slot("k"));
    limiter.takeNow(slot("k"));
    expect(refusal(() => limiter.takeNow(slot("k"))).retryAfterSeconds).toBe(30);
    c.advance(30_000);
    limiter.takeNow(slot("k"));
    expect(() => limiter.takeNow(slot("k"))).toThrow(RateLimitedError);
  });

  test("all or nothing: a refusal takes no slot on any key", () => {
    const limiter = new MemoryRateLimiter(clock());
    for (let i = 0; i < 3; i++) limiter.takeNow(slot("visitor"));
    expect(() => limiter.takeNow([...slot("visitor"), ...slot("ip")])).toThrow(RateLimitedError);
    for (let i = 0; i < 3; i++) limiter.takeNow(slot("ip"));
  });

  test("calls that run together cannot pass the limit: 60 parallel takes, 3 succeed", async () => {
    const limiter = new MemoryRateLimiter(clock());
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, () => limiter.take(slot("k"))),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
  });

  test("a refund gives the slots back, once", async () => {
    const limiter = new MemoryRateLimiter(clock());
    const first = await limiter.take([...slot("a"), ...slot("b")]);
    await limiter.take(slot("a"));
    await limiter.take(slot("a"));
    expect(() => limiter.takeNow(slot("a"))).toThrow(RateLimitedError);
    await first.refund();
    await first.refund();
    limiter.takeNow(slot("a"));
    expect(() => limiter.takeNow(slot("a"))).toThrow(RateLimitedError);
  });

  test("a refund after its key was forgotten gives back nothing and does not fail", async () => {
    const c = clock();
    const limiter = new MemoryRateLimiter(c);
    const taken = limiter.takeNow(slot("k"));
    c.advance(61_000);
    limiter.prune();
    expect(limiter.size).toBe(0);
    await taken.refund();
    expect(limiter.size).toBe(0);
  });

  test("a late refund of an action the window no longer counts frees no place", async () => {
    const c = clock();
    const limiter = new MemoryRateLimiter(c);
    const old = limiter.takeNow(slot("k"));
    c.advance(61_000);
    for (let i = 0; i < 3; i++) {
      limiter.takeNow(slot("k"));
      c.advance(1000);
    }
    await old.refund();
    // The three recent actions still fill the window.
    expect(refusal(() => limiter.takeNow(slot("k"))).retryAfterSeconds).toBe(57);
  });

  test("different rules on different keys: each key keeps its own window", () => {
    const c = clock();
    const limiter = new MemoryRateLimiter(c);
    const perMinute = { limit: 2, windowMs: 60_000 };
    const perDay = { limit: 3, windowMs: 24 * 60 * 60_000 };
    const both = [
      { key: "minute", rule: perMinute },
      { key: "day", rule: perDay },
    ];
    limiter.takeNow(both);
    limiter.takeNow(both);
    expect(() => limiter.takeNow(both)).toThrow(RateLimitedError);
    c.advance(61_000);
    limiter.takeNow(both);
    c.advance(61_000);
    // The minute allows it; the day does not.
    expect(refusal(() => limiter.takeNow(both)).retryAfterSeconds).toBeGreaterThan(3600);
  });

  test("visitor and address slots", () => {
    expect(visitorSlots("throw", { visitorId: "v1", ipKey: "i1" }, rule)).toEqual([
      { key: "throw:v:v1", rule },
      { key: "throw:ip:i1", rule },
    ]);
  });

  test("prune forgets keys whose windows have passed", () => {
    const c = clock();
    const limiter = new MemoryRateLimiter(c);
    for (let i = 0; i < 3; i++) limiter.takeNow(slot("old"));
    c.advance(30_000);
    limiter.takeNow(slot("recent"));
    limiter.prune();
    // Both windows still run: nothing is forgotten yet.
    expect(limiter.size).toBe(2);
    c.advance(30_000);
    limiter.prune();
    // "old" acted last 60 s ago (its window has passed); "recent" 30 s ago.
    expect(limiter.size).toBe(1);
    c.advance(30_000);
    limiter.prune();
    expect(limiter.size).toBe(0);
    // A forgotten key starts afresh under the same limit.
    for (let i = 0; i < 3; i++) limiter.takeNow(slot("old"));
    expect(() => limiter.takeNow(slot("old"))).toThrow(RateLimitedError);
  });
});
