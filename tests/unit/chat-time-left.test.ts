import { describe, expect, test } from "bun:test";
import { timeLeft } from "../../src/web/components/chat/time-left.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const now = 1_000_000_000;
const left = (ms: number) => timeLeft(now + ms, now);

describe('"Chat restricted": how long is left, for every step of the escalation', () => {
  test("a first ban (1 h) reads about 1 hour, and minutes once under 55", () => {
    expect(left(HOUR)).toEqual({ unit: "hours", count: 1 });
    expect(left(HOUR - 2000)).toEqual({ unit: "hours", count: 1 });
    expect(left(55 * MINUTE)).toEqual({ unit: "hours", count: 1 });
    expect(left(54 * MINUTE)).toEqual({ unit: "minutes", count: 54 });
    expect(left(20 * MINUTE + 1)).toEqual({ unit: "minutes", count: 21 });
    expect(left(5000)).toEqual({ unit: "minutes", count: 1 });
    expect(left(-5000)).toEqual({ unit: "minutes", count: 1 });
  });

  test("6 h and 24 h read in hours; 3 days and 7 days in days", () => {
    expect(left(6 * HOUR - 1000)).toEqual({ unit: "hours", count: 6 });
    expect(left(24 * HOUR)).toEqual({ unit: "hours", count: 24 });
    expect(left(47 * HOUR)).toEqual({ unit: "hours", count: 47 });
    expect(left(48 * HOUR)).toEqual({ unit: "days", count: 2 });
    expect(left(3 * DAY - 1000)).toEqual({ unit: "days", count: 3 });
    expect(left(7 * DAY)).toEqual({ unit: "days", count: 7 });
  });
});
