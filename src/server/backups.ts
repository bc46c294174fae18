import { Database } from "bun:sqlite";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { join } from "node:path";
import type { DatabaseBackend } from "../../db/backend.ts";
import { PRIVATE_FILE, privateFolder } from "../../db/connection.ts";
import { knownMigrations, migrateTo, openDatabase } from "../../db/migrate.ts";

/**
 * Scheduled snapshots of the SQLite database, each checked before it counts, and the restore of
 * one. Snapshots are named by the time they were taken, so the folder sorts oldest first.
 */

const SNAPSHOT = /^tidings-(\d{8}T\d{6}(?:\d{3})?Z)\.db$/;

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, "").replace(".", "");
}

function timeOf(name: string): number | null {
  const match = SNAPSHOT.exec(name)?.[1];
  if (!match) return null;
  const iso = `${match.slice(0, 4)}-${match.slice(4, 6)}-${match.slice(6, 8)}T${match.slice(9, 11)}:${match.slice(11, 13)}:${match.slice(13, 15)}.${match.slice(15, 18) || "000"}Z`;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/** The snapshots in a folder, oldest first. */
export function listSnapshots(dir: string): Array<{ file: string; takenAt: number }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => {
      const takenAt = timeOf(name);
      return takenAt === null ? [] : [{ file: join(dir, name), takenAt }];
    })
    .sort((a, b) => a.takenAt - b.takenAt);
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** A clock a little off is not the future. */
const CLOCK_SKEW_MS = 60_000;

/** Every SQLite database file starts with these 16 bytes. */
const SQLITE_HEADER = "SQLite format 3\u0000";

function startsAsSqlite(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return false; // unreadable: not a snapshot this site can use
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    readSync(fd, head, 0, head.length, 0);
    return head.toString("latin1") === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}

export interface JudgedSnapshots {
  /** Those that look like snapshots, oldest first, by the time in their names. */
  sound: Array<{ file: string; takenAt: number }>;
  /**
   * Named or modified after now, or named after they were written: not counted, and worth an
   * alert (a clock set wrong, or a planted file).
   */
  future: string[];
  /** Empty, or no SQLite database at all: not counted. */
  unsound: string[];
}

/**
 * The snapshots in a folder, judged by more than their names: a file counts when it is a SQLite
 * database of some size, and neither its name nor its modification time is in the future. Any
 * file could be given a snapshot's name; one dated ahead would otherwise hold off every backup.
 */
export function judgeSnapshots(dir: string, now: number): JudgedSnapshots {
  const judged: JudgedSnapshots = { sound: [], future: [], unsound: [] };
  for (const { file, takenAt: named } of listSnapshots(dir)) {
    let size: number;
    let modified: number;
    try {
      ({ size, mtimeMs: modified } = statSync(file));
    } catch {
      continue; // gone since the folder was read
    }
    // A snapshot's file carries the time in its name (takeSnapshot sets it so); one named after
    // it was last written is not what its name says.
    const ahead =
      named > now + CLOCK_SKEW_MS ||
      modified > now + CLOCK_SKEW_MS ||
      named > modified + CLOCK_SKEW_MS;
    if (ahead) judged.future.push(file);
    else if (size < 512 || !startsAsSqlite(file)) judged.unsound.push(file);
    else judged.sound.push({ file, takenAt: named });
  }
  judged.sound.sort((a, b) => a.takenAt - b.takenAt);
  return judged;
}

/** What `PRAGMA integrity_check` says of a database file: "ok", or its first complaints. */
export function integrityOf(file: string): string {
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    const rows = db.query("PRAGMA integrity_check").all() as Array<{ integrity_check: string }>;
    const findings = rows.map((row) => row.integrity_check);
    if (findings.length === 1 && findings[0] === "ok") {
      // A Tidings database has run its migrations.
      const migrated = db
        .query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'kysely_migration'")
        .get() as { n: number };
      return migrated.n === 1 ? "ok" : "not a Tidings database (no migrations table)";
    }
    return findings.slice(0, 3).join("; ");
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    db?.close();
  }
}

