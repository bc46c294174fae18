import { describe, expect, test } from "bun:test";
import { HoldCopy } from "../../src/core/holds/copy.ts";

async function* mutes(entries: Array<[string, number]>): AsyncIterable<[string, number]> {
  for (const entry of entries) yield entry;
}

/** Reloads the copy from these mutes, as Redis would hold them, at `now`. */
function reload(copy: HoldCopy, entries: Array<[string, number]>, now = 0): Promise<void> {
  return copy.reload(
    () => mutes(entries),
    () => now,
  );
}

describe("an instance's copy of the mutes", () => {
  test("cannot tell before its first reload; afterwards answers the latest mute in force", async () => {
    const copy = new HoldCopy(10);
    expect(copy.until(["visitor:v"], 0)).toBeUndefined();
    await reload(copy, [["ip:x", 500]]);
    expect(copy.until(["visitor:v", "ip:x"], 0)).toBe(500);
    copy.note("visitor:v", 900, 0);
    copy.note("visitor:v", 700, 0);
    expect(copy.until(["visitor:v", "ip:x"], 0)).toBe(900);
    expect(copy.until(["visitor:w", "ip:y"], 0)).toBeNull();
  });

  test("a mute that has ended is gone", async () => {
    const copy = new HoldCopy(10);
    await reload(copy, [
      ["visitor:v", 100],
      ["visitor:w", 300],
    ]);
    expect(copy.until(["visitor:v"], 100)).toBeNull();
    // Ended ones are not taken in at all.
    copy.note("visitor:x", 50, 100);
    expect(copy.size).toBe(1);
    copy.prune(300);
    expect(copy.size).toBe(0);
  });

  test("bounded: one it has no room for makes it say it cannot tell, until a reload has room", async () => {
    const copy = new HoldCopy(4);
    await reload(copy, []);
    for (const key of ["a", "b", "c", "d"]) copy.note(key, 100, 0);
    expect(copy.until(["a"], 0)).toBe(100);
    // A fifth: not kept, and the copy no longer answers for anyone.
    copy.note("e", 200, 0);
    expect(copy.size).toBe(4);
    expect(copy.until(["a"], 0)).toBeUndefined();
    expect(copy.until(["e"], 0)).toBeUndefined();
    // No room to reload into yet.
    expect(copy.wantsReload).toBe(false);
    copy.prune(100);
    expect(copy.wantsReload).toBe(true);
    await reload(copy, [["e", 200]], 100);
    expect(copy.until(["e"], 100)).toBe(200);
    expect(copy.wantsReload).toBe(false);
  });

  test("a reload that runs out of room leaves it unable to tell", async () => {
    const copy = new HoldCopy(2);
    await reload(copy, [
      ["a", 100],
      ["b", 100],
      ["c", 100],
    ]);
    expect(copy.until(["a"], 0)).toBeUndefined();
  });
});
