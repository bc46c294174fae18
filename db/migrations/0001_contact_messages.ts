import type { Kysely } from "kysely";

// Migrations see the database as it was when they were written, not as `Database` is today.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("contact_messages")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("locale", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("contact_messages_created_at")
    .on("contact_messages")
    .column("created_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("contact_messages").execute();
}