/**
 * Takes one snapshot into `dir`: a consistent copy (VACUUM INTO, safe while serving) under a
 * temporary name, checked with `PRAGMA integrity_check`, and only then given its final name;
 * then the oldest beyond `keep` are deleted. Throws when any step fails, leaving no half file.
 */
export async function takeSnapshot(
  backend: Pick<DatabaseBackend, "backup">,
  dir: string,
  keep: number,
  now: number,
): Promise<{ file: string; takenAt: number }> {
  privateFolder(dir);
  const file = join(dir, `tidings-${stamp(now)}.db`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  try {
    await backend.backup(partial);
    const integrity = integrityOf(partial);
    if (integrity !== "ok")
      throw new Error(`the snapshot failed its integrity check: ${integrity}`);
    // Its modification time is the time in its name, on the site's own clock.
    utimesSync(partial, now / 1000, now / 1000);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  // Only snapshots count towards the number kept: files merely named like one never push a
  // good snapshot out, and are left for the operator to look at.
  const { sound } = judgeSnapshots(dir, now);
  for (const old of sound.slice(0, Math.max(0, sound.length - keep))) {
    if (old.file !== file) rmSync(old.file, { force: true });
  }
  return { file, takenAt: now };
}

export interface BackupScheduleOptions {
  backend: Pick<DatabaseBackend, "backup">;
  dir: string;
  everyMs: number;
  keep: number;
  now: () => number;
  /** The newest good snapshot when already looked for (newestSnapshot), so it is checked once. */
  newest?: { takenAt: number } | null;
  onSnapshot(snapshot: { file: string; takenAt: number }): void;
  onFailure(error: unknown): void;
}

/**
 * Snapshots every `everyMs`: the first as soon as the newest one in the folder is that old (at
 * once when there is none), so restarts neither skip nor crowd them.
 */
export function scheduleBackups(options: BackupScheduleOptions): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  const run = async () => {
    try {
      options.onSnapshot(
        await takeSnapshot(options.backend, options.dir, options.keep, options.now()),
      );
    } catch (error) {
      options.onFailure(error);
    }
  };
  const next = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        // A timer longer than a signed 32-bit count of milliseconds fires at once: waited in turns.
        if (delay > MAX_TIMER_MS) return next(delay - MAX_TIMER_MS);
        running = run().finally(() => {
          running = undefined;
          next(options.everyMs);
        });
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    timer.unref?.();
  };
  const newest =
    options.newest === undefined ? newestSnapshot(options.dir, options.now()) : options.newest;
  next(newest ? Math.max(0, newest.takenAt + options.everyMs - options.now()) : 0);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      void running;
    },
  };
}

/**
 * The newest snapshot that would restore: sound (see judgeSnapshots) and passing its integrity
 * check, for the schedule, `tidings stats` and the metrics.
 */
export function newestSnapshot(
  dir: string,
  now: number,
): { file: string; takenAt: number } | undefined {
  const { sound } = judgeSnapshots(dir, now);
  for (let i = sound.length - 1; i >= 0; i--) {
    const candidate = sound[i];
    if (candidate && integrityOf(candidate.file) === "ok") return candidate;
  }
  return undefined;
}

/**
 * A lock the serving site holds in its data folder for as long as it runs: a shared lock on a
 * small SQLite file, which the operating system lets go of when the process ends however it
 * ends. Several instances may hold it at once; `tidings restore` needs it alone.
 */
export const LOCK_FILE = "serving.lock";

export function holdServingLock(dataDir: string): { release(): void } {
  privateFolder(dataDir);
  const lock = new Database(join(dataDir, LOCK_FILE), { create: true });
  lock.run("PRAGMA busy_timeout = 5000");
  lock.run("CREATE TABLE IF NOT EXISTS serving (note TEXT)");
  // A read inside an open transaction keeps SQLite's shared lock on the file until it ends.
  lock.run("BEGIN");
  lock.query("SELECT count(*) FROM serving").get();
  return {
    release() {
      lock.run("COMMIT");
      lock.close();
    },
  };
}

