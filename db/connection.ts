import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import postgres from "postgres";

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
