import { describe, expect, test } from "bun:test";
import { createBottleInput, normalizeExpiryDays } from "../../src/common/bottles.ts";
import { pickBottle, RecentlyShown } from "../../src/core/bottles/pick.ts";
import { availableAt, expiryAt } from "../../src/core/bottles/time.ts";

const iso = (ms: number) => new Date(ms).toISOString();

describe("expiry", () => {
  test("ends at 23:59:59.999 of the day, N days on, in the writer's time zone", () => {
    // 10:00 in Taipei (UTC+8) on 15 January.
    const now = Date.UTC(2026, 0, 15, 2, 0);
    expect(iso(expiryAt(now, 1, "Asia/Taipei"))).toBe("2026-01-16T15:59:59.999Z");
    expect(iso(expiryAt(now, 7, "Asia/Taipei"))).toBe("2026-01-22T15:59:59.999Z");
    expect(iso(expiryAt(now, 1, "UTC"))).toBe("2026-01-16T23:59:59.999Z");
  });

  test("the writer's today decides, not the server's", () => {
    // 23:30 on 15 January in New York is already 16 January in UTC and in Taipei.
    const now = Date.UTC(2026, 0, 16, 4, 30);
    expect(iso(expiryAt(now, 1, "America/New_York"))).toBe("2026-01-17T04:59:59.999Z");
    expect(iso(expiryAt(now, 1, "Asia/Taipei"))).toBe("2026-01-17T15:59:59.999Z");
  });

  test("a daylight-saving change in between moves the UTC instant, not the wall clock", () => {
    // New York springs forward on 8 March 2026: EST (UTC-5) before, EDT (UTC-4) after.
    const beforeChange = Date.UTC(2026, 2, 6, 17, 0);
    expect(iso(expiryAt(beforeChange, 3, "America/New_York"))).toBe("2026-03-10T03:59:59.999Z");
    // Europe/London falls back on 25 October 2026: BST (UTC+1) before, GMT after.
    const beforeFallBack = Date.UTC(2026, 9, 24, 9, 0);
    expect(iso(expiryAt(beforeFallBack, 1, "Europe/London"))).toBe("2026-10-25T23:59:59.999Z");
    expect(iso(expiryAt(beforeFallBack, 0, "Europe/London"))).toBe("2026-10-24T22:59:59.999Z");
  });

  test("half-hour zones and the date line", () => {
    const now = Date.UTC(2026, 5, 1, 12, 0);
    expect(iso(expiryAt(now, 1, "Asia/Kolkata"))).toBe("2026-06-02T18:29:59.999Z");
    // 12:00 UTC is already 02:00 on 2 June in Kiritimati (UTC+14), so one day on is 3 June.
    expect(iso(expiryAt(now, 1, "Pacific/Kiritimati"))).toBe("2026-06-03T09:59:59.999Z");
  });

  test("every time zone, all year: the same instant as asking Intl each time", () => {
    // A plain reference: the offset from Intl at each step, no offset kept.
    const formatters = new Map<string, Intl.DateTimeFormat>();
    const offset = (timeZone: string, instant: number) => {
      let format = formatters.get(timeZone);
      if (!format) {
        format = new Intl.DateTimeFormat("en-US", {
          timeZone,
          hourCycle: "h23",
          year: "numeric",
          month: "numeric",
          day: "numeric",
          hour: "numeric",
          minute: "numeric",
          second: "numeric",
        });
        formatters.set(timeZone, format);
      }
      const parts = format.formatToParts(new Date(instant));
      const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
      const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"));
      return asUtc + get("second") * 1000 - Math.floor(instant / 1000) * 1000;
    };
    const reference = (now: number, days: number, timeZone: string) => {
      const today = new Date(now + offset(timeZone, now));
      const wall = Date.UTC(
        today.getUTCFullYear(),
        today.getUTCMonth(),
        today.getUTCDate() + days,
        23,
        59,
        59,
        999,
      );
      return wall - offset(timeZone, wall - offset(timeZone, wall));
    };
    const zones = Intl.supportedValuesOf("timeZone");
    expect(zones.length).toBeGreaterThan(300);
    let compared = 0;
    // Steps of 11 days, 7 hours and 13 minutes fall at many hours of the day through the year.
    for (let now = Date.UTC(2026, 0, 1, 0, 7); now < Date.UTC(2027, 0, 1); now += 976_380_000) {
      for (const zone of zones) {
        for (const days of [1, 7]) {
          expect(expiryAt(now, days, zone)).toBe(reference(now, days, zone));
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(20_000);
    // Some 27,000 comparisons: a second alone, several on a busy machine.
  }, 30_000);

  test("expiry days: 1, 3, 5, 7 kept; 0 or less, or more than 7, become 7", () => {
    expect([1, 3, 5, 7].map(normalizeExpiryDays)).toEqual([1, 3, 5, 7]);
    expect([0, -3, 8, 30].map(normalizeExpiryDays)).toEqual([7, 7, 7, 7]);
  });

  test("drift moves availability by whole hours", () => {
    expect(availableAt(1000, 0)).toBe(1000);
    expect(availableAt(1000, 168)).toBe(1000 + 168 * 3_600_000);
  });
});

describe("bottle input", () => {
  const good = {
    message: "Hello",
    driftHours: 0,
    isPublic: false,
    expiryDays: 7,
    timeZone: "Asia/Taipei",
    locale: "en",
  };
  test("accepts good input and normalizes expiry", () => {
    expect(createBottleInput.parse({ ...good, message: "  hi  ", expiryDays: 0 })).toMatchObject({
      message: "hi",
      expiryDays: 7,
    });
  });
  test("refuses what the rules refuse", () => {
    for (const bad of [
      { message: "   " },
      { message: "x".repeat(1001) },
      { driftHours: -1 },
      { driftHours: 169 },
      { driftHours: 1.5 },
      { timeZone: "Mars/Olympus" },
      { locale: "fr" },
      { isPublic: "yes" },
    ]) {
      expect(createBottleInput.safeParse({ ...good, ...bad }).success).toBe(false);
    }
    expect(createBottleInput.safeParse({ ...good, message: "x".repeat(1000) }).success).toBe(true);
  });
});

describe("the pick", () => {
  const c = (id: number, locale = "en") => ({ id, locale });
  const first = () => 0;

  test("nothing to pick gives nothing", () => {
    expect(pickBottle([], "en", new Set())).toBeUndefined();
  });

  test("avoids recently shown bottles while others exist", () => {
    const candidates = [c(1), c(2), c(3)];
    const picks = new Set<number>();
    for (let i = 0; i < 30; i++) picks.add(pickBottle(candidates, "en", new Set([1, 2]))?.id ?? 0);
    expect([...picks]).toEqual([3]);
  });

  test("falls back to recently shown bottles when they are all there is", () => {
    expect(pickBottle([c(1), c(2)], "en", new Set([1, 2]), first)?.id).toBe(1);
  });

  test("prefers the reader's language, and takes any language when none match", () => {
    const candidates = [c(1, "en"), c(2, "zh-TW"), c(3, "en"), c(4, "zh-TW")];
    for (let i = 0; i < 20; i++) {
      expect(pickBottle(candidates, "zh-TW", new Set())?.locale).toBe("zh-TW");
    }
    expect(pickBottle([c(1, "en")], "zh-TW", new Set())?.id).toBe(1);
  });

  test("an unseen bottle in another language beats a seen one in the reader's", () => {
    expect(pickBottle([c(1, "zh-TW"), c(2, "en")], "zh-TW", new Set([1]))?.id).toBe(2);
  });

  test("is random among the eligible", () => {
    const candidates = [c(1), c(2), c(3), c(4)];
    expect(pickBottle(candidates, "en", new Set(), () => 0)?.id).toBe(1);
    expect(pickBottle(candidates, "en", new Set(), () => 0.99)?.id).toBe(4);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(pickBottle(candidates, "en", new Set())?.id ?? 0);
    expect(seen.size).toBe(4);
  });
});

describe("RecentlyShown", () => {
  test("keeps the last few per reader and forgets the least recent readers", () => {
    const shown = new RecentlyShown(2, 2);
    shown.add("a", 1);
    shown.add("a", 2);
    shown.add("a", 3);
    expect([...shown.of("a")]).toEqual([2, 3]);
    shown.add("b", 9);
    shown.add("c", 8);
    expect(shown.of("a").size).toBe(0);
    expect([...shown.of("c")]).toEqual([8]);
  });
});
