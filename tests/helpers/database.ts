import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type DatabaseBackend, migrateToLatest, openDatabase } from "../../db/migrate.ts";
import type { DB } from "../../db/schema.ts";
import type { DatabaseTarget } from "../../db/url.ts";

/**
 * The PostgreSQL server the suites run against under `CLUSTER=1 ./scripts/test`: a URL to an
 * administrative database on it (each test server or database gets a new database of its own),
 * with Redis beside it. Unset, everything runs on SQLite files, as a default install does.
 */
export const TEST_DB_URL = process.env.TEST_DB_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/** The engine the suites run on. */
export const testEngine: DatabaseTarget["engine"] = TEST_DB_URL ? "postgres" : "sqlite";

let made = 0;

/** A new, empty PostgreSQL database on the test server; `drop` removes it (closing what is left open). */
export async function createPostgresDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tidings_test_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.end();
      }
    },
  };
}

/**
 * Where a test's data goes: a SQLite file in a new temporary folder, or a new PostgreSQL
 * database when the suites run against one. `dispose` removes it.
 */
export async function freshTarget(): Promise<{
  target: DatabaseTarget;
  dispose(): Promise<void>;
}> {
  if (TEST_DB_URL) {
    const created = await createPostgresDatabase(TEST_DB_URL);
    return { target: { engine: "postgres", url: created.url }, dispose: created.drop };
  }
  const dir = mkdtempSync(join(tmpdir(), "tidings-db-"));
  return {
    target: { engine: "sqlite", file: join(dir, "tidings.db") },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh, migrated database on the engine the suites run on. */
export async function openTestDatabase(): Promise<DatabaseBackend & { dispose(): Promise<void> }> {
  const { target, dispose } = await freshTarget();
  const backend = openDatabase(target);
  await migrateToLatest(backend);
  return Object.assign(backend, {
    async dispose() {
      await backend.close();
      await dispose();
    },
  });
}

/** How far a ban key (`visitor:…` or `ip:…`) has climbed the ladder; undefined if it never has. */
export async function banStepOf(db: DB, key: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("ban_steps")
    .select("step")
    .where("key", "=", key)
    .executeTakeFirst();
  return row?.step;
}
