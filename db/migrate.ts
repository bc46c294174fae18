import { type MigrationResultSet, Migrator, NO_MIGRATIONS } from "kysely/migration";
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

/** The migrations this version knows for an engine, in the order they run. */
export function knownMigrations(engine: DatabaseBackend["engine"]): string[] {
  return Object.keys(migrationsFor(engine)).sort();
}

/** Runs the migrations up to and with `name` (none when null): a database as it was then. */
export async function migrateTo(
  backend: Pick<DatabaseBackend, "db" | "engine">,
  name: string | null,
): Promise<void> {
  const migrator = new Migrator({
    db: backend.db,
    provider: { getMigrations: async () => migrationsFor(backend.engine) },
  });
  const result = await migrator.migrateTo(name ?? NO_MIGRATIONS);
  if (result.error) throw result.error;
}
