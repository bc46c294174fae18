import type { Kysely } from "kysely";
import { columnTypes, createIndex, type Engine } from "./engine.ts";

// Proof of work: each solved challenge is recorded once, by its id, so a replay is refused
// (INSERT … ON CONFLICT DO NOTHING decides which of calls at once is the one). Rows go once
// their challenge has expired.
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable("pow_solutions")
    .addColumn("challenge_id", "text", (c) => c.primaryKey())
    .addColumn("expires_at", t.millis, (c) => c.notNull())
    .execute();
  await createIndex(db, {
    name: "pow_solutions_expires_at",
    table: "pow_solutions",
    columns: ["expires_at"],
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("pow_solutions").execute();
}
