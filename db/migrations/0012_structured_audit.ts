import { type Kysely, sql } from "kysely";

// The record of each moderation action keeps its facts as JSON checked by a schema per action
// (src/core/admin/audit.ts) instead of a sentence read back with patterns. Rows recorded before
// are turned into the same facts once, here; the sentence column goes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("moderation_actions")
    .addColumn("details", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  const { rows } = await sql<{
    id: number;
    action: string;
    detail: string;
  }>`SELECT id, action, detail FROM moderation_actions`.execute(db);
  for (const row of rows) {
    const details = legacyDetails(row.action, row.detail);
    await sql`UPDATE moderation_actions SET details = ${JSON.stringify(details)} WHERE id = ${row.id}`.execute(
      db,
    );
  }
  await db.schema.alterTable("moderation_actions").dropColumn("detail").execute();
}

/** The facts the sentences of earlier versions said, in the shape the schemas now keep. */
function legacyDetails(action: string, detail: string): Record<string, unknown> {
  const words = detail.trim() === "" ? [] : detail.trim().split(/\s+/);
  switch (action) {
    case "dismiss":
      // "<n> reports"
      return { closed: Number(words[0]) || 0 };
    case "hide":
      return { closed: 0 };
    case "ban": {
      // "<key> <key> … until <ISO time>"
      const at = words.indexOf("until");
      const until = Date.parse(words[at + 1] ?? "");
      return {
        keys: at >= 0 ? words.slice(0, at) : words,
        until: Number.isFinite(until) ? until : 0,
      };
    }
    case "unban":
      // "<key> <key> …", or nothing when no ban was in force
      return { lifted: words };
    default:
      return {};
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("moderation_actions")
    .addColumn("detail", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema.alterTable("moderation_actions").dropColumn("details").execute();
}
