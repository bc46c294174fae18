/**
 * Database errors by the engines' own codes, never by message text (which differs between
 * engines, versions and languages).
 */

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}

/**
 * A write refused by a unique index or primary key: bun:sqlite's SQLITE_CONSTRAINT_UNIQUE or
 * SQLITE_CONSTRAINT_PRIMARYKEY, PostgreSQL's SQLSTATE 23505 (unique_violation).
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return (
    code === "23505" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "SQLITE_CONSTRAINT_PRIMARYKEY"
  );
}

/**
 * PostgreSQL gave up a transaction to keep concurrent ones serializable (SQLSTATE 40001) or to
 * break a deadlock (40P01): running it again is the documented answer. SQLite never does.
 */
export function isSerializationFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code === "40001" || code === "40P01";
}
