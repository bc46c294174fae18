import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import postgres from "postgres";

/**
 * The database holds password hashes, e-mail addresses, reported chat text and visitor ids: its
 * files are the owner's alone, and so are the folders made for them. SQLite gives the -wal and
 * -shm files the main file's mode, so the main file's is the one to get right.
 */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_FOLDER = 0o700;

/** Makes a folder (and its parents) only its owner may enter; one already there is left as is. */
export function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER });
}

/** Takes group and other rights away from a file made before files were private (if ours). */
export function keepPrivate(file: string): void {
  try {
    const { mode } = statSync(file);
    if ((mode & 0o077) !== 0) chmodSync(file, mode & 0o700);
  } catch {
    // Missing, or someone else's: nothing to tighten here.
  }
}

/** Creates an empty file only its owner may read, refusing one that exists. */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, "wx", PRIVATE_FILE));
}

/**
 * Opens (and creates) the SQLite file with the settings every connection needs: WAL, so
 * readers never wait for the writer; foreign keys; and a wait, not an error, when another
 * process (an operator command) holds the lock. The benchmarks' raw baselines open theirs here
 * too, so they run with the same settings.
 */
export function openSqlite(file: string): Database {
  if (file !== ":memory:") {
    privateFolder(dirname(file));
    // Made here, not by SQLite, whose new files are 0644 less the umask.
    if (!existsSync(file)) closeSync(openSync(file, "a", PRIVATE_FILE));
    for (const suffix of ["", "-wal", "-shm"]) keepPrivate(file + suffix);
  }
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA busy_timeout = 5000");
  return sqlite;
}

/** Connections per process: several instances share the server's connection limit. */
export const POSTGRES_POOL_SIZE = 10;

/**
 * A postgres.js pool with the settings every connection needs: int8 (bigint columns, count(*))
 * read as numbers, not strings (ids and millisecond times stay far below 2^53), and the server's
 * notices kept out of the log. The benchmarks' raw baseline opens its pool here too.
 */
export function openPostgres(url: string, max = POSTGRES_POOL_SIZE): postgres.Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    types: {
      int8: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  });
}
