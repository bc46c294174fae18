import { type Kysely, sql } from "kysely";

// Discover reads the newest 50 visible bottles that are not the reader's own, checking expiry
// and reading the locale of each. With those columns in the index, SQLite answers from the index
// alone instead of visiting each row of the table: fewer pages per read (scripts/bench).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX bottles_ocean_covering ON bottles (available_at DESC, expires_at, visitor_id, locale) WHERE hidden = 0`.execute(
    db,
  );
  await sql`DROP INDEX bottles_ocean`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX bottles_ocean ON bottles (available_at DESC) WHERE hidden = 0`.execute(db);
  await sql`DROP INDEX bottles_ocean_covering`.execute(db);
}
