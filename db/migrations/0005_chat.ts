import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("chat_reports")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("reported_visitor_id", "text", (c) => c.notNull())
    .addColumn("reported_ip_key", "text", (c) => c.notNull())
    .addColumn("reporter_visitor_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    // The server's copy of the reported message: the only place chat text is ever stored.
    .addColumn("message_content", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("context", "text", (c) => c.notNull().defaultTo("chat"))
    .addColumn("is_safe", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX chat_reports_once ON chat_reports (reporter_visitor_id, message_id)`.execute(
    db,
  );
  await sql`CREATE INDEX chat_reports_reported ON chat_reports (reported_visitor_id, created_at)`.execute(
    db,
  );

  await db.schema
    .createTable("chat_bans")
    // "visitor:<id>" or "ip:<ip key>".
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("until", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("chat_bans").execute();
  await db.schema.dropTable("chat_reports").execute();
}
