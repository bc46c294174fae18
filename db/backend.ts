import type { Database as BunDatabase } from "bun:sqlite";
import { rmSync } from "node:fs";
import { Kysely, type LogConfig, sql } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import { checkpointAside } from "./checkpoints.ts";
import { createPrivateFile, openPostgres, openSqlite } from "./connection.ts";
import { BunSqliteDialect, registerSqlite } from "./dialect.ts";
import type { Database, DB } from "./schema.ts";
import { type DatabaseTarget, describeTarget } from "./url.ts";

/** An operator command this engine does not do, with what to do instead. */
export class UnsupportedOnEngineError extends Error {}

/**
 * The site's database: the Kysely handle every query takes, and the few things that differ by
 * engine. SQLite's own parts (its PRAGMAs, VACUUM INTO, the WAL checkpoint at stop, the
 * prepared statements' direct path) stay behind the SQLite backend.
 */
export interface DatabaseBackend {
  readonly engine: DatabaseTarget["engine"];
  readonly db: DB;
  /** Where the data is, for messages (never a password). */
  readonly where: string;
  /** A consistent copy in a new file, taken while the site serves. */
  backup(file: string): Promise<void>;
  /** Closes the database: on SQLite after folding the WAL into the file. */
  close(): Promise<void>;
}

export interface SqliteBackend extends DatabaseBackend {
  readonly engine: "sqlite";
  readonly sqlite: BunDatabase;
}

export interface OpenOptions {
  /** Kysely's query log (the benchmarks capture the SQL the real code runs with it). */
  log?: LogConfig;
  /**
   * SQLite: checkpoint the log on a worker thread, off the thread that serves (the server's
   * own database; see checkpoints.ts). `onError` hears of a worker that failed.
   */
  checkpointsAside?: { everyMs?: number; onError?: (message: string) => void };
}

/** Opens (and, for SQLite, creates) the database a target names. A string is a SQLite file. */
export function openDatabase(file: string, options?: OpenOptions): SqliteBackend;
export function openDatabase(target: DatabaseTarget, options?: OpenOptions): DatabaseBackend;
export function openDatabase(
  target: DatabaseTarget | string,
  options: OpenOptions = {},
): DatabaseBackend {
  const t: DatabaseTarget =
    typeof target === "string" ? { engine: "sqlite", file: target } : target;
  return t.engine === "sqlite"
    ? openSqliteBackend(t.file, options)
    : openPostgresBackend(t.url, options);
}

function openSqliteBackend(file: string, options: OpenOptions): SqliteBackend {
  const sqlite = openSqlite(file);
  const db = new Kysely<Database>({ dialect: new BunSqliteDialect(sqlite), log: options.log });
  registerSqlite(db, sqlite);
  const aside =
    options.checkpointsAside && file !== ":memory:"
      ? checkpointAside(sqlite, file, options.checkpointsAside)
      : undefined;
  return {
    engine: "sqlite",
    db,
    sqlite,
    where: describeTarget({ engine: "sqlite", file }),
    async backup(target) {
      // The copy holds what the database holds: made private, and empty, which VACUUM INTO
      // accepts; an existing file is refused rather than written over.
      createPrivateFile(target);
      try {
        // VACUUM INTO reads one snapshot, so the copy is whole while writes go on.
        await sql`VACUUM INTO ${target}`.execute(db);
      } catch (error) {
        rmSync(target, { force: true });
        throw error;
      }
    },
    async close() {
      await aside?.stop();
      sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
      await db.destroy();
    },
  };
}

/** At stop, queries still running get this long; then the connections are closed anyway. */
const POSTGRES_END_SECONDS = 1;

function openPostgresBackend(url: string, options: OpenOptions): DatabaseBackend {
  const postgres = openPostgres(url);
  const db = new Kysely<Database>({
    dialect: new PostgresJSDialect({ postgres }),
    log: options.log,
  });
  return {
    engine: "postgres",
    db,
    where: describeTarget({ engine: "postgres", url }),
    async backup() {
      throw new UnsupportedOnEngineError(
        "this site's database is PostgreSQL: back it up with pg_dump, e.g.\n" +
          '  pg_dump --format=custom --file=tidings-$(date +%F).dump "$DB_URL"\n' +
          "and restore a copy with pg_restore. Keep DATA_DIR/secret (or SECRET) with it.",
      );
    },
    async close() {
      // Without a timeout, a pool that lived through a restart of the server waits out
      // postgres.js's own (seconds) for connections that will never answer.
      await postgres.end({ timeout: POSTGRES_END_SECONDS });
      await db.destroy();
    },
  };
}
