import { Database as BunDatabase } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Kysely } from "kysely";
import { type MigrationResultSet, Migrator } from "kysely/migration";
import { BunSqliteDialect, registerSqlite } from "./dialect.ts";
import { migrations } from "./migrations/index.ts";
import type { Database, DB } from "./schema.ts";

/** Opens (and creates) the SQLite file with the settings every connection needs. */
export function openDatabase(file: string): { db: DB; sqlite: BunDatabase } {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BunDatabase(file, { create: true, strict: true });
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new BunSqliteDialect(sqlite) });
  registerSqlite(db, sqlite);
  return { db, sqlite };
}

export async function migrateToLatest(db: DB): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
