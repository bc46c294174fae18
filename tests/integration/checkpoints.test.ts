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
    let folded: (r: CheckpointResult) => void = () => {};
    const foldedAll = new Promise<CheckpointResult>((resolve) => {
      folded = resolve;
    });
    const aside = checkpointAside(sqlite, file, {
      everyMs: 20,
      onCheckpoint: (r) => {
        if (r.log >= 1000 && r.checkpointed === r.log) folded(r);
      },
    });
    write(sqlite);
    expect((await foldedAll).busy).toBe(0);
    // Written into the database file, as a checkpoint does.
    expect(statSync(file).size).toBeGreaterThan(500 * 4096);
    await aside.stop();
    sqlite.close();
  });

  test("the worker checkpoints only once as many frames wait as SQLite itself would wait for", async () => {
    const { sqlite, file } = database();
    const looks: Array<(waiting: number) => void> = [];
    const checkpoints: CheckpointResult[] = [];
    let firstCheckpoint: (r: CheckpointResult) => void = () => {};
    const checkpointed = new Promise<CheckpointResult>((resolve) => {
      firstCheckpoint = resolve;
    });
    const aside = checkpointAside(sqlite, file, {
      everyMs: 20,
      frames: 1500,
      onLook: (waiting) => {
        for (const look of looks.splice(0)) look(waiting);
      },
      onCheckpoint: (r) => {
        checkpoints.push(r);
        firstCheckpoint(r);
      },
    });
    const nextLook = () => new Promise<number>((resolve) => looks.push(resolve));
    // About 700 frames (each insert commits on its own: a page or two each).
    write(sqlite, 400);
    // The worker has looked with them waiting, and let them wait.
    let waited = await nextLook();
    while (waited === 0) waited = await nextLook();
    expect(waited).toBeGreaterThan(500);
    expect(waited).toBeLessThan(1500);
    expect(checkpoints).toEqual([]);
    write(sqlite, 2000);
    const first = await checkpointed;
    expect(first.log).toBeGreaterThanOrEqual(1500);
    // While the writes go on, a PASSIVE checkpoint copies what it can.
    expect(first.checkpointed).toBeGreaterThan(0);
    await aside.stop();
    sqlite.close();
  });

  test("however few frames wait, a checkpoint still comes now and then", async () => {
    const { sqlite, file } = database();
    let checkpointed: (r: CheckpointResult) => void = () => {};
    const first = new Promise<CheckpointResult>((resolve) => {
      checkpointed = resolve;
    });
    // A threshold never reached: only the checkpoint that comes regardless can fold them in.
    const aside = checkpointAside(sqlite, file, {
      everyMs: 20,
      frames: 1_000_000,
      atLeastEveryMs: 100,
      onCheckpoint: (r) => {
        if (r.log > 0 && r.checkpointed === r.log) checkpointed(r);
      },
    });
    write(sqlite, 100);
    expect((await first).log).toBeLessThan(1000);
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
