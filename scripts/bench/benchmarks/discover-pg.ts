/**
 * Discover on PostgreSQL: the app on a throwaway PostgreSQL server (with Redis, which a
 * PostgreSQL site requires) against the same two statements through postgres.js alone, on the
 * same rows as the SQLite benchmark, interleaved the same way.
 */

import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import {
  appServer,
  httpRows,
  httpSettings,
  interleaved,
  log,
  problem,
  roundsOf,
  startServer,
  summarizeHttp,
  withServers,
  workFolder,
} from "../lib.ts";
import { copySeed, createDatabase, readPathPostgres, startCluster } from "../postgres.ts";
import { CANDIDATES_SQL_PG, CARD_SQL_PG } from "../raw-discover.ts";
import { type Benchmark, fmt, label, type Row, type Section, type Size, yes } from "../section.ts";
import { seed } from "../seed.ts";
import { discoverSizes, planText } from "./discover.ts";

async function run(size: Size): Promise<Section> {
  const SIZES = discoverSizes(size);
  const HTTP = httpSettings(size);
  const rows: Row[] = [];
  const notes: string[] = [];
  let details = "";
  let sqlMatches = true;
  let allIndexed = true;
  // Other work on a shared machine moves these figures more than SQLite's (more processes).
  const loadAverage = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(", ");
  // A folder of its own beside the others: the postgres user must reach it, and not `work`.
  const cluster = startCluster();
  try {
    for (const bottles of SIZES) {
      const started = performance.now();
      const dir = workFolder(`discover-pg-${label(bottles)}`);
      const file = join(dir, "seed.db");
      const seeded = await seed(file, bottles);
      const url = await createDatabase(cluster.adminUrl, `bench_${label(bottles).toLowerCase()}`);
      await copySeed(file, url);
      log(
        `seeded PostgreSQL with ${fmt(bottles)} bottles (${fmt(seeded.visible)} visible) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      const path = await readPathPostgres(url);
      const statements = [...path.anonymous, ...path.signedIn];
      if (statements.some((s) => s.plan.some((line) => /Seq Scan on bottles\b/.test(line))))
        allIndexed = false;
      if (path.anonymous[0]?.sql !== CANDIDATES_SQL_PG || path.anonymous[1]?.sql !== CARD_SQL_PG)
        sqlMatches = false;
      if (bottles === SIZES[SIZES.length - 1]) {
        details =
          `Query plans on the ${label(bottles)} PostgreSQL database (EXPLAIN with the values the statements were bound to):\n\n` +
          planText("An anonymous reader (what the load does)", path.anonymous) +
          "\n" +
          planText("A signed-in reader", path.signedIn);
      }
      const [theirRounds = [], ourRounds = []] = await withServers(
        [
          appServer(dir, { DB_URL: url, REDIS_URL: cluster.redisUrl }),
          () => startServer("raw-discover.ts", { DB_URL: url }),
        ],
        ([app, raw]) =>
          interleaved(
            HTTP,
            [
              { server: raw, path: "/", name: "the baseline" },
              { server: app, path: "/trpc/bottles.discover", name: "ours" },
            ],
            "discover",
          ),
      );
      const ours = summarizeHttp(ourRounds);
      const theirs = summarizeHttp(theirRounds);
      rows.push(
        ...httpRows(HTTP, ours, theirs, {
          rate: `Discover on PostgreSQL, ${label(bottles)} bottles`,
          baseline: "raw postgres.js",
        }),
      );
      notes.push(
        `${label(bottles)}: app server CPU ${ours.cpu.toFixed(2)} cores (ours) and ${theirs.cpu.toFixed(2)} (raw), ` +
          `about ${fmt((ours.cpu / ours.rps) * 1e6)} µs and ${fmt((theirs.cpu / theirs.rps) * 1e6)} µs per request, not counting PostgreSQL's own processes; ` +
          `rounds: ours ${roundsOf(ourRounds)}; raw ${roundsOf(theirRounds)}` +
          (ours.non200 + ours.errors > 0
            ? `; ${ours.non200} non-200 answers, ${ours.errors} errors (ours)`
            : ""),
      );
    }
  } finally {
    cluster.stop();
  }
  rows.push({
    benchmark: "Discover on PostgreSQL: no sequential scan of bottles on the read path",
    ours: allIndexed ? "yes" : "no",
    baseline: "same SQL",
    goal: "index, no scan",
    met: yes(allIndexed),
  });
  notes.push(
    "A throwaway PostgreSQL 15 (Debian's package, fsync off, data on tmpfs) on the same two cores as the servers and the load generator; both servers use a postgres.js pool of 10 connections with int8 read as numbers (db/connection.ts). Ours goes through Kysely's kysely-postgres-js dialect, which reserves a pooled connection per query; the raw baseline sends the two statements on the pool directly. Both use prepared statements.",
    "The rows are the SQLite benchmark's seed, copied as they are; no goal is set for this row yet.",
    `Load average (1, 5, 15 min) when this benchmark started: ${loadAverage}, on ${cpus().length} cores.`,
  );
  if (!sqlMatches) {
    problem("discover-pg: the raw baseline's SQL no longer matches discoverBottle's on PostgreSQL");
  }
  notes.push(
    sqlMatches
      ? "The raw baseline runs the very SQL discoverBottle runs on PostgreSQL (captured from Kysely's log each run)."
      : "WARNING: the raw baseline's SQL no longer matches what discoverBottle runs on PostgreSQL.",
  );
  return { title: "Discover read path on PostgreSQL", rows, notes, details };
}

export const discoverPg: Benchmark = { name: "discover-pg", needs: ["cluster"], run };
