import type { Kysely } from "kysely";
import { columnTypes, type Engine } from "./engine.ts";

// Reports stay open until the operator acts on them (hide, ban) from the admin commands.
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable("bottle_reports").addColumn("handled_at", t.millis).execute();
  await db.schema.alterTable("chat_reports").addColumn("handled_at", t.millis).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("bottle_reports").dropColumn("handled_at").execute();
  await db.schema.alterTable("chat_reports").dropColumn("handled_at").execute();
}
