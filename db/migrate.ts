import type { Database as BunDatabase } from "bun:sqlite";
import { Kysely } from "kysely";
import { type MigrationResultSet, Migrator } from "kysely/migration";
import { openSqlite } from "./connection.ts";
import { BunSqliteDialect, registerSqlite } from "./dialect.ts";
import { migrations } from "./migrations/index.ts";
import type { Database, DB } from "./schema.ts";

/** Opens (and creates) the database, with Kysely over the connection. */
export function openDatabase(file: string): { db: DB; sqlite: BunDatabase } {
  const sqlite = openSqlite(file);
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
