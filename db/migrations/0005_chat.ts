import type { Kysely } from "kysely";
import { columnTypes, createIndex, type Engine, idColumn } from "./engine.ts";

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable("chat_reports")
    .$call(idColumn(engine))
    .addColumn("reported_visitor_id", "text", (c) => c.notNull())
    .addColumn("reported_ip_key", "text", (c) => c.notNull())
    .addColumn("reporter_visitor_id", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    // The server's copy of the reported message: the only place chat text is ever stored.
    .addColumn("message_content", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("context", "text", (c) => c.notNull().defaultTo("chat"))
    .addColumn("is_safe", "integer", (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .execute();
  await createIndex(db, {
    name: "chat_reports_once",
    table: "chat_reports",
    columns: ["reporter_visitor_id", "message_id"],
    unique: true,
  });
  await createIndex(db, {
    name: "chat_reports_reported",
    table: "chat_reports",
    columns: ["reported_visitor_id", "created_at"],
  });

  await db.schema
    .createTable("chat_bans")
    // "visitor:<id>" or "ip:<ip key>".
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("until", t.millis, (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("chat_bans").execute();
  await db.schema.dropTable("chat_reports").execute();
}
