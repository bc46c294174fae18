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

/** The first checkpoint the worker reports that `holds`, and the callback that hears them. */
function firstCheckpoint(holds: (r: CheckpointResult) => boolean) {
  let found: (r: CheckpointResult) => void = () => {};
  const promise = new Promise<CheckpointResult>((resolve) => {
    found = resolve;
  });
  return {
    promise,
    onCheckpoint: (r: CheckpointResult) => {
      if (holds(r)) found(r);
    },
  };
}

/** Rows of about a quarter of a page, each its own commit: 8,000 make ~20,000 frames of log. */
function write(sqlite: ReturnType<typeof openSqlite>, rows = 8000) {
  const insert = sqlite.prepare("INSERT INTO notes (body) VALUES (?)");
  for (let i = 0; i < rows; i++) insert.run("x".repeat(900));
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
    const folded = firstCheckpoint((r) => r.log >= 1000 && r.checkpointed === r.log);
    const aside = checkpointAside(sqlite, file, { everyMs: 20, onCheckpoint: folded.onCheckpoint });
    write(sqlite);
    expect((await folded.promise).busy).toBe(0);
    // Written into the database file, as a checkpoint does.
    expect(statSync(file).size).toBeGreaterThan(500 * 4096);
    await aside.stop();
    sqlite.close();
  });

  test("the worker checkpoints only once as many frames wait as SQLite itself would wait for", async () => {
    const { sqlite, file } = database();
    const looks: Array<(waiting: number) => void> = [];
    const checkpoints: CheckpointResult[] = [];
    // The first that ran: a PASSIVE checkpoint that meets a commit in the middle of updating the
    // log's index does nothing and says so (-1 for the log), and the worker tries again.
    const first = firstCheckpoint((r) => r.log >= 0);
    const aside = checkpointAside(sqlite, file, {
      everyMs: 20,
      frames: 1500,
      onLook: (waiting) => {
        for (const look of looks.splice(0)) look(waiting);
      },
      onCheckpoint: (r) => {
        checkpoints.push(r);
        first.onCheckpoint(r);
      },
    });
    const nextLook = () => new Promise<number>((resolve) => looks.push(resolve));
    // About 700 frames (each insert commits on its own: a page or two each).
    write(sqlite, 400);
    // The worker has looked with them all waiting (a look taken while they were being written
    // can arrive first, with fewer), and let them wait.
    let waited = await nextLook();
    while (waited < 500) waited = await nextLook();
    expect(waited).toBeLessThan(1500);
    expect(checkpoints).toEqual([]);
    write(sqlite, 2000);
    const { log, checkpointed } = await first.promise;
    expect(log).toBeGreaterThanOrEqual(1500);
    // While the writes go on, a PASSIVE checkpoint copies what it can.
    expect(checkpointed).toBeGreaterThan(0);
    await aside.stop();
    sqlite.close();
  });

  test("however few frames wait, a checkpoint still comes now and then", async () => {
    const { sqlite, file } = database();
    const folded = firstCheckpoint((r) => r.log > 0 && r.checkpointed === r.log);
    // A threshold never reached: only the checkpoint that comes regardless can fold them in.
    const aside = checkpointAside(sqlite, file, {
      everyMs: 20,
      frames: 1_000_000,
      atLeastEveryMs: 100,
      onCheckpoint: folded.onCheckpoint,
    });
    write(sqlite, 100);
    expect((await folded.promise).log).toBeLessThan(1000);
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
