import { type Kysely, sql } from "kysely";
import { createIndex } from "./engine.ts";

const ocean = {
  name: "bottles_ocean",
  table: "bottles",
  columns: ["available_at DESC"],
  where: "hidden = 0",
};

// Discover reads the newest 50 visible bottles that are not the reader's own, checking expiry
// and reading the locale of each. With those columns in the index, SQLite answers from the index
// alone instead of visiting each row of the table: fewer pages per read (scripts/bench).
export async function up(db: Kysely<unknown>): Promise<void> {
  await createIndex(db, {
    name: "bottles_ocean_covering",
    table: "bottles",
    columns: ["available_at DESC", "expires_at", "visitor_id", "locale"],
    where: "hidden = 0",
  });
  await sql`DROP INDEX bottles_ocean`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createIndex(db, ocean);
  await sql`DROP INDEX bottles_ocean_covering`.execute(db);
}
