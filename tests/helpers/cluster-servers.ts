import { TEST_DB_URL, TEST_REDIS_URL } from "./database.ts";

/**
 * tests/postgres and tests/cluster need a PostgreSQL server and a Redis server.
 * `CLUSTER=1 ./scripts/test` starts throwaway ones and names them in TEST_DB_URL and
 * TEST_REDIS_URL; a bare `bun test` has neither, so those suites are skipped with one line
 * saying how to run them. Under CLUSTER=1 a missing URL is an error, never a skip.
 */
export const clusterServers =
  TEST_DB_URL && TEST_REDIS_URL
    ? {
        dbUrl: TEST_DB_URL,
        redisUrl: TEST_REDIS_URL,
        /** The URL names several nodes (comma-separated): they are a Redis Cluster. */
        redisCluster: TEST_REDIS_URL.includes(","),
      }
    : undefined;

/** True when the suites that need PostgreSQL and Redis cannot run here. */
export const withoutClusterServers = clusterServers === undefined;

if (withoutClusterServers) {
  if (process.env.CLUSTER === "1") {
    throw new Error("CLUSTER=1 but TEST_DB_URL or TEST_REDIS_URL is unset: run ./scripts/test");
  }
  // This module is loaded once per `bun test` run, so the line is printed once.
  console.log(
    "tests/postgres and tests/cluster skipped: they need PostgreSQL and Redis; run them with " +
      "CLUSTER=1 ./scripts/test, or set TEST_DB_URL and TEST_REDIS_URL",
  );
}
