import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseBackend, migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";
import { createPostgresDatabase } from "../helpers/database.ts";
import { describeSchema, type SchemaShape } from "../helpers/schema.ts";

// Both engines migrated from empty by the same migrations must hold the same schema.
const adminUrl = clusterServers?.dbUrl ?? "";
let dir: string;
let sqlite: DatabaseBackend;
let postgres: DatabaseBackend;
let drop: () => Promise<void>;
let onSqlite: SchemaShape;
let onPostgres: SchemaShape;

beforeAll(async () => {
  if (withoutClusterServers) return;
  dir = mkdtempSync(join(tmpdir(), "tidings-parity-"));
  sqlite = openDatabase(join(dir, "tidings.db"));
  const created = await createPostgresDatabase(adminUrl);
  drop = created.drop;
  postgres = openDatabase({ engine: "postgres", url: created.url });
  await migrateToLatest(sqlite);
  await migrateToLatest(postgres);
  onSqlite = await describeSchema(sqlite);
  onPostgres = await describeSchema(postgres);
});
afterAll(async () => {
  if (withoutClusterServers) return;
  await sqlite.close();
  await postgres.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(withoutClusterServers)("the migrations on SQLite and PostgreSQL", () => {
  test("make the same tables", () => {
    expect(Object.keys(onPostgres.tables).sort()).toEqual(Object.keys(onSqlite.tables).sort());
    expect(Object.keys(onSqlite.tables).length).toBe(17);
  });

  test("with the same columns, in order: names, kinds, nullability, generated ids, defaults", () => {
    for (const [name, table] of Object.entries(onSqlite.tables)) {
      expect({ name, columns: onPostgres.tables[name]?.columns }).toEqual({
        name,
        columns: table.columns,
      });
    }
  });

  test("with the same primary keys, unique constraints and foreign keys", () => {
    for (const [name, table] of Object.entries(onSqlite.tables)) {
      const other = onPostgres.tables[name];
      expect({ name, keys: other && { ...other, columns: undefined } }).toEqual({
        name,
        keys: { ...table, columns: undefined },
      });
    }
    // What the comparison rests on is there at all.
    expect(onSqlite.tables.sessions?.foreignKeys).toEqual([
      "user_id -> users.id on delete cascade",
    ]);
    expect(onSqlite.tables.users?.uniques).toEqual([["username_key"]]);
  });

  test("and the same indexes: columns, order, uniqueness and partial conditions", () => {
    expect(onPostgres.indexes).toEqual(onSqlite.indexes);
    expect(onSqlite.indexes.bottles_ocean_covering).toEqual({
      table: "bottles",
      columns: ["available_at DESC", "expires_at", "visitor_id", "locale"],
      unique: false,
      where: "hidden = 0",
    });
  });

  test("timestamps and ids hold values past 32 bits on PostgreSQL, read back as numbers", async () => {
    const at = Date.UTC(2100, 0, 1);
    const { id } = await postgres.db
      .insertInto("contact_messages")
      .values({ name: "Mei", email: "m@example.org", message: "hi", locale: "en", created_at: at })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await postgres.db
      .selectFrom("contact_messages")
      .select(["id", "created_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ id, created_at: at });
    expect(typeof row.id).toBe("number");
  });
});
