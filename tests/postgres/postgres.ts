import { TEST_DB_URL } from "../helpers/database.ts";

/**
 * The PostgreSQL server these tests need. `CLUSTER=1 ./scripts/test` starts one and runs them;
 * run alone without it, they fail here with what to do rather than pass without checking.
 */
export function requirePostgres(): string {
  if (!TEST_DB_URL)
    throw new Error(
      "tests/postgres needs TEST_DB_URL (a PostgreSQL server): run CLUSTER=1 ./scripts/test",
    );
  return TEST_DB_URL;
}
