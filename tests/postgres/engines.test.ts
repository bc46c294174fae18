import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UnsupportedOnEngineError } from "../../db/backend.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { type DatabaseBackend, migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { prepared } from "../../db/prepared.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";
import { createPostgresDatabase } from "../helpers/database.ts";

const adminUrl = clusterServers?.dbUrl ?? "";
let dir: string;
let sqlite: DatabaseBackend;
let postgres: DatabaseBackend;
let drop: () => Promise<void>;

beforeAll(async () => {
  if (withoutClusterServers) return;
  dir = mkdtempSync(join(tmpdir(), "tidings-engines-"));
  sqlite = openDatabase(join(dir, "tidings.db"));
  const created = await createPostgresDatabase(adminUrl);
  drop = created.drop;
  postgres = openDatabase({ engine: "postgres", url: created.url });
  await migrateToLatest(sqlite);
  await migrateToLatest(postgres);
});
afterAll(async () => {
  if (withoutClusterServers) return;
  await sqlite.close();
  await postgres.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

const user = (id: string, key: string) => ({
  id,
  username: key,
  username_key: key,
  password_hash: "x",
  created_at: 1,
});

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the write to fail");
}

describe.skipIf(withoutClusterServers)("both engines in one process", () => {
  test("a duplicate key is a unique violation on each (by code), other refusals are not", async () => {
    for (const { db } of [sqlite, postgres]) {
      await db.insertInto("users").values(user("a", "same")).execute();
      expect(
        isUniqueViolation(
          await errorOf(db.insertInto("users").values(user("b", "same")).execute()),
        ),
      ).toBe(true);
      expect(
        isUniqueViolation(
          await errorOf(db.insertInto("users").values(user("a", "other")).execute()),
        ),
      ).toBe(true);
      // A session for a user that does not exist breaks a foreign key, not a unique rule.
      const orphan = db
        .insertInto("sessions")
        .values({
          id: "s",
          secret_hash: new Uint8Array(32),
          user_id: "nobody",
          created_at: 1,
          last_verified_at: 1,
          expires_at: 2,
        })
        .execute();
      expect(isUniqueViolation(await errorOf(orphan))).toBe(false);
    }
    const pgError = await errorOf(
      postgres.db.insertInto("users").values(user("c", "same")).execute(),
    );
    expect((pgError as { code?: string }).code).toBe("23505");
  });

  test("a prepared query runs on each, compiled by each engine's own compiler", async () => {
    const addMessage = prepared((db, v: { name: string; at: number }) =>
      db
        .insertInto("contact_messages")
        .values({
          name: v.name,
          email: "a@example.org",
          message: "hi",
          locale: "en",
          created_at: v.at,
        })
        .returning("id"),
    );
    const since = prepared((db, v: { at: number }) =>
      db
        .selectFrom("contact_messages")
        .select("name")
        .where("created_at", ">=", v.at)
        .orderBy("id"),
    );
    for (const [name, { db }] of [
      ["Mei", sqlite],
      ["Lin", postgres],
      ["Mei again", sqlite],
    ] as const) {
      await addMessage(db, { name, at: 5_000_000_000_000 });
    }
    expect(await since(sqlite.db, { at: 0 })).toEqual([{ name: "Mei" }, { name: "Mei again" }]);
    expect(await since(postgres.db, { at: 0 })).toEqual([{ name: "Lin" }]);
    expect(await since(postgres.db, { at: 5_000_000_000_001 })).toEqual([]);
  });

  test("counts come back as numbers on each", async () => {
    for (const { db } of [sqlite, postgres]) {
      const { n } = await db
        .selectFrom("users")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(n).toBeNumber();
    }
  });

  test("a PostgreSQL backup is refused with what to use instead", async () => {
    const refused = postgres.backup(join(dir, "copy.db"));
    await expect(refused).rejects.toBeInstanceOf(UnsupportedOnEngineError);
    await expect(refused).rejects.toThrow(/pg_dump/);
  });
});
