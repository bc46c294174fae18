import type { Kysely } from "kysely";
import { columnTypes, type Engine } from "./engine.ts";

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable("translations")
    // SHA-256 (hex) of the source text; the text itself lives with its bottle, not here.
    .addColumn("source_hash", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("translated_text", "text", (c) => c.notNull())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("created_at", t.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint("translations_pk", ["source_hash", "target"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("translations").execute();
}
