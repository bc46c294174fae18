import { type Kysely, sql } from "kysely";
import { createIndex, type Engine } from "./engine.ts";

// A bottle reporter is one source by account, visitor and address, as a chat reporter is: the
// visitor id and address hash a report came from are kept, and the reports that count toward
// taking a bottle out are marked (those before this counted by account, and still do). Reports
// are found by who sent them, for the daily limit on child-safety reports that hide at once.
// The reports of a chat visitor that acted are read by themselves when counting reporters.
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  for (const column of ["reporter_visitor_id", "reporter_ip_key"]) {
    await db.schema
      .alterTable("bottle_reports")
      .addColumn(column, "text", (c) => c.notNull().defaultTo(""))
      .execute();
  }
  await db.schema
    .alterTable("bottle_reports")
    .addColumn("counted", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql.raw("UPDATE bottle_reports SET counted = 1").execute(db);
  await createIndex(db, {
    name: "bottle_reports_by_visitor",
    table: "bottle_reports",
    columns: ["reporter_visitor_id", "created_at"],
  });
  await createIndex(db, {
    name: "bottle_reports_by_address",
    table: "bottle_reports",
    columns: ["reporter_ip_key", "created_at"],
  });
  await createIndex(db, {
    name: "chat_reports_acted",
    table: "chat_reports",
    columns: ["reported_visitor_id", "acted", "created_at"],
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("chat_reports_acted").execute();
  await db.schema.dropIndex("bottle_reports_by_address").execute();
  await db.schema.dropIndex("bottle_reports_by_visitor").execute();
  for (const column of ["counted", "reporter_ip_key", "reporter_visitor_id"]) {
    await db.schema.alterTable("bottle_reports").dropColumn(column).execute();
  }
}