/**
 * Takes the serving lock alone (no running site holds it), or answers null at once when a site
 * does. While it is held, no site starts on this folder.
 */
export function takeLockAlone(dataDir: string): { release(): void } | null {
  privateFolder(dataDir);
  const lock = new Database(join(dataDir, LOCK_FILE), { create: true });
  lock.run("PRAGMA busy_timeout = 0");
  try {
    lock.run("BEGIN EXCLUSIVE");
  } catch {
    lock.close();
    return null;
  }
  return {
    release() {
      lock.run("ROLLBACK");
      lock.close();
    },
  };
}

/** One object of a schema as sqlite_master tells it, its SQL with the spacing evened out. */
function schemaOf(db: Database): Set<string> {
  const rows = db
    .query(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>;
  return new Set(
    rows.map(
      (r) => `${r.type} ${r.name} on ${r.tbl_name}: ${(r.sql ?? "").replace(/\s+/g, " ").trim()}`,
    ),
  );
}

/**
 * How a snapshot's schema differs from what this version's migrations make, run as far as the
 * snapshot's own were: each table, index, trigger and view too many or missing (none: the same).
 * A copy with one more trigger or view would carry it into the site for good.
 */
export async function schemaDifferences(snapshot: string): Promise<string[]> {
  const copy = new Database(snapshot, { readonly: true });
  let applied: string[];
  let found: Set<string>;
  try {
    applied = (
      copy.query("SELECT name FROM kysely_migration ORDER BY name").all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    found = schemaOf(copy);
  } finally {
    copy.close();
  }
  const known = knownMigrations("sqlite");
  const unknown = applied.filter((name, i) => known[i] !== name);
  if (unknown.length > 0) {
    return [`migrations this version does not know: ${unknown.slice(0, 5).join(", ")}`];
  }
  const fresh = openDatabase(":memory:");
  let expected: Set<string>;
  try {
    await migrateTo(fresh, applied.at(-1) ?? null);
    expected = schemaOf(fresh.sqlite);
  } finally {
    await fresh.close();
  }
  return [
    ...[...found].filter((o) => !expected.has(o)).map((o) => `not made by the migrations: ${o}`),
    ...[...expected].filter((o) => !found.has(o)).map((o) => `missing: ${o}`),
  ];
}

/**
 * Puts a snapshot in the database's place: the snapshot is checked first (its integrity, then
 * its schema against what the migrations make), the database it replaces is kept beside it (with
 * its -wal and -shm files) under `.replaced-<time>`, and the snapshot itself stays where it was.
 * Answers the name the replaced database was kept under.
 */
export async function restoreSnapshot(
  snapshot: string,
  databaseFile: string,
  now: number,
): Promise<string | null> {
  const integrity = integrityOf(snapshot);
  if (integrity !== "ok")
    throw new Error(`${snapshot} is not a sound Tidings database: ${integrity}`);
  const differences = await schemaDifferences(snapshot);
  if (differences.length > 0) {
    throw new Error(
      `${snapshot} was refused: its schema is not the one Tidings makes (a trigger, view or ` +
        `index added to a copy would live on in the site):\n  ${differences.slice(0, 10).join("\n  ")}`,
    );
  }
  let kept: string | null = null;
  if (existsSync(databaseFile)) {
    kept = `${databaseFile}.replaced-${stamp(now)}`;
    renameSync(databaseFile, kept);
  }
  for (const suffix of ["-wal", "-shm"]) {
    if (!existsSync(databaseFile + suffix)) continue;
    if (kept) renameSync(databaseFile + suffix, kept + suffix);
    else rmSync(databaseFile + suffix);
  }
  privateFolder(join(databaseFile, ".."));
  // A copy takes the snapshot's mode, which may be anyone's to read.
  copyFileSync(snapshot, databaseFile);
  chmodSync(databaseFile, PRIVATE_FILE);
  return kept;
}
