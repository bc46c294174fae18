import type { Kysely } from "kysely";
import { columnTypes, createIndex, type Engine } from "./engine.ts";

// My bottles: the account a bottle was thrown from (so its writer follows it on any device,
// forgotten with the account), the writer's own bottles found without a scan, and the finds:
// one row per bottle and visitor that discover showed it to, with the finder's country only.
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .alterTable("bottles")
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .execute();
  await createIndex(db, {
    name: "bottles_by_visitor",
    table: "bottles",
    columns: ["visitor_id", "id"],
  });
  await createIndex(db, {
    name: "bottles_by_user",
    table: "bottles",
    columns: ["user_id", "id"],
    where: "user_id IS NOT NULL",
  });
  await db.schema
    .createTable("bottle_finds")
    .addColumn("bottle_id", t.idRef, (c) =>
      c.notNull().references("bottles.id").onDelete("cascade"),
    )
    .addColumn("visitor_id", "text", (c) => c.notNull())
    // ISO 3166-1 alpha-2 of the finder's address, or null when unknown; nothing else of them.
    .addColumn("country_code", "text")
    .addColumn("found_at", t.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint("bottle_finds_pk", ["bottle_id", "visitor_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("bottle_finds").execute();
  await db.schema.dropIndex("bottles_by_user").execute();
  await db.schema.dropIndex("bottles_by_visitor").execute();
  await db.schema.alterTable("bottles").dropColumn("user_id").execute();
}
