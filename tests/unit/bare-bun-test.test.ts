import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A bare `bun test` passes on SQLite alone: the suites that need PostgreSQL and Redis skip their
 * tests when the URLs are not set (tests/helpers/cluster-servers.ts prints how to run them),
 * and none of them fails while loading. A file that throws at load for want of the URLs made a
 * bare run end in a failure and an error once.
 */
const ROOT = join(import.meta.dir, "..", "..");

test("every suite that needs PostgreSQL and Redis skips without them", () => {
  const files = ["tests/cluster", "tests/postgres"].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => join(dir, name)),
  );
  expect(files.length).toBeGreaterThan(5);
  // A top-level guard that throws for want of the URLs, as the one that broke a bare run did.
  const throwsAtLoad = /^if \([^\n]*TEST_(DB|REDIS)_URL[^\n]*\{\s*\n?\s*throw\b/m;
  const unguarded = files.filter((file) => {
    const source = readFileSync(join(ROOT, file), "utf8");
    const describes = source.match(/^describe\b[^(]*\(/gm) ?? [];
    const skipping = source.match(/^describe\.skipIf\(withoutClusterServers\)/gm) ?? [];
    return (
      describes.length === 0 || describes.length !== skipping.length || throwsAtLoad.test(source)
    );
  });
  expect(unguarded).toEqual([]);
});
