import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheckpointResult, checkpointAside } from "../../db/checkpoints.ts";
import { openSqlite } from "../../db/connection.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database() {
  const dir = mkdtempSync(join(tmpdir(), "tidings-checkpoints-"));
  dirs.push(dir);
  const file = join(dir, "site.db");
  const sqlite = openSqlite(file);
  sqlite.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
  return { sqlite, file, wal: `${file}-wal` };
}

/** About 2,000 pages of log: twice what SQLite would checkpoint at on its own. */
function write(sqlite: ReturnType<typeof openSqlite>) {
  const insert = sqlite.prepare("INSERT INTO notes (body) VALUES (?)");
  for (let i = 0; i < 8000; i++) insert.run("x".repeat(900));
}

describe("checkpoints on a worker thread", () => {
  test("the serving connection no longer checkpoints: past SQLite's own 1,000 pages the log grows", async () => {
    const { sqlite, file, wal } = database();
    // A worker that would checkpoint only in a minute: every checkpoint here would be the
    // serving connection's own.
    const aside = checkpointAside(sqlite, file, { everyMs: 60_000 });
    expect(sqlite.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 0 });
    write(sqlite);
    expect(statSync(wal).size).toBeGreaterThan(1500 * 4096);
    await aside.stop();
    // Stopped, the connection checkpoints itself again.
    expect(sqlite.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 1000 });
    sqlite.close();
  });

  test("the worker folds the whole log into the database file", async () => {
    const { sqlite, file } = database();
    let folded: (r: CheckpointResult) => void = () => {};
    const foldedAll = new Promise<CheckpointResult>((resolve) => {
      folded = resolve;
    });
    const aside = checkpointAside(sqlite, file, {
      everyMs: 50,
      onCheckpoint: (r) => {
        if (r.log > 0 && r.checkpointed === r.log && statSync(file).size > 1500 * 4096) folded(r);
      },
    });
    write(sqlite);
    const result = await foldedAll;
    expect(result.busy).toBe(0);
    await aside.stop();
    sqlite.close();
  });

  test("a worker that cannot open the database gives the checkpoints back to the connection", async () => {
    const { sqlite } = database();
    const failed = new Promise<string>((resolve) => {
      checkpointAside(sqlite, "/nonexistent-dir/site.db", { everyMs: 50, onError: resolve });
    });
    expect(await failed).toContain("unable to open database file");
    expect(sqlite.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 1000 });
    sqlite.close();
  });
});
