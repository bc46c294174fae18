import type { Kysely } from "kysely";
import { columnTypes, createIndex, type Engine, idColumn } from "./engine.ts";

// Trust and safety: escalating chat bans, blocks, age answers, operators and their actions,
// dismissed reports, and the site's off switches.
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  // How far each ban key ("visitor:<id>", "ip:<hash>") has escalated, and when it last did.
  await db.schema
    .createTable("ban_steps")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("step", "integer", (c) => c.notNull())
    .addColumn("last_at", t.millis, (c) => c.notNull())
    .execute();
  // A visitor who blocked a partner is never paired with that visitor or address again.
  await db.schema
    .createTable("chat_blocks")
    .addColumn("blocker_visitor_id", "text", (c) => c.notNull())
    .addColumn("blocked_visitor_id", "text", (c) => c.notNull())
    .addColumn("blocked_ip_key", "text", (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .addColumn("until", t.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint("chat_blocks_pk", ["blocker_visitor_id", "blocked_visitor_id"])
    .execute();
  await createIndex(db, { name: "chat_blocks_until", table: "chat_blocks", columns: ["until"] });
  // What a visitor answered at the age gates: "adult" or "minor" before chatting, "13" or
  // "under-13" before writing a bottle; a refusing answer holds for 30 days.
  await db.schema
    .createTable("visitor_ages")
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("gate", "text", (c) => c.notNull())
    .addColumn("answer", "text", (c) => c.notNull())
    .addColumn("answered_at", t.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint("visitor_ages_pk", ["visitor_id", "gate"])
    .execute();
  await db.schema
    .alterTable("users")
    .addColumn("is_operator", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("moderation_actions")
    .$call(idColumn(engine))
    .addColumn("operator", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("detail", "text", (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .execute();
  await createIndex(db, {
    name: "moderation_actions_created_at",
    table: "moderation_actions",
    columns: ["created_at"],
  });
  for (const table of ["bottle_reports", "chat_reports"]) {
    await db.schema
      .alterTable(table)
      .addColumn("dismissed", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  }
  // The operator's switches (chat, bottles, public bottles), read by every instance.
  await db.schema
    .createTable("site_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", t.millis, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("site_settings").execute();
  for (const table of ["bottle_reports", "chat_reports"]) {
    await db.schema.alterTable(table).dropColumn("dismissed").execute();
  }
  await db.schema.dropTable("moderation_actions").execute();
  await db.schema.alterTable("users").dropColumn("is_operator").execute();
  await db.schema.dropTable("visitor_ages").execute();
  await db.schema.dropTable("chat_blocks").execute();
  await db.schema.dropTable("ban_steps").execute();
}
