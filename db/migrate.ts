import { type MigrationResultSet, Migrator } from "kysely/migration";
import type { DatabaseBackend } from "./backend.ts";
import { migrationsFor } from "./migrations/index.ts";

export { type DatabaseBackend, openDatabase, type SqliteBackend } from "./backend.ts";

/** Brings the database up to date; on PostgreSQL, instances starting at once take turns (Kysely's migration lock). */
export async function migrateToLatest(
  backend: Pick<DatabaseBackend, "db" | "engine">,
): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db: backend.db,
    provider: { getMigrations: async () => migrationsFor(backend.engine) },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
