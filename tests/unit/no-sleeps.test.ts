import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Unit, integration and abuse tests never pause for a fixed time: they advance a virtual clock
 * (tests/helpers/clock.ts) or wait for the event they need (a message, an answer, a row;
 * tests/helpers/eventually.ts for what only a question can tell). A fixed pause makes a suite
 * slow on a quiet machine and wrong on a busy one.
 */
const ROOT = join(import.meta.dir, "..", "..");
const SCANNED = ["tests/unit", "tests/integration", "tests/abuse", "tests/helpers"];

/**
 * Files that still sleep, each to be converted and then taken off this list (none left). Every
 * other file must have none, and a file listed here that no longer sleeps fails below, so the
 * list only shrinks.
 */
const STILL_SLEEPING: string[] = [];

const PAUSES: Array<[string, RegExp]> = [
  ["Bun.sleep", /\bBun\s*\.\s*sleep(Sync)?\s*\(/],
  ["a sleep helper", /(?<![.\w])sleep\s*\(/],
  ["promised timers", /["'](node:)?timers\/promises["']/],
  ["a promise settled by a timer", /setTimeout\(\s*(resolve|res|r|done|next|wake)\s*[,)]/],
  [
    "a promise settled by a timer",
    /setTimeout\(\s*\(\)\s*=>\s*(resolve|res|r|done|next|wake)\(\s*\)\s*,/,
  ],
];

/** Each fixed pause in a source text, by line; comments do not count. */
export function pausesIn(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
  const found: string[] = [];
  code.split("\n").forEach((line, index) => {
    for (const [what, pattern] of PAUSES) {
      if (pattern.test(line)) found.push(`${index + 1}: ${what}: ${line.trim()}`);
    }
  });
  return found;
}

function sourcesOf(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => `${folder}/${name}`)
    .sort();
}

describe("no fixed sleeps in unit, integration and abuse tests", () => {
  // This file names the pauses it looks for; it is checked by the last test instead.
  const files = SCANNED.flatMap(sourcesOf).filter(
    (file) => file !== "tests/unit/no-sleeps.test.ts",
  );

  test("the scan sees the suites", () => {
    expect(files.length).toBeGreaterThan(40);
    for (const listed of STILL_SLEEPING) expect(files).toContain(listed);
  });

  test("no file but those listed pauses for a fixed time", () => {
    const sleeping = files
      .filter((file) => !STILL_SLEEPING.includes(file))
      .flatMap((file) =>
        pausesIn(readFileSync(join(ROOT, file), "utf8")).map((pause) => `${file}:${pause}`),
      );
    expect(sleeping).toEqual([]);
  });

  test("each file listed still sleeps (once converted, it leaves the list)", () => {
    for (const file of STILL_SLEEPING) {
      expect({ file, sleeps: pausesIn(readFileSync(join(ROOT, file), "utf8")).length > 0 }).toEqual(
        { file, sleeps: true },
      );
    }
  });

  test("the check knows a pause when it sees one", () => {
    for (const pause of [
      "await Bun.sleep(50);",
      "Bun.sleepSync(5)",
      "await sleep(GRACE_MS);",
      "export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));",
      'import { setTimeout as wait } from "node:timers/promises";',
      "await new Promise((resolve) => setTimeout(resolve, 100));",
      "await new Promise<void>((done) => setTimeout(() => done(), 100));",
    ]) {
      expect({ pause, found: pausesIn(pause).length }).toEqual({ pause, found: 1 });
    }
    for (const fine of [
      "// await Bun.sleep(50) was here",
      "/* sleep(10) */ clock.advance(10);",
      "const url = 'http://example.org'; // sleep(5)",
      "clock.setTimeout(() => ran.push(1), 10);",
      "await b.waitFor(isType('partner-left'));",
      "const asleep = true; sleeper.wake();",
      "expect(x).toBe(1); // not sleep( at all",
    ]) {
      expect({ fine, found: pausesIn(fine) }).toEqual({ fine, found: [] });
    }
  });
});
