import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteOf } from "../../db/dialect.ts";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { prepared } from "../../db/prepared.ts";
import type { DB } from "../../db/schema.ts";

let dir: string;
let db: DB;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-prepared-"));
  const database = openDatabase(join(dir, "t.db"));
  db = database.db;
  await migrateToLatest(database);
});
afterEach(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const addMessage = prepared((db, v: { name: string; at: number }) =>
  db
    .insertInto("contact_messages")
    .values({ name: v.name, email: "a@example.org", message: "hi", locale: "en", created_at: v.at })
    .returning("id"),
);
const namesSince = prepared((db, v: { since: number }) =>
  db
    .selectFrom("contact_messages")
    .select("name")
    .where("created_at", ">=", v.since)
    .orderBy("created_at"),
);

describe("prepared queries", () => {
  test("bind new values on each run, and answer rows like the built query", async () => {
    await addMessage(db, { name: "Mei", at: 1000 });
    const [second] = await addMessage(db, { name: "Lin", at: 2000 });
    expect(second?.id).toBeGreaterThan(0);
    expect(await namesSince(db, { since: 0 })).toEqual([{ name: "Mei" }, { name: "Lin" }]);
    expect(await namesSince(db, { since: 1500 })).toEqual([{ name: "Lin" }]);
    const built = await db
      .selectFrom("contact_messages")
      .select("name")
      .where("created_at", ">=", 1500)
      .execute();
    expect(built).toEqual([{ name: "Lin" }]);
  });

  test("run directly on the database outside a transaction, through it inside one", async () => {
    expect(sqliteOf(db)).toBeInstanceOf(Database);
    // Seen inside the transaction, checked outside it: a failed expect thrown in there would be
    // taken for the rollback.
    let inside: { sqlite: unknown; names: unknown } | undefined;
    const outcome = await db
      .transaction()
      .execute(async (trx) => {
        const sqlite = sqliteOf(trx);
        await addMessage(trx, { name: "Gone", at: 1000 });
        inside = { sqlite, names: await namesSince(trx, { since: 0 }) };
        throw new Error("roll back");
      })
      .catch((error: Error) => error.message);
    expect(outcome).toBe("roll back");
    expect(inside).toEqual({ sqlite: undefined, names: [{ name: "Gone" }] });
    // The rollback took the prepared insert with it.
    expect(await namesSince(db, { since: 0 })).toEqual([]);
  });
});
