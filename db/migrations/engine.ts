import { type CreateTableBuilder, type Kysely, sql } from "kysely";

/** The database engines a site can run on. */
export type Engine = "sqlite" | "postgres";

/**
 * Column types that differ between the engines, for migrations written once. On SQLite each is
 * the type the migrations used before PostgreSQL was supported, so landed databases and new
 * ones get the same SQL (tests/fixtures/sqlite-migrations.sql).
 */
export function columnTypes(engine: Engine) {
  const sqlite = engine === "sqlite";
  return {
    /** Unix milliseconds: SQLite's integer is 64-bit, PostgreSQL's is 32-bit. */
    millis: sqlite ? "integer" : "bigint",
    /** A column holding a generated id (see idColumn). */
    idRef: sqlite ? "integer" : "bigint",
    /** Raw bytes. */
    bytes: sqlite ? "blob" : "bytea",
  } as const;
}

/**
 * The generated `id` primary key: SQLite's `integer primary key autoincrement` (ids never reused),
 * PostgreSQL's identity column.
 */
export function idColumn(engine: Engine) {
  return <T extends string>(table: CreateTableBuilder<T, never>) =>
    engine === "sqlite"
      ? table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      : table.addColumn("id", "bigint", (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

/**
 * An index, with descending columns or a `where` for a partial index, as SQL both engines read
 * the same way. Names, columns and conditions are the migration's own constants, never input.
 */
export function createIndex(
  db: Kysely<unknown>,
  index: { name: string; table: string; columns: string[]; unique?: boolean; where?: string },
): Promise<unknown> {
  const text = `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${index.name} ON ${index.table} (${index.columns.join(", ")})${index.where ? ` WHERE ${index.where}` : ""}`;
  return sql.raw(text).execute(db);
}
