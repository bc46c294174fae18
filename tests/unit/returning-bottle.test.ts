import { afterEach, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import type { BottleCard } from "../../src/common/bottles.ts";
import {
  bottleOnReturn,
  forgetReturningBottle,
  keepBottleForReturn,
} from "../../src/web/lib/returning-bottle.ts";

/** A tab's sessionStorage, as much of it as the module uses. */
class TabStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const bottle: BottleCard = {
  id: 42,
  message: "Found on a quiet beach",
  country: { code: "TW", name: "Taiwan" },
  driftHours: 3,
  isPublic: false,
  createdAt: Date.UTC(2026, 10, 27, 12),
  likeCount: 2,
  isLiked: false,
};

describe("the bottle kept for a reader's return from signing in", () => {
  let storage: TabStorage;
  beforeEach(() => {
    storage = new TabStorage();
    Object.assign(globalThis, { sessionStorage: storage });
    setSystemTime(new Date(Date.UTC(2026, 10, 27, 12, 0)));
  });
  afterEach(() => {
    setSystemTime();
    Reflect.deleteProperty(globalThis, "sessionStorage");
  });

  test("comes back on the page it was kept for, and only there", () => {
    keepBottleForReturn("/zh/discover", bottle);
    expect(bottleOnReturn("/zh/discover")).toEqual(bottle);
    expect(bottleOnReturn("/en/discover")).toBeNull();
    expect(bottleOnReturn("/zh/public-bottles")).toBeNull();
  });

  test("is kept for half an hour, and reading it leaves it until it is forgotten", () => {
    keepBottleForReturn("/en", bottle);
    setSystemTime(new Date(Date.UTC(2026, 10, 27, 12, 29)));
    expect(bottleOnReturn("/en")).toEqual(bottle);
    expect(bottleOnReturn("/en")).toEqual(bottle);
    setSystemTime(new Date(Date.UTC(2026, 10, 27, 12, 31)));
    expect(bottleOnReturn("/en")).toBeNull();
    keepBottleForReturn("/en", bottle);
    forgetReturningBottle();
    expect(bottleOnReturn("/en")).toBeNull();
    expect(storage.items.size).toBe(0);
  });

  test("anything else in its place is no bottle", () => {
    for (const value of [
      "not json",
      "null",
      JSON.stringify({ path: "/en", at: Date.now() }),
      JSON.stringify({ path: "/en", at: Date.now(), bottle: { ...bottle, id: "42" } }),
      JSON.stringify({ path: "/en", at: Date.now(), bottle: { ...bottle, message: null } }),
      // Kept "in the future": a clock set back, or written by hand.
      JSON.stringify({ path: "/en", at: Date.now() + 60_000, bottle }),
    ]) {
      storage.setItem("bottle-before-sign-in", value);
      expect(bottleOnReturn("/en")).toBeNull();
    }
  });

  test("a tab whose storage refuses keeps nothing and throws nothing", () => {
    Object.assign(globalThis, {
      sessionStorage: {
        getItem: () => {
          throw new Error("SecurityError");
        },
        setItem: () => {
          throw new Error("QuotaExceededError");
        },
        removeItem: () => {
          throw new Error("SecurityError");
        },
      },
    });
    expect(() => keepBottleForReturn("/en", bottle)).not.toThrow();
    expect(bottleOnReturn("/en")).toBeNull();
    expect(() => forgetReturningBottle()).not.toThrow();
  });
});
