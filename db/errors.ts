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

/** Node's and postgres.js's codes for a connection that failed, closed or timed out. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * The database cannot be reached right now, or is shutting down or starting up: the same call
 * may well succeed in a few seconds. PostgreSQL's SQLSTATE class 08 (connection exceptions),
 * 57P01-57P03 (shutdown, crash shutdown, cannot connect now) and 53300 (too many connections),
 * and the connection codes of Node and postgres.js.
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code !== "string") return false;
  return (
    CONNECTION_CODES.has(code) ||
    code.startsWith("08") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03" ||
    code === "53300"
  );
}
