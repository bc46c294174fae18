import type { Kysely } from "kysely";
import { columnTypes, type Engine } from "./engine.ts";

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull())
    // Usernames are unique without regard to case; the key is the lower-cased name.
    .addColumn("username_key", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    // Only a SHA-256 of the token's secret part is stored.
    .addColumn("secret_hash", t.bytes, (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .addColumn("last_verified_at", t.millis, (c) => c.notNull())
    .addColumn("expires_at", t.millis, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user_id").on("sessions").column("user_id").execute();
  await db.schema.createIndex("sessions_expires_at").on("sessions").column("expires_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("sessions").execute();
  await db.schema.dropTable("users").execute();
}
