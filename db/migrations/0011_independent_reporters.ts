import type { Kysely } from "kysely";
import { createIndex, type Engine } from "./engine.ts";

// A chat reporter is one reporter by visitor and by address: the address hash a report came
// from is kept, so three cookies on one address count once, and the report that acted (a
// reporter acts once a day per reported visitor) is marked. The same message may be reported
// again for another reason (spam, then child safety), never twice for the same one.
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable("chat_reports")
    .addColumn("reporter_ip_key", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("chat_reports")
    .addColumn("acted", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.dropIndex("chat_reports_once").execute();
  await createIndex(db, {
    name: "chat_reports_once_per_reason",
    table: "chat_reports",
    columns: ["reporter_visitor_id", "message_id", "reason"],
    unique: true,
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("chat_reports_once_per_reason").execute();
  await createIndex(db, {
    name: "chat_reports_once",
    table: "chat_reports",
    columns: ["reporter_visitor_id", "message_id"],
    unique: true,
  });
  await db.schema.alterTable("chat_reports").dropColumn("acted").execute();
  await db.schema.alterTable("chat_reports").dropColumn("reporter_ip_key").execute();
}
