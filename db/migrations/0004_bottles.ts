import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bottles")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
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
    .addColumn("available_at", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("expires_at", "integer")
    .execute();
  // The read paths walk these newest-first and stop after a page: no full scan.
  await sql`CREATE INDEX bottles_ocean ON bottles (available_at DESC) WHERE hidden = 0`.execute(db);
  await sql`CREATE INDEX bottles_public ON bottles (available_at DESC) WHERE hidden = 0 AND is_public = 1`.execute(
    db,
  );
  await db.schema.createIndex("bottles_expires_at").on("bottles").column("expires_at").execute();

  await db.schema
    .createTable("bottle_likes")
    .addColumn("bottle_id", "integer", (c) =>
      c.notNull().references("bottles.id").onDelete("cascade"),
    )
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("bottle_likes_pk", ["bottle_id", "user_id"])
    .execute();

  await db.schema
    .createTable("bottle_reports")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("bottle_id", "integer", (c) =>
      c.notNull().references("bottles.id").onDelete("cascade"),
    )
    // Reports outlive the reporter's account, without its id.
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("is_safe", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX bottle_reports_once ON bottle_reports (bottle_id, user_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("bottle_reports").execute();
  await db.schema.dropTable("bottle_likes").execute();
  await db.schema.dropTable("bottles").execute();
}
