import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Opens (and creates) the SQLite file with the settings every connection needs: WAL, so
 * readers never wait for the writer; foreign keys; and a wait, not an error, when another
 * process (an operator command) holds the lock. The benchmarks' raw baselines open theirs here
 * too, so they run with the same settings.
 */
export function openSqlite(file: string): Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA busy_timeout = 5000");
  return sqlite;
}
