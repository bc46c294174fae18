import type { Kysely } from "kysely";
import { columnTypes, createIndex, type Engine, idColumn } from "./engine.ts";

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable("bottles")
    .$call(idColumn(engine))
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("drift_hours", "integer", (c) => c.notNull())
    .addColumn("country", "text", (c) => c.notNull())
    .addColumn("country_code", "text")
    // A keyed hash of the writer's address, never the address.
    .addColumn("ip_key", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("locale", "text", (c) => c.notNull())
    .addColumn("is_public", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("hidden", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("available_at", t.millis, (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .addColumn("expires_at", t.millis)
    .execute();
  // The read paths walk these newest-first and stop after a page: no full scan.
  await createIndex(db, {
    name: "bottles_ocean",
    table: "bottles",
    columns: ["available_at DESC"],
    where: "hidden = 0",
  });
  await createIndex(db, {
    name: "bottles_public",
    table: "bottles",
    columns: ["available_at DESC"],
    where: "hidden = 0 AND is_public = 1",
  });
  await db.schema.createIndex("bottles_expires_at").on("bottles").column("expires_at").execute();

  await db.schema
    .createTable("bottle_likes")
    .addColumn("bottle_id", t.idRef, (c) =>
      c.notNull().references("bottles.id").onDelete("cascade"),
    )
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint("bottle_likes_pk", ["bottle_id", "user_id"])
    .execute();

  await db.schema
    .createTable("bottle_reports")
    .$call(idColumn(engine))
    .addColumn("bottle_id", t.idRef, (c) =>
      c.notNull().references("bottles.id").onDelete("cascade"),
    )
    // Reports outlive the reporter's account, without its id.
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("is_safe", "integer", (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .execute();
  await createIndex(db, {
    name: "bottle_reports_once",
    table: "bottle_reports",
    columns: ["bottle_id", "user_id"],
    unique: true,
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("bottle_reports").execute();
  await db.schema.dropTable("bottle_likes").execute();
  await db.schema.dropTable("bottles").execute();
}
