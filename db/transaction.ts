import type { Transaction } from "kysely";
import { isSerializationFailure } from "./errors.ts";
import type { Database, DB } from "./schema.ts";

const ATTEMPTS = 10;

/**
 * Runs `work` in a transaction that behaves as if it ran alone, so a check inside it (a count,
 * whether a row exists) still holds when it writes. SQLite's transactions already do (BEGIN
 * IMMEDIATE takes the write lock; the driver ignores the isolation level). PostgreSQL's default
 * (READ COMMITTED) does not, so there it is SERIALIZABLE and is run again when the server gives
 * it up for a concurrent one, a few times, after a short random wait.
 */
export async function serially<T>(
  db: DB,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().setIsolationLevel("serializable").execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isSerializationFailure(error)) throw error;
      await Bun.sleep(Math.random() * 5 * attempt);
    }
  }
}
