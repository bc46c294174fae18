/**
 * `bun run bench [discover|discover-pg|write|chat|match|memory|frontend|binary|match-cluster|
 *   chat-cluster|scale-out ...] [--quick]`, `bun run bench --notes`
 *
 * Runs the benchmarks in sequence and writes BENCHMARKS.md. Every server under test and every
 * baseline runs as its own process, and so does every load generator; each figure is compared
 * with its raw baseline measured in the same invocation, interleaved where it can be, so that
 * the noise of a shared machine falls on both. Naming some benchmarks runs only those and
 * updates their rows in BENCHMARKS.md; --quick runs shorter and smaller, for development, and
 * prints the table without writing the file; --notes runs nothing and writes BENCHMARKS.md again
 * from the figures it records, with the current NOTES.md.
 *
 * match-cluster, chat-cluster and scale-out run the app as several instances on a throwaway
 * PostgreSQL and Redis (scripts/cluster); the plan after the table (plan.ts) is worked out from
 * the figures they record.
 */

import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import Redis from "ioredis";
import { openSqlite } from "../../db/connection.ts";
import { LocalModerator } from "../../src/core/moderation/local.ts";
import { type BinaryResult, measureBinary } from "./binary.ts";
import type { ChatMode } from "./chat-client.ts";
import { type FrontendResult, measureFrontend } from "./frontend.ts";
import {
  ensureNodeBaselines,
  NODE_DIR,
  ROOT,
  round,
  rssKiB,
  runLoad,
  type ServerChild,
  sleep,
  startNodeServer,
  startServer,
  stopAllChildren,
} from "./lib.ts";
import type { ChatLoadOptions, ChatLoadResult } from "./load-chat.ts";
import type { HttpLoadOptions, HttpLoadResult } from "./load-http.ts";
import type { IdleLoadOptions } from "./load-idle.ts";
import type { MatchLoadOptions, MatchLoadResult } from "./load-match.ts";
import {
  type ChatFigures,
  COUNTED,
  type MatchFigures,
  renderPlan,
  type ScaleFigures,
} from "./plan.ts";
import {
  copySeed,
  createDatabase,
  postmasterPid,
  readPathPostgres,
  startCluster,
  writeMark,
  writesSince,
} from "./postgres.ts";
import { Probe, type ProbeResult, type ProbeTargets, readRedis } from "./probe.ts";
import { readPath, type Statement, writePathSql } from "./queries.ts";
import { CANDIDATES_SQL, CARD_SQL } from "./raw-discover.ts";
import { CANDIDATES_SQL_PG, CARD_SQL_PG } from "./raw-discover-pg.ts";
import { INSERT_SQL } from "./raw-insert.ts";
import { seed } from "./seed.ts";

const BENCHMARKS = [
  "discover",
  "discover-pg",
  "write",
  "chat",
  "match",
  "memory",
  "frontend",
  "binary",
  "match-cluster",
  "chat-cluster",
  "scale-out",
] as const;
type Benchmark = (typeof BENCHMARKS)[number];

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const named = args.filter((a) => !a.startsWith("--"));
for (const name of named) {
  if (!(BENCHMARKS as readonly string[]).includes(name)) {
    console.error(`unknown benchmark ${name}; choose from ${BENCHMARKS.join(", ")}`);
    process.exit(2);
  }
}
const selected: Benchmark[] = named.length > 0 ? (named as Benchmark[]) : [...BENCHMARKS];

const SECRET = "bench-secret-0123456789abcdef0123456789";
const SIZES = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
const HTTP = {
  concurrency: 32,
  warmupMs: quick ? 300 : 500,
  durationMs: quick ? 1000 : 2000,
  // Five rounds each in a full run: other work on a shared machine moves single rounds a lot.
  rounds: quick ? 2 : 5,
};
const CHAT = { warmupMs: 1000, durationMs: quick ? 1500 : 3000, rounds: quick ? 1 : 3 };

// Goals for the code on tRPC's public API (issue 11): ratios to the raw baselines.
const DISCOVER_GOAL = 0.35;
const CHAT_MAX_GOAL = 0.35;

/** The pinned versions of the Node baselines' packages (node/package.json). */
const NODE_PACKAGES = (
  JSON.parse(readFileSync(join(NODE_DIR, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  }
).dependencies;

/** Node's version once the Node baselines are installed, or why they cannot run. */
let nodeState: string | Error = new Error("not installed (no benchmark needed them)");
const nodeBaselines = () => nodeState;

// Databases on tmpfs when there is one: the disk of a shared machine (other tenants' fsyncs)
// would otherwise decide the write figures. Reads come from the page cache either way.
const scratchRoot = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
const work = mkdtempSync(join(scratchRoot, "tidings-bench-"));

export interface Row {
  benchmark: string;
  ours: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: "yes" | "no" | "—";
}

interface Section {
  title: string;
  rows: Row[];
  notes: string[];
  /** Extra text (query plans) shown under the notes. */
  details?: string;
  /** Figures other parts of BENCHMARKS.md work from (the plan of plan.ts). */
  figures?: Record<string, number>;
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "n/a";
const ratioOf = (ours: number, theirs: number) => (theirs > 0 ? ours / theirs : Number.NaN);
/** A ratio with a goal to reach, cut (not rounded) to two places: 0.597 shows as 0.59. */
const notAbove = (ratio: number) =>
  Number.isFinite(ratio) ? (Math.floor(ratio * 100) / 100).toFixed(2) : "n/a";
const yes = (ok: boolean): Row["met"] => (ok ? "yes" : "no");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function log(message: string): void {
  const elapsed = ((performance.now() - runStarted) / 1000).toFixed(0).padStart(4);
  console.log(`[${elapsed}s] ${message}`);
}
const runStarted = performance.now();

let visitorBase = 1_000_000;
/** A fresh range of visitor numbers, so no two runs share a visitor or an address. */
function freshVisitors(): number {
  visitorBase += 1_000_000;
  return visitorBase;
}

async function withServers<T>(
  starts: Array<() => Promise<ServerChild>>,
  body: (servers: ServerChild[]) => Promise<T>,
): Promise<T> {
  const servers: ServerChild[] = [];
  try {
    for (const start of starts) servers.push(await start());
    return await body(servers);
  } finally {
    for (const server of servers) await server.stop();
  }
}

const appServer = (dataDir: string) => () =>
  startServer("app-server.ts", { DATA_DIR: dataDir, SECRET });

/** Alternates load on two servers, `rounds` times each, and keeps every result. */
async function interleaved(
  ours: ServerChild,
  oursPath: string,
  theirs: ServerChild,
  theirsPath: string,
  kind: HttpLoadOptions["kind"],
): Promise<{ ours: HttpLoadResult[]; theirs: HttpLoadResult[] }> {
  const [theirResults = [], ourResults = []] = await interleavedMany(
    [
      { server: theirs, path: theirsPath },
      { server: ours, path: oursPath },
    ],
    kind,
  );
  return { ours: ourResults, theirs: theirResults };
}

/** Load on each server in turn, `rounds` times round the list; the results in list order. */
async function interleavedMany(
  targets: Array<{ server: ServerChild; path: string }>,
  kind: HttpLoadOptions["kind"],
): Promise<HttpLoadResult[][]> {
  const results = targets.map(() => [] as HttpLoadResult[]);
  for (let round = 0; round < HTTP.rounds; round++) {
    for (const [i, { server, path }] of targets.entries()) {
      const into = results[i] as HttpLoadResult[];
      const options: HttpLoadOptions = {
        url: server.url,
        path,
        kind,
        concurrency: HTTP.concurrency,
        warmupMs: HTTP.warmupMs,
        durationMs: HTTP.durationMs,
        serverPid: server.pid,
        firstVisitor: freshVisitors(),
      };
      into.push(await runLoad<HttpLoadResult>("load-http.ts", options));
    }
  }
  return results;
}

function summarizeHttp(results: HttpLoadResult[]) {
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    cpu: median(results.map((r) => r.serverCpu ?? Number.NaN)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    non200: results.reduce(
      (sum, r) =>
        sum +
        Object.entries(r.statuses)
          .filter(([status]) => status !== "200")
          .reduce((s, [, n]) => s + n, 0),
      0,
    ),
  };
}

const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

function planText(title: string, statements: Statement[]): string {
  const lines = [`${title}:`, ""];
  for (const s of statements) {
    lines.push("```sql", s.sql, "```", "```", ...s.plan, "```", "");
  }
  return lines.join("\n");
}

/** The connection settings a server reads back, for comparing a baseline's with openSqlite's. */
const PRAGMAS = ["journal_mode", "synchronous", "foreign_keys", "busy_timeout"] as const;

function ourPragmas(file: string): Record<string, unknown> {
  const sqlite = openSqlite(file);
  try {
    return Object.fromEntries(
      PRAGMAS.map((name) => {
        const row = sqlite.query(`PRAGMA ${name}`).get() as Record<string, unknown> | null;
        return [name, row ? Object.values(row)[0] : undefined];
      }),
    );
  } finally {
    sqlite.close();
  }
}

/** The keys of the card a discover answer carries, in order (tRPC's envelope unwrapped). */
async function cardKeys(url: string): Promise<string> {
  const response = await fetch(url, { headers: { cookie: "visitor=shape-check-0000000000" } });
  const body = (await response.json()) as {
    bottle?: Record<string, unknown> | null;
    result?: { data?: { bottle?: Record<string, unknown> | null } };
  };
  const bottle = body.bottle ?? body.result?.data?.bottle;
  return bottle ? Object.keys(bottle).join(",") : "no bottle";
}

async function discover(): Promise<Section> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const byLabel = new Map<
    string,
    { ours: ReturnType<typeof summarizeHttp>; theirs: ReturnType<typeof summarizeHttp> }
  >();
  let details = "";
  let allIndexed = true;
  let sqlMatches = true;
  const overhead: string[] = [];
  const node = nodeBaselines();
  const expressChecks = new Set<string>();
  for (const size of SIZES) {
    const dir = join(work, `discover-${label(size)}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "tidings.db");
    const seeded = await seed(file, size);
    log(
      `seeded ${fmt(size)} bottles (${fmt(seeded.visible)} visible) in ${seeded.seconds.toFixed(1)} s`,
    );
    const path = await readPath(file);
    const statements = [...path.anonymous, ...path.signedIn];
    if (statements.some((s) => s.plan.some((line) => /\bSCAN\b/.test(line)))) allIndexed = false;
    if (path.anonymous[0]?.sql !== CANDIDATES_SQL || path.anonymous[1]?.sql !== CARD_SQL)
      sqlMatches = false;
    if (size === SIZES[SIZES.length - 1]) {
      details =
        `Query plans on the ${label(size)} database (EXPLAIN QUERY PLAN with the values the statements were bound to):\n\n` +
        planText("An anonymous reader (what the load does)", path.anonymous) +
        "\n" +
        planText(
          "A signed-in reader (the account's own bottles left out too; the card also says whether they liked it)",
          path.signedIn,
        );
    }
    const starts = [appServer(dir), () => startServer("raw-discover.ts", { DB_FILE: file })];
    if (typeof node === "string") {
      starts.push(() =>
        startNodeServer("express-discover.mjs", { DB_FILE: file, CANDIDATES_SQL, CARD_SQL }),
      );
    }
    const measured = await withServers(starts, async ([app, raw, express]) => {
      if (!app || !raw) throw new Error("servers missing");
      if (express) {
        const theirs = JSON.stringify(express.ready.pragmas);
        const mine = JSON.stringify(ourPragmas(file));
        if (theirs !== mine)
          expressChecks.add(
            `WARNING: Express's connection settings ${theirs} differ from ours ${mine}.`,
          );
        const [rawKeys, expressKeys, appKeys] = await Promise.all([
          cardKeys(raw.url),
          cardKeys(express.url),
          cardKeys(`${app.url}/trpc/bottles.discover`),
        ]);
        if (rawKeys !== expressKeys || rawKeys !== appKeys)
          expressChecks.add(
            `WARNING: the answers differ in shape: raw ${rawKeys}; Express ${expressKeys}; ours ${appKeys}.`,
          );
      }
      const targets = [
        { server: raw, path: "/" },
        ...(express ? [{ server: express, path: "/" }] : []),
        { server: app, path: "/trpc/bottles.discover" },
      ];
      const results = await interleavedMany(targets, "discover");
      if (size === SIZES[0]) {
        // What the framework costs on its own, on the same server: an empty tRPC query and
        // a plain route, with the same load.
        for (const [name, route] of [
          ["/healthz (no tRPC, no database)", "/healthz"],
          ["chat.online (tRPC and context, no database)", "/trpc/chat.online"],
        ] as const) {
          const r = await runLoad<HttpLoadResult>("load-http.ts", {
            url: app.url,
            path: route,
            kind: "discover",
            concurrency: HTTP.concurrency,
            warmupMs: HTTP.warmupMs,
            durationMs: HTTP.durationMs,
            serverPid: app.pid,
            firstVisitor: freshVisitors(),
          } satisfies HttpLoadOptions);
          overhead.push(
            `${name}: ${fmt(r.rps)} requests/s, about ${fmt(((r.serverCpu ?? 0) / r.rps) * 1e6)} µs of CPU per request`,
          );
        }
      }
      return {
        theirs: results[0] ?? [],
        express: express ? (results[1] ?? []) : undefined,
        ours: results[results.length - 1] ?? [],
      };
    });
    const ours = summarizeHttp(measured.ours);
    const theirs = summarizeHttp(measured.theirs);
    byLabel.set(label(size), { ours, theirs });
    const ratio = ratioOf(ours.rps, theirs.rps);
    rows.push({
      benchmark: `Discover, ${label(size)} bottles: requests/s (${HTTP.concurrency} concurrent)`,
      ours: fmt(ours.rps),
      baseline: `${fmt(theirs.rps)} (raw bun:sqlite)`,
      ratio: notAbove(ratio),
      goal: `≥ ${DISCOVER_GOAL}`,
      met: yes(ratio >= DISCOVER_GOAL),
    });
    rows.push({
      benchmark: `Discover, ${label(size)} bottles: p50 / p99 ms`,
      ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
      baseline: `${theirs.p50.toFixed(1)} / ${theirs.p99.toFixed(1)}`,
      ratio: ratioOf(ours.p99, theirs.p99).toFixed(2),
      goal: "—",
      met: "—",
    });
    const cpuPer = (s: ReturnType<typeof summarizeHttp>) => fmt((s.cpu / s.rps) * 1e6);
    let expressNote = "";
    if (measured.express) {
      const express = summarizeHttp(measured.express);
      const vsExpress = ratioOf(ours.rps, express.rps);
      rows.push({
        benchmark: `Discover, ${label(size)} bottles, same SQL on Express + better-sqlite3 (Node): requests/s`,
        ours: fmt(ours.rps),
        baseline: `${fmt(express.rps)} (Express)`,
        ratio: notAbove(vsExpress),
        goal: "≥ 1.0",
        met: yes(vsExpress >= 1),
      });
      expressNote =
        `; Express ${fmt(express.rps)} requests/s, p50 / p99 ${express.p50.toFixed(1)} / ${express.p99.toFixed(1)} ms, server CPU ${express.cpu.toFixed(2)} cores, about ${cpuPer(express)} µs per request, ` +
        `rounds ${measured.express.map((r) => fmt(r.rps)).join(", ")}` +
        (express.non200 + express.errors > 0
          ? `, ${express.non200} non-200 answers and ${express.errors} errors`
          : "");
    }
    notes.push(
      `${label(size)}: server CPU ${ours.cpu.toFixed(2)} cores (ours) and ${theirs.cpu.toFixed(2)} (raw), ` +
        `about ${cpuPer(ours)} µs and ${cpuPer(theirs)} µs of CPU per request; ` +
        `rounds: ours ${measured.ours.map((r) => fmt(r.rps)).join(", ")}; raw ${measured.theirs.map((r) => fmt(r.rps)).join(", ")}` +
        expressNote +
        (ours.non200 + ours.errors > 0
          ? `; ${ours.non200} non-200 answers, ${ours.errors} errors (ours)`
          : ""),
    );
  }
  const first = byLabel.get(label(SIZES[0] ?? 0));
  const last = byLabel.get(label(SIZES[SIZES.length - 1] ?? 0));
  if (first && last) {
    const growth = ratioOf(last.ours.p99, first.ours.p99);
    rows.push({
      benchmark: `Discover: p99 at ${label(SIZES[SIZES.length - 1] ?? 0)} ÷ p99 at ${label(SIZES[0] ?? 0)}`,
      ours: growth.toFixed(2),
      baseline: ratioOf(last.theirs.p99, first.theirs.p99).toFixed(2),
      ratio: "—",
      goal: "flat (≤ 1.5)",
      met: yes(growth <= 1.5),
    });
  }
  rows.push({
    benchmark: "Discover: every query on the read path uses an index (no full scan)",
    ours: allIndexed ? "yes" : "no",
    baseline: "same SQL",
    ratio: "—",
    goal: "index, no scan",
    met: yes(allIndexed),
  });
  notes.push(`Framework cost on the same server (10k run): ${overhead.join("; ")}.`);
  if (typeof node === "string") {
    notes.push(
      `Express ${NODE_PACKAGES.express} and better-sqlite3 ${NODE_PACKAGES["better-sqlite3"]} under Node ${node}, one process, Express's defaults (ETag, X-Powered-By): the raw baseline's SQL handed over as it is, the same database file and connection settings (read back and compared), the same JSON answer (its keys compared with the raw baseline's and ours).`,
      ...expressChecks,
    );
  } else {
    notes.push(`No Express comparison: ${node.message}`);
  }
  notes.push(
    sqlMatches
      ? "The raw baseline and Express run the very SQL discoverBottle runs (captured from it on each database)."
      : "WARNING: the raw baseline's SQL no longer matches what discoverBottle runs.",
  );
  return { title: "Discover read path", rows, notes, details };
}

/**
 * Discover on PostgreSQL: the app on a throwaway PostgreSQL server (with Redis, which a
 * PostgreSQL site requires) against the same two statements through postgres.js alone, on the
 * same rows as the SQLite benchmark, interleaved the same way.
 */
async function discoverPg(): Promise<Section> {
  const rows: Row[] = [];
  const notes: string[] = [];
  let details = "";
  let sqlMatches = true;
  let allIndexed = true;
  // Other work on a shared machine moves these figures more than SQLite's (more processes).
  const loadAverage = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(", ");
  // A folder of its own beside the others: the postgres user must reach it, and not `work`.
  const cluster = startCluster(mkdtempSync(join(scratchRoot, "tidings-bench-pg-")));
  try {
    for (const size of SIZES) {
      const started = performance.now();
      const dir = join(work, `discover-pg-${label(size)}`);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "seed.db");
      const seeded = await seed(file, size);
      const url = await createDatabase(cluster.adminUrl, `bench_${label(size).toLowerCase()}`);
      await copySeed(file, url);
      log(
        `seeded PostgreSQL with ${fmt(size)} bottles (${fmt(seeded.visible)} visible) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      const path = await readPathPostgres(url);
      const statements = [...path.anonymous, ...path.signedIn];
      if (statements.some((s) => s.plan.some((line) => /Seq Scan on bottles\b/.test(line))))
        allIndexed = false;
      if (path.anonymous[0]?.sql !== CANDIDATES_SQL_PG || path.anonymous[1]?.sql !== CARD_SQL_PG)
        sqlMatches = false;
      if (size === SIZES[SIZES.length - 1]) {
        details =
          `Query plans on the ${label(size)} PostgreSQL database (EXPLAIN with the values the statements were bound to):\n\n` +
          planText("An anonymous reader (what the load does)", path.anonymous) +
          "\n" +
          planText("A signed-in reader", path.signedIn);
      }
      const measured = await withServers(
        [
          () =>
            startServer("app-server.ts", {
              DATA_DIR: dir,
              SECRET,
              DB_URL: url,
              REDIS_URL: cluster.redisUrl,
            }),
          () => startServer("raw-discover-pg.ts", { DB_URL: url }),
        ],
        ([app, raw]) => {
          if (!app || !raw) throw new Error("servers missing");
          return interleaved(app, "/trpc/bottles.discover", raw, "/", "discover");
        },
      );
      const ours = summarizeHttp(measured.ours);
      const theirs = summarizeHttp(measured.theirs);
      const ratio = ratioOf(ours.rps, theirs.rps);
      rows.push({
        benchmark: `Discover on PostgreSQL, ${label(size)} bottles: requests/s (${HTTP.concurrency} concurrent)`,
        ours: fmt(ours.rps),
        baseline: `${fmt(theirs.rps)} (raw postgres.js)`,
        ratio: notAbove(ratio),
        goal: "—",
        met: "—",
      });
      rows.push({
        benchmark: `Discover on PostgreSQL, ${label(size)} bottles: p50 / p99 ms`,
        ours: `${ours.p50.toFixed(1)} / ${ours.p99.toFixed(1)}`,
        baseline: `${theirs.p50.toFixed(1)} / ${theirs.p99.toFixed(1)}`,
        ratio: ratioOf(ours.p99, theirs.p99).toFixed(2),
        goal: "—",
        met: "—",
      });
      notes.push(
        `${label(size)}: app server CPU ${ours.cpu.toFixed(2)} cores (ours) and ${theirs.cpu.toFixed(2)} (raw), ` +
          `about ${fmt((ours.cpu / ours.rps) * 1e6)} µs and ${fmt((theirs.cpu / theirs.rps) * 1e6)} µs per request, not counting PostgreSQL's own processes; ` +
          `rounds: ours ${measured.ours.map((r) => fmt(r.rps)).join(", ")}; raw ${measured.theirs.map((r) => fmt(r.rps)).join(", ")}` +
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
    ratio: "—",
    goal: "index, no scan",
    met: yes(allIndexed),
  });
  notes.push(
    "A throwaway PostgreSQL 15 (Debian's package, fsync off, data on tmpfs) on the same two cores as the servers and the load generator; both servers use a postgres.js pool of 10 connections with int8 read as numbers (db/connection.ts). Ours goes through Kysely's kysely-postgres-js dialect, which reserves a pooled connection per query; the raw baseline sends the two statements on the pool directly. Both use prepared statements.",
    "The rows are the SQLite benchmark's seed, copied as they are; no goal is set for this row yet.",
    `Load average (1, 5, 15 min) when this benchmark started: ${loadAverage}, on ${cpus().length} cores.`,
  );
  notes.push(
    sqlMatches
      ? "The raw baseline runs the very SQL discoverBottle runs on PostgreSQL (captured from Kysely's log each run)."
      : "WARNING: the raw baseline's SQL no longer matches what discoverBottle runs on PostgreSQL.",
  );
  return { title: "Discover read path on PostgreSQL", rows, notes, details };
}

async function write(): Promise<Section> {
  const source = join(work, "write-seed.db");
  await seed(source, 10_000);
  const appDir = join(work, "write-app");
  const rawDir = join(work, "write-raw");
  for (const dir of [appDir, rawDir]) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(source, join(dir, "tidings.db"));
  }
  const sql = await writePathSql();
  const measured = await withServers(
    [
      appServer(appDir),
      () => startServer("raw-insert.ts", { DB_FILE: join(rawDir, "tidings.db") }),
    ],
    ([app, raw]) => {
      if (!app || !raw) throw new Error("servers missing");
      return interleaved(app, "/trpc/bottles.throw", raw, "/insert", "throw");
    },
  );
  const ours = summarizeHttp(measured.ours);
  const theirs = summarizeHttp(measured.theirs);
  const ratio = ratioOf(ours.rps, theirs.rps);
  // The parts of a throw that the raw insert leaves out, timed in this process.
  const moderator = new LocalModerator();
  const message =
    "Hello from the other side of the sea. I hope whoever finds this is having a calm evening. Take care.";
  for (let i = 0; i < 500; i++) moderator.checkNow(message);
  const t = performance.now();
  for (let i = 0; i < 5000; i++) moderator.checkNow(message);
  const moderationUs = ((performance.now() - t) / 5000) * 1000;
  return {
    title: "Write path",
    rows: [
      {
        benchmark: `Throw a bottle (validation, rate limits, moderation, country): requests/s (${HTTP.concurrency} concurrent)`,
        ours: fmt(ours.rps),
        baseline: `${fmt(theirs.rps)} (raw insert)`,
        ratio: notAbove(ratio),
        goal: "≥ 0.5",
        met: yes(ratio >= 0.5),
      },
      {
        benchmark: "Throw a bottle: p50 / p99 ms",
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${theirs.p50.toFixed(1)} / ${theirs.p99.toFixed(1)}`,
        ratio: ratioOf(ours.p99, theirs.p99).toFixed(2),
        goal: "—",
        met: "—",
      },
    ],
    notes: [
      `Server CPU ${ours.cpu.toFixed(2)} cores (ours) and ${theirs.cpu.toFixed(2)} (raw): about ${fmt((ours.cpu / ours.rps) * 1e6)} µs and ${fmt((theirs.cpu / theirs.rps) * 1e6)} µs of CPU per request; rounds: ours ${measured.ours.map((r) => fmt(r.rps)).join(", ")}; raw ${measured.theirs.map((r) => fmt(r.rps)).join(", ")}.`,
      `Every request is a different visitor with its own public address (so the country lookup runs and no rate limit is reached); ${ours.non200} answers of ours were not 200.`,
      `The local moderation of one benchmark message takes ${moderationUs.toFixed(0)} µs in this process (word lists in eight languages and the spam checks); the raw insert does none of it.`,
      sql[0] === INSERT_SQL
        ? "The raw baseline runs the same INSERT statement as throwBottle."
        : "WARNING: the raw baseline's INSERT no longer matches throwBottle's.",
    ],
  };
}

/** The chat server for a mode: ours, the raw Bun relay, or the Socket.IO relay under Node. */
function chatServer(mode: ChatMode, name: string): () => Promise<ServerChild> {
  if (mode === "raw") return () => startServer("raw-relay.ts");
  if (mode === "sio") return () => startNodeServer("socketio-relay.mjs");
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return appServer(dir);
}

/** One chat load against a fresh server of each mode, one after another. */
async function chatLoad(
  mode: ChatMode,
  pairs: number,
  rate: number,
  durationMs: number,
): Promise<ChatLoadResult> {
  return withServers([chatServer(mode, `chat-${mode}-${pairs}-${rate}`)], async ([server]) => {
    if (!server) throw new Error("server missing");
    const options: ChatLoadOptions = {
      url: server.url,
      mode,
      pairs,
      rate,
      warmupMs: CHAT.warmupMs,
      durationMs,
      serverPid: server.pid,
      firstVisitor: freshVisitors(),
    };
    const r = await runLoad<ChatLoadResult>("load-chat.ts", options, 180_000);
    // Nothing delivered in the window (a stalled server) leaves no latency: count it as endless.
    for (const key of ["p50", "p99", "max"] as const) {
      if (typeof r[key] !== "number" || !Number.isFinite(r[key])) r[key] = Number.POSITIVE_INFINITY;
    }
    return r;
  });
}

/** Milliseconds to one place, or "none" when nothing was delivered to time. */
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "none");

/** The round with the median p99 (the higher middle one of an even count). */
function medianRound(results: ChatLoadResult[]): ChatLoadResult {
  const sorted = [...results].sort((a, b) => a.p99 - b.p99);
  return sorted[Math.floor(sorted.length / 2)] as ChatLoadResult;
}

/** Kept up: every message delivered, no error answer, the offered rate sent, p99 ≤ 100 ms. */
function sustained(r: ChatLoadResult): boolean {
  return r.errors === 0 && r.lost === 0 && r.sentRate >= 0.95 * r.offered && r.p99 <= 100;
}

async function highestRate(
  mode: ChatMode,
  steps: number[],
): Promise<{ best: number; tried: string[] }> {
  let best = 0;
  const tried: string[] = [];
  for (const rate of steps) {
    // Five messages a second per visitor, the flood gate's steady rate; beyond 4,000 pairs
    // (8,000 sockets) the raw relay, which has no gate, gets more per visitor instead.
    const pairs = Math.min(4000, Math.ceil(rate / 10));
    let r = await chatLoad(mode, pairs, rate, quick ? 1500 : 2000);
    // A step that falls behind is tried once more before the climb stops: on a shared machine
    // one burst of other work can stall a step that the server keeps up with.
    let retried = false;
    if (!sustained(r) && !quick) {
      retried = true;
      r = await chatLoad(mode, pairs, rate, 2000);
    }
    const ok = sustained(r);
    tried.push(
      `${fmt(rate)}/s with ${fmt(pairs)} pairs: ${ok ? "kept up" : "fell behind"}${retried ? " at the second try" : ""} (sent ${fmt(r.sentRate)}/s${r.skipped > 0 ? ` (${fmt(r.skipped)} skipped by a late generator)` : ""}, p99 ${r.p99} ms, lost ${r.lost}, errors ${r.errors}, server CPU ${r.serverCpu}, ≈ ${perMessage(r)} µs per message, generator CPU ${r.clientCpu})`,
    );
    log(`  ${mode} ${tried[tried.length - 1]}`);
    if (!ok) break;
    best = rate;
  }
  return { best, tried };
}

/** Server CPU per message sent, in µs. */
const perMessage = (r: ChatLoadResult) => fmt(((r.serverCpu ?? 0) / r.sentRate) * 1e6);

async function chat(): Promise<Section> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const node = nodeBaselines();
  const withSio = typeof node === "string";
  const summaryOf = (name: string, r: ChatLoadResult) =>
    `${name} sent ${fmt(r.sentRate)}/s${r.skipped > 0 ? ` (${fmt(r.skipped)} skipped by a late generator)` : ""}, delivered ${fmt(r.delivered)} of ${fmt(r.sent)}, ${r.errors} errors, p50 / p99 / max ${r.p50} / ${r.p99} / ${r.max} ms, server CPU ${r.serverCpu} cores (≈ ${perMessage(r)} µs per message), generator CPU ${r.clientCpu}${r.firstError ? ` (first error: ${r.firstError.slice(0, 160)})` : ""}`;
  for (const [pairs, rate, goal] of [
    [100, 1000, undefined],
    [1000, 10_000, 10],
  ] as const) {
    // Rounds in turn (raw, Socket.IO, ours), each on fresh servers; the round with the median
    // p99 stands for each server, so that one burst of other work on the machine moves no row.
    const modes: ChatMode[] =
      goal !== undefined && withSio ? ["raw", "sio", "app"] : ["raw", "app"];
    const rounds = new Map<ChatMode, ChatLoadResult[]>(modes.map((m) => [m, []]));
    for (let round = 0; round < CHAT.rounds; round++) {
      for (const mode of modes) {
        rounds.get(mode)?.push(await chatLoad(mode, pairs, rate, CHAT.durationMs));
      }
    }
    const [theirs, sio, ours] = (["raw", "sio", "app"] as const).map((mode) => {
      const results = rounds.get(mode);
      return results && results.length > 0 ? medianRound(results) : undefined;
    });
    if (!theirs || !ours) throw new Error("chat rounds missing");
    const everyRound = (mode: ChatMode) => (rounds.get(mode) ?? []).every((r) => sustained(r));
    const p99s = (mode: ChatMode) => (rounds.get(mode) ?? []).map((r) => r.p99).join(", ");
    log(
      `chat ${pairs} pairs at ${rate}/s: ours p99 ${p99s("app")} ms, raw p99 ${p99s("raw")} ms${sio ? `, Socket.IO p99 ${p99s("sio")} ms` : ""}`,
    );
    rows.push({
      benchmark: `Chat relay, ${fmt(pairs)} pairs at ${fmt(rate)} msg/s: delivery p50 / p99 ms`,
      ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
      baseline: `${ms(theirs.p50)} / ${ms(theirs.p99)} (raw relay)`,
      ratio: ratioOf(ours.p99, theirs.p99).toFixed(1),
      goal: goal === undefined ? "—" : `p99 ≤ ${goal} ms`,
      met: goal === undefined ? "—" : yes(ours.p99 <= goal && everyRound("app")),
    });
    if (sio) {
      rows.push({
        benchmark: `Chat relay, ${fmt(pairs)} pairs at ${fmt(rate)} msg/s, Socket.IO 4 relay (Node): delivery p50 / p99 ms`,
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${ms(sio.p50)} / ${ms(sio.p99)} (Socket.IO)`,
        ratio: ratioOf(ours.p99, sio.p99).toFixed(1),
        goal: "p99 ≤ its p99",
        met: yes(ours.p99 <= sio.p99 && everyRound("app")),
      });
    }
    notes.push(
      `${fmt(pairs)} pairs at ${fmt(rate)}/s, the median of ${CHAT.rounds} round${CHAT.rounds > 1 ? "s" : ""} (p99 of each: ours ${p99s("app")}; raw ${p99s("raw")}${sio ? `; Socket.IO ${p99s("sio")}` : ""} ms): ${summaryOf("ours", ours)}; ${summaryOf("raw relay", theirs)}${sio ? `; ${summaryOf("Socket.IO", sio)}` : ""}.`,
    );
  }
  const appSteps = quick
    ? [10_000, 15_000, 20_000]
    : [10_000, 12_500, 15_000, 17_500, 20_000, 25_000, 30_000, 40_000];
  const rawSteps = quick
    ? [10_000, 20_000, 40_000]
    : [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 80_000];
  const ours = await highestRate("app", appSteps);
  const theirs = await highestRate("raw", rawSteps);
  // Socket.IO climbs the same steps as ours, with the same number of visitors at each.
  const sio = withSio ? await highestRate("sio", appSteps) : undefined;
  const ratio = ratioOf(ours.best, theirs.best);
  rows.push({
    benchmark: "Chat relay: highest rate kept up (msg/s, 5 msg/s per visitor)",
    ours: fmt(ours.best),
    baseline: `${fmt(theirs.best)} (raw relay)`,
    ratio: notAbove(ratio),
    goal: `≥ ${CHAT_MAX_GOAL}`,
    met: yes(ratio >= CHAT_MAX_GOAL),
  });
  if (sio) {
    const vsSio = ratioOf(ours.best, sio.best);
    rows.push({
      benchmark: "Chat relay: highest rate kept up, Socket.IO 4 relay (Node) (msg/s)",
      ours: fmt(ours.best),
      baseline: `${fmt(sio.best)} (Socket.IO)`,
      ratio: notAbove(vsSio),
      goal: "≥ its rate",
      met: yes(vsSio >= 1),
    });
  }
  notes.push(
    "Kept up means: every message delivered, no error answer, at least 95% of the offered rate sent, p99 ≤ 100 ms. Steps stop at the first that falls behind twice in a row. A generator more than 50 ms late (its core taken) skips the messages it is late with instead of sending them in one burst, so a starved generator shows as a lower sent rate, not as flood-gate refusals.",
    `Ours: ${ours.tried.join("; ")}.`,
    `Raw relay: ${theirs.tried.join("; ")}.`,
  );
  if (sio) {
    notes.push(
      `Socket.IO: ${sio.tried.join("; ")}.`,
      `Socket.IO ${NODE_PACKAGES["socket.io"]} under Node ${node} (node/socketio-relay.mjs: WebSocket transport only, its defaults otherwise): pairs first come, first served; each message goes to the partner and back to the sender as an event, two frames, where ours sends three (the mutation's answer, the sender's copy and the partner's). The same generator speaks its protocol over a plain WebSocket.`,
    );
  } else {
    notes.push(`No Socket.IO comparison: ${(node as Error).message}`);
  }
  return { title: "Chat relay", rows, notes };
}

async function match(): Promise<Section> {
  const run = async (mode: "app" | "raw") => {
    const dir = join(work, `match-${mode}`);
    mkdirSync(dir, { recursive: true });
    const start = mode === "app" ? appServer(dir) : () => startServer("raw-relay.ts");
    return withServers([start], ([server]) => {
      if (!server) throw new Error("server missing");
      return runLoad<MatchLoadResult>("load-match.ts", {
        url: server.url,
        mode,
        visitors: 2000,
        spreadMs: 1000,
        firstVisitor: freshVisitors(),
      } satisfies MatchLoadOptions);
    });
  };
  const theirs = await run("raw");
  const ours = await run("app");
  const exactlyOnce = (r: MatchLoadResult) =>
    r.matchedOnce === r.visitors &&
    r.badChats === 0 &&
    r.chats === r.visitors / 2 &&
    r.errors === 0;
  return {
    title: "Matching",
    rows: [
      {
        benchmark: "Matching: 2,000 visitors press start within 1 s: paired exactly once",
        ours: `${fmt(ours.matchedOnce)} of ${fmt(ours.visitors)} in ${fmt(ours.chats)} chats`,
        baseline: `${fmt(theirs.matchedOnce)} of ${fmt(theirs.visitors)}`,
        ratio: "—",
        goal: "everyone, once",
        met: yes(exactlyOnce(ours)),
      },
      {
        benchmark: "Matching: partner available → 'matched', p50 / p99 ms",
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${ms(theirs.p50)} / ${ms(theirs.p99)} (raw relay)`,
        ratio: ratioOf(ours.p99, theirs.p99).toFixed(1),
        goal: "p99 ≤ 50 ms",
        met: yes(ours.p99 <= 50),
      },
    ],
    notes: [
      `Presses took ${ours.pressSeconds} s; unmatched ${ours.unmatched}, matched twice ${ours.matchedTwice}, chats with other than two visitors ${ours.badChats}, error answers ${ours.errors}; max ${ours.max} ms (raw relay max ${theirs.max} ms).`,
      "A partner is available from the later of the two presses (measured where it was sent); the time runs to that visitor's 'matched' event.",
    ],
  };
}

async function memory(): Promise<Section> {
  const visitors = 5000;
  const run = async (mode: "app" | "raw") => {
    const dir = join(work, `memory-${mode}`);
    mkdirSync(dir, { recursive: true });
    const start = mode === "app" ? appServer(dir) : () => startServer("raw-relay.ts");
    return withServers([start], async ([server]) => {
      if (!server) throw new Error("server missing");
      // One page load and one chat socket first, so what is measured is idle, not first use.
      await fetch(`${server.url}/healthz`);
      await sleep(1500);
      const idle = rssKiB(server.pid);
      const load = await startServer(
        "load-idle.ts",
        {},
        [
          JSON.stringify({
            url: server.url,
            mode,
            visitors,
            firstVisitor: freshVisitors(),
          } satisfies IdleLoadOptions),
        ],
        120_000,
      );
      try {
        await sleep(2000);
        const connected = rssKiB(server.pid);
        return { idle, connected, perVisitor: (connected - idle) / visitors };
      } finally {
        await load.stop();
      }
    });
  };
  const theirs = await run("raw");
  const ours = await run("app");
  return {
    title: "Memory",
    rows: [
      {
        benchmark: `Resident memory per idle connected chat visitor at ${fmt(visitors)} (KiB)`,
        ours: ours.perVisitor.toFixed(1),
        baseline: `${theirs.perVisitor.toFixed(1)} (raw relay)`,
        ratio: ratioOf(ours.perVisitor, theirs.perVisitor).toFixed(1),
        goal: "≤ 30 KB",
        met: yes(ours.perVisitor * 1.024 <= 30),
      },
      {
        benchmark: "Idle server resident memory (MiB)",
        ours: (ours.idle / 1024).toFixed(0),
        baseline: `${(theirs.idle / 1024).toFixed(0)} (raw relay)`,
        ratio: ratioOf(ours.idle, theirs.idle).toFixed(1),
        goal: "—",
        met: "—",
      },
    ],
    notes: [
      `VmRSS of the server before and 2 s after ${fmt(visitors)} visitors connected and subscribed to their chat stream: ours ${fmt(ours.idle)} → ${fmt(ours.connected)} KiB, raw relay ${fmt(theirs.idle)} → ${fmt(theirs.connected)} KiB. The idle figure includes the bundled front end, the word lists and the country database, all held in memory.`,
    ],
  };
}

async function frontend(): Promise<Section> {
  const dir = join(work, "frontend");
  mkdirSync(dir, { recursive: true });
  const r: FrontendResult = await withServers([appServer(dir)], ([app]) => {
    if (!app) throw new Error("server missing");
    return measureFrontend(app.url, quick ? 3 : 5);
  });
  const kb = (bytes: number) => (bytes / 1000).toFixed(1);
  const rows: Row[] = [
    {
      benchmark: "Front end: gzip of the JS and CSS the first load of /en fetches (KB)",
      ours: kb(r.gzipTotal),
      baseline: `${kb(r.baselineGzip)} (smallest React app)`,
      ratio: ratioOf(r.gzipTotal, r.baselineGzip).toFixed(1),
      goal: "≤ 200 KB",
      met: yes(r.gzipTotal <= 200_000),
    },
  ];
  for (const [page, fcp] of Object.entries(r.fcp)) {
    rows.push({
      benchmark: `First contentful paint of ${page}, headless Chromium (ms)`,
      ours: fmt(fcp.median),
      baseline: `${fmt(r.baselineFcp.median)} (static page of the same size)`,
      ratio: ratioOf(fcp.median, r.baselineFcp.median).toFixed(1),
      goal: "—",
      met: "—",
    });
  }
  return {
    title: "Front end",
    rows,
    notes: [
      `First load of /en: ${r.assets.length} files, ${kb(r.rawTotal)} KB minified, ${kb(r.gzipTotal)} KB as the server sends them gzipped (made at build time); largest: ${[
        ...r.assets,
      ]
        .sort((a, b) => b.gzip - a.gzip)
        .slice(0, 5)
        .map((a) => `${a.path} ${kb(a.bytes)} KB (${kb(a.gzip)} KB gzip)`)
        .join(
          ", ",
        )}. HTML ${kb(r.htmlBytes)} KB, ${kb(r.domBytes)} KB once rendered (the size of the static baseline page).`,
      `The first load's scripts by package, minified bytes before gzip (metafile of the same build): ${r.composition
        .slice(0, 12)
        .map((c) => `${c.name} ${kb(c.bytes)} KB`)
        .join(
          ", ",
        )}. Left for later (other pages, the other language, the header menus' Radix code): ${kb(r.deferredBytes)} KB of script.`,
      `FCP samples (ms), each from a fresh browser context: ${Object.entries(r.fcp)
        .map(([page, f]) => `${page} ${f.samples.join(", ")}`)
        .join("; ")}; static page ${r.baselineFcp.samples.join(", ")}.`,
    ],
  };
}

async function binary(): Promise<Section> {
  const r: BinaryResult = await measureBinary(quick ? 2 : 5);
  return {
    title: "Self-hosted binary",
    rows: [
      {
        benchmark: "Compiled binary size, `bun run build` (MB)",
        ours: (r.bytes / 1e6).toFixed(1),
        baseline: `${(r.baselineBytes / 1e6).toFixed(1)} (compiled hello server)`,
        ratio: ratioOf(r.bytes, r.baselineBytes).toFixed(2),
        goal: "—",
        met: "—",
      },
      {
        benchmark: "Binary: start in an empty folder with --port 0 → healthy /healthz (ms)",
        ours: fmt(r.startMs.median),
        baseline: `${fmt(r.baselineStartMs.median)} (compiled hello server)`,
        ratio: ratioOf(r.startMs.median, r.baselineStartMs.median).toFixed(1),
        goal: "—",
        met: "—",
      },
    ],
    notes: [
      `Build took ${r.buildSeconds} s. Start samples (ms): ours ${r.startMs.samples.join(", ")}; hello ${r.baselineStartMs.samples.join(", ")}. A first start also creates the database, runs the migrations and writes the secret.`,
    ],
  };
}

// ---- Past one machine (issue 14): instances on one PostgreSQL and one Redis ----

/** A throwaway PostgreSQL and Redis for one section, with a migrated (and maybe seeded) database. */
interface ClusterSite {
  redisUrl: string;
  dbUrl: string;
  /** PostgreSQL's postmaster, whose processes the probes add up. */
  postmaster: number;
  stop(): void;
}

async function openSite(name: string, bottles = 0): Promise<ClusterSite> {
  // A folder of its own beside the others: the postgres user must reach it, and not `work`.
  const cluster = startCluster(mkdtempSync(join(scratchRoot, "tidings-bench-pg-")));
  try {
    const dbUrl = await createDatabase(cluster.adminUrl, `bench_${name.replace(/\W/g, "_")}`);
    if (bottles > 0) {
      const file = join(work, `${name}-seed.db`);
      await seed(file, bottles);
      await copySeed(file, dbUrl);
    }
    return {
      redisUrl: cluster.redisUrl,
      dbUrl,
      postmaster: await postmasterPid(dbUrl),
      stop: () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

let sites = 0;
/**
 * `count` instances of one site, as an operator runs them: one database, one Redis, one key
 * prefix (fresh for each call, so runs do not meet in the pool) and one secret.
 */
function instancesOf(site: ClusterSite, count: number, name: string) {
  const id = ++sites;
  const prefix = `bench-${id}-${name}:`;
  const starts = Array.from({ length: count }, (_, i) => () => {
    const dir = join(work, `${name}-${id}-${i}`);
    mkdirSync(dir, { recursive: true });
    return startServer("app-server.ts", {
      DATA_DIR: dir,
      SECRET,
      DB_URL: site.dbUrl,
      REDIS_URL: site.redisUrl,
      REDIS_PREFIX: prefix,
    });
  });
  return { prefix, starts };
}

/** `count` raw Redis relays (raw-redis-relay.ts) sharing one Redis and one prefix. */
function rawRedisRelays(site: ClusterSite, count: number, name: string) {
  const prefix = `bench-${++sites}-${name}:`;
  const starts = Array.from(
    { length: count },
    () => () =>
      startServer("raw-redis-relay.ts", { REDIS_URL: site.redisUrl, REDIS_PREFIX: prefix }),
  );
  return { prefix, starts };
}

/** The result whose `key` is the median of the list (the higher middle one of an even count). */
function medianBy<T>(results: T[], key: (r: T) => number): T {
  const sorted = [...results].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor(sorted.length / 2)] as T;
}

/**
 * What `ops` operations cost beyond the quiet seconds measured just before them (presence
 * refreshes and sweeps, which run whether or not anyone does anything): µs of CPU each and Redis
 * commands each, by name too.
 */
function perOperation(
  window: ProbeResult | null | undefined,
  idle: ProbeResult | null | undefined,
  ops: number,
) {
  const none = Number.NaN;
  if (!window || ops <= 0) {
    return { serverUs: none, postgresUs: none, redisUs: none, redisCommands: none, byCommand: {} };
  }
  const us = (cores: number | null | undefined, quiet: number | null | undefined) =>
    cores === null || cores === undefined
      ? none
      : (Math.max(0, cores - (quiet ?? 0)) * window.seconds * 1e6) / ops;
  const scale = idle ? window.seconds / idle.seconds : 0;
  const byCommand: Record<string, number> = {};
  for (const [name, calls] of Object.entries(window.redis?.byCommand ?? {})) {
    const net = (calls - (idle?.redis?.byCommand[name] ?? 0) * scale) / ops;
    if (net >= 0.05) byCommand[name] = Math.round(net * 10) / 10;
  }
  return {
    serverUs: us(window.serverCpu, idle?.serverCpu),
    postgresUs: us(window.postgresCpu, idle?.postgresCpu),
    redisUs: us(window.redis?.cpu, idle?.redis?.cpu),
    redisCommands: window.redis
      ? (window.redis.commands - (idle?.redis?.commands ?? 0) * scale) / ops
      : none,
    byCommand,
  };
}

const commandList = (byCommand: Record<string, number>) =>
  Object.entries(byCommand)
    .map(([name, count]) => `${name.toUpperCase()} ${count}`)
    .join(", ");

/**
 * Matching across two instances: 2,000 visitors spread over both press start within a second;
 * the baseline is the same load on one instance with the in-memory chat (SQLite, no Redis).
 * Two raw Redis relays (raw-redis-relay.ts) pair the same load too, for the notes.
 */
async function matchCluster(): Promise<Section> {
  const visitors = 2000;
  const rounds = quick ? 1 : 3;
  const load = (urls: string[], mode: ChatMode, probe: ProbeTargets, spreadMs = 1000) =>
    runLoad<MatchLoadResult>("load-match.ts", {
      url: urls[0] ?? "",
      urls: urls.length > 1 ? urls : undefined,
      mode,
      visitors,
      spreadMs,
      firstVisitor: freshVisitors(),
      probe,
    } satisfies MatchLoadOptions);
  const site = await openSite("match_cluster");
  const memory: MatchLoadResult[] = [];
  const cluster: MatchLoadResult[] = [];
  const raw: MatchLoadResult[] = [];
  const writes: Array<{ rows: Record<string, number>; walBytes: number }> = [];
  let slower: MatchLoadResult | undefined;
  try {
    for (let round = 0; round < rounds; round++) {
      const dir = join(work, `match-memory-${round}`);
      mkdirSync(dir, { recursive: true });
      memory.push(
        await withServers([appServer(dir)], ([one]) => {
          if (!one) throw new Error("server missing");
          return load([one.url], "app", { servers: [one.pid] });
        }),
      );
      raw.push(
        await withServers(rawRedisRelays(site, 2, "match-raw").starts, ([a, b]) => {
          if (!a || !b) throw new Error("servers missing");
          return load([a.url, b.url], "raw", { servers: [a.pid, b.pid], redisUrl: site.redisUrl });
        }),
      );
      cluster.push(
        await withServers(instancesOf(site, 2, "match").starts, async ([a, b]) => {
          if (!a || !b) throw new Error("servers missing");
          const mark = await writeMark(site.dbUrl);
          const r = await load([a.url, b.url], "app", {
            servers: [a.pid, b.pid],
            redisUrl: site.redisUrl,
            postgres: site.postmaster,
          });
          writes.push(await writesSince(site.dbUrl, mark));
          return r;
        }),
      );
      log(
        `  match across two instances, round ${round + 1}: p99 ${cluster[round]?.p99} ms; one in-memory instance ${memory[round]?.p99} ms; raw Redis relays ${raw[round]?.p99} ms`,
      );
    }
    // The same visitors pressing over 4 s instead of 1: how the wait depends on the rate.
    slower = await withServers(instancesOf(site, 2, "match-slow").starts, ([a, b]) => {
      if (!a || !b) throw new Error("servers missing");
      return load(
        [a.url, b.url],
        "app",
        { servers: [a.pid, b.pid], redisUrl: site.redisUrl, postgres: site.postmaster },
        4000,
      );
    });
  } finally {
    site.stop();
  }
  const ours = medianBy(cluster, (r) => r.p99);
  const theirs = medianBy(memory, (r) => r.p99);
  const rawOne = medianBy(raw, (r) => r.p99);
  const exactlyOnce = (r: MatchLoadResult) =>
    r.matchedOnce === r.visitors &&
    r.badChats === 0 &&
    r.chats === r.visitors / 2 &&
    r.errors === 0;
  const costs = cluster.map((r) => perOperation(r.probe, r.idle, r.visitors));
  const cost = {
    serverUs: median(costs.map((c) => c.serverUs)),
    postgresUs: median(costs.map((c) => c.postgresUs)),
    redisUs: median(costs.map((c) => c.redisUs)),
    redisCommands: median(costs.map((c) => c.redisCommands)),
  };
  const byCommand = perOperation(ours.probe, ours.idle, ours.visitors).byCommand;
  const rowsPerStart = median(
    writes.map((w) => Object.values(w.rows).reduce((a, b) => a + b, 0) / visitors),
  );
  const walPerStart = median(writes.map((w) => w.walBytes / visitors));
  const rawCost = perOperation(rawOne.probe, rawOne.idle, rawOne.visitors);
  const memoryCost = median(memory.map((r) => perOperation(r.probe, r.idle, r.visitors).serverUs));
  const busy = (r: MatchLoadResult) =>
    `instances ${fmt(r.probe?.serverCpu ?? Number.NaN, 2)}, Redis ${fmt(r.probe?.redis?.cpu ?? Number.NaN, 2)}, PostgreSQL ${fmt(r.probe?.postgresCpu ?? Number.NaN, 2)} cores`;
  const p99s = (list: MatchLoadResult[]) => list.map((r) => r.p99).join(", ");
  const figures: MatchFigures = {
    startServerUs: cost.serverUs,
    startRedisUs: cost.redisUs,
    startRedisCommands: cost.redisCommands,
    startPostgresUs: cost.postgresUs,
    startRows: rowsPerStart,
    startWalBytes: walPerStart,
  };
  return {
    title: "Matching across two instances (PostgreSQL + Redis)",
    rows: [
      {
        benchmark:
          "Matching across two instances on PostgreSQL + Redis: 2,000 visitors spread over both press start within 1 s: paired exactly once",
        ours: `${fmt(ours.matchedOnce)} of ${fmt(ours.visitors)} in ${fmt(ours.chats)} chats (${fmt(ours.crossChats)} across)`,
        baseline: `${fmt(theirs.matchedOnce)} of ${fmt(theirs.visitors)} (one in-memory instance)`,
        ratio: "—",
        goal: "everyone, once",
        met: yes(cluster.every(exactlyOnce)),
      },
      {
        benchmark: "Matching across two instances: partner available → 'matched', p50 / p99 ms",
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${ms(theirs.p50)} / ${ms(theirs.p99)} (one in-memory instance)`,
        ratio: ratioOf(ours.p99, theirs.p99).toFixed(1),
        goal: "p99 ≤ 50 ms",
        met: yes(ours.p99 <= 50),
      },
    ],
    notes: [
      `The round with the median p99 of ${rounds} stands for each (p99 of each round: across two instances ${p99s(cluster)}; one in-memory instance ${p99s(memory)}; two raw Redis relays ${p99s(raw)} ms), each round on fresh servers and, for the two instances, a fresh key prefix. Visitor i connects to instance i mod 2, so presses alternate between the instances: ${fmt(ours.crossChats)} of the ${fmt(ours.chats)} chats paired visitors on different instances. Presses took ${ours.pressSeconds} s; unmatched ${ours.unmatched}, matched twice ${ours.matchedTwice}, chats with other than two visitors ${ours.badChats}, error answers ${ours.errors}${ours.firstError ? ` (first: ${ours.firstError.slice(0, 160)})` : ""}; max ${ms(ours.max)} ms (one in-memory instance ${ms(theirs.max)} ms).`,
      `The baseline is the same load on one instance of the app with its default in-memory chat (SQLite, no Redis): what the Redis pairing and the relay of 'matched' through a stream and pub/sub add. The raw relay of the existing matching row cannot pair across instances; two raw Redis relays (a Lua LPOP-or-RPUSH and one PUBLISH to the partner's instance) paired the same load with p50 / p99 ${ms(rawOne.p50)} / ${ms(rawOne.p99)} ms, ${fmt(rawOne.matchedOnce)} of ${fmt(rawOne.visitors)} once, ${fmt(rawOne.crossChats)} chats across.`,
      `Across the instances alone: the ${fmt(ours.crossChats)} chats whose visitors were on different instances had p50 / p99 ${ms(ours.crossP50)} / ${ms(ours.crossP99)} ms. Few pairs span the instances because each instance sends its presses to Redis in batches (commands issued in one turn of its event loop go in one write), and consecutive presses of one batch pair with each other; every event still goes through Redis either way (a stream entry and a PUBLISH to the instance holding the socket). During the presses (median round): ${busy(ours)}, on the machine's 2 cores beside the load generator. The same 2,000 visitors pressing over 4 s instead of 1 (500 a second): ${slower ? `p50 / p99 ${ms(slower.p50)} / ${ms(slower.p99)} ms, max ${ms(slower.max)} ms, ${fmt(slower.matchedOnce)} of ${fmt(slower.visitors)} paired once, ${busy(slower)}` : "not measured"}.`,
      `What one press of start cost (median of the rounds, beyond two quiet seconds just before with the same visitors connected): ${fmt(cost.serverUs)} µs of CPU on the two instances together, ${fmt(cost.redisUs, 1)} µs of Redis CPU, ${fmt(cost.redisCommands, 1)} Redis commands (median round: ${commandList(byCommand)}), ${fmt(cost.postgresUs)} µs of PostgreSQL CPU and ${fmt(rowsPerStart, 2)} rows written (${Object.entries(
        writes[0]?.rows ?? {},
      )
        .map(([table, count]) => `${table} ${fmt(count)}`)
        .join(
          ", ",
        )} in the first round), ${fmt(walPerStart)} bytes of WAL. Counted from the scripts: ${COUNTED.startWaits.commands} commands for the press that waits and ${COUNTED.startPairs.commands} for the one that pairs, ${(COUNTED.startWaits.commands + COUNTED.startPairs.commands) / 2} on average. Two raw Redis relays: ${fmt(rawCost.redisCommands, 1)} commands a press. The one in-memory instance: ${fmt(memoryCost)} µs of CPU a press.`,
    ],
    figures: { ...figures },
  };
}

/**
 * The chat relay through Redis: pairs whose two partners are on different instances, against
 * two raw Redis relays (raw-redis-relay.ts); then idle visitors on one instance on Redis, for
 * memory and the cost of presence.
 */
async function chatCluster(): Promise<Section> {
  const pairs = 1000;
  const rate = 5000;
  const goal = 20;
  const site = await openSite("chat_cluster");
  const rounds = new Map<"raw" | "app", ChatLoadResult[]>([
    ["raw", []],
    ["app", []],
  ]);
  let stream: { bytes: number; entries: number; keys: number } | undefined;
  let idle: Awaited<ReturnType<typeof idleOnRedis>>;
  let typing: ChatLoadResult;
  const ladder: ChatLoadResult[] = [];
  try {
    for (let round = 0; round < CHAT.rounds; round++) {
      for (const mode of ["raw", "app"] as const) {
        const { prefix, starts } =
          mode === "raw" ? rawRedisRelays(site, 2, "chat-raw") : instancesOf(site, 2, "chat");
        const r = await withServers(starts, async ([a, b]) => {
          if (!a || !b) throw new Error("servers missing");
          const result = await runLoad<ChatLoadResult>(
            "load-chat.ts",
            {
              url: a.url,
              urls: [a.url, b.url],
              across: true,
              mode,
              pairs,
              rate,
              warmupMs: CHAT.warmupMs,
              durationMs: CHAT.durationMs,
              firstVisitor: freshVisitors(),
              probe: { servers: [a.pid, b.pid], redisUrl: site.redisUrl },
            } satisfies ChatLoadOptions,
            180_000,
          );
          if (mode === "app" && !stream) stream = await streamMemory(site.redisUrl, prefix);
          return result;
        });
        for (const key of ["p50", "p99", "max"] as const) {
          if (typeof r[key] !== "number" || !Number.isFinite(r[key]))
            r[key] = Number.POSITIVE_INFINITY;
        }
        rounds.get(mode)?.push(r);
        log(
          `  chat through Redis, ${mode === "app" ? "two instances" : "two raw Redis relays"}: sent ${fmt(r.sentRate)}/s, p99 ${r.p99} ms, lost ${r.lost}, errors ${r.errors}, ${r.crossPairs} pairs across`,
        );
      }
    }
    // What a "typing" call costs, at the messages' rate: twice the pairs, so that each visitor
    // calls 1.25 times a second, and every call reaches the partner (the broker passes on one
    // per visitor each 500 ms at most; the web sends one every 2 s while its visitor types).
    typing = await withServers(instancesOf(site, 2, "chat-typing").starts, ([a, b]) => {
      if (!a || !b) throw new Error("servers missing");
      return runLoad<ChatLoadResult>(
        "load-chat.ts",
        {
          url: a.url,
          urls: [a.url, b.url],
          across: true,
          mode: "app",
          typing: true,
          pairs: pairs * 2,
          rate,
          warmupMs: CHAT.warmupMs,
          durationMs: CHAT.durationMs,
          firstVisitor: freshVisitors(),
          probe: { servers: [a.pid, b.pid], redisUrl: site.redisUrl },
        } satisfies ChatLoadOptions,
        180_000,
      );
    });
    // Lower rates, once each: how the delay depends on the load on this machine.
    for (const lower of [1000, 2500]) {
      const r = await withServers(instancesOf(site, 2, "chat-ladder").starts, ([a, b]) => {
        if (!a || !b) throw new Error("servers missing");
        return runLoad<ChatLoadResult>(
          "load-chat.ts",
          {
            url: a.url,
            urls: [a.url, b.url],
            across: true,
            mode: "app",
            pairs,
            rate: lower,
            warmupMs: CHAT.warmupMs,
            durationMs: CHAT.durationMs,
            firstVisitor: freshVisitors(),
            probe: { servers: [a.pid, b.pid], redisUrl: site.redisUrl },
          } satisfies ChatLoadOptions,
          180_000,
        );
      });
      ladder.push(r);
      log(`  chat through Redis at ${fmt(lower)}/s: p99 ${r.p99} ms`);
    }
    idle = await idleOnRedis(site);
  } finally {
    site.stop();
  }
  const all = (mode: "raw" | "app") => rounds.get(mode) ?? [];
  // What the servers relayed in the window, counted where it cannot be missed: Redis ran the
  // send script's one RPUSH per message, the raw relay's one PUBLISH, the typing script's one
  // XADD per call. (Messages sent or arrived in the window differ from it by what was queued
  // when the window opened or closed, a lot on a busy machine.)
  const relayed = (r: ChatLoadResult, marker: "rpush" | "publish" | "xadd") =>
    r.probe?.redis?.byCommand[marker] ?? r.arrived;
  const ours = medianRound(all("app"));
  const theirs = medianRound(all("raw"));
  const cost = (mode: "raw" | "app") => {
    const costs = all(mode).map((r) =>
      perOperation(r.probe, r.idle, relayed(r, mode === "app" ? "rpush" : "publish")),
    );
    return {
      serverUs: median(costs.map((c) => c.serverUs)),
      redisUs: median(costs.map((c) => c.redisUs)),
      redisCommands: median(costs.map((c) => c.redisCommands)),
    };
  };
  const typingCost = perOperation(typing.probe, typing.idle, relayed(typing, "xadd"));
  const ourCost = cost("app");
  const rawCost = cost("raw");
  const byCommand = perOperation(ours.probe, ours.idle, relayed(ours, "rpush")).byCommand;
  const across = (r: ChatLoadResult) => r.crossPairs === r.pairs;
  const p99s = (mode: "raw" | "app") =>
    all(mode)
      .map((r) => r.p99)
      .join(", ");
  const summaryOf = (name: string, r: ChatLoadResult) =>
    `${name} sent ${fmt(r.sentRate)}/s${r.skipped > 0 ? ` (${fmt(r.skipped)} skipped by a late generator)` : ""}, delivered ${fmt(r.delivered)} of ${fmt(r.sent)} (${fmt(r.arrived)} arrived within the window), ${r.errors} errors, p50 / p99 / max ${r.p50} / ${r.p99} / ${r.max} ms, ${r.crossPairs} of ${r.pairs} pairs across, CPU of the two servers ${r.probe?.serverCpuEach.join(" and ")} cores, Redis ${r.probe?.redis?.cpu} cores, generator ${r.clientCpu}, pairing took ${r.setupSeconds} s${r.firstError ? ` (first error: ${r.firstError.slice(0, 160)})` : ""}`;
  const bytesPerEntry = stream && stream.entries > 0 ? stream.bytes / stream.entries : Number.NaN;
  const figures: ChatFigures = {
    messageServerUs: ourCost.serverUs,
    messageRedisUs: ourCost.redisUs,
    messageRedisCommands: ourCost.redisCommands,
    rawServerUs: rawCost.serverUs,
    rawRedisUs: rawCost.redisUs,
    rawRedisCommands: rawCost.redisCommands,
    idleVisitors: idle.visitors,
    idleRssKiB: idle.app.rssPerVisitor,
    idleRedisBytes: idle.app.redisBytesPerVisitor,
    idleRedisCommandsPerSecond: idle.app.commandsPerVisitorSecond,
    idleRedisUsPerSecond: idle.app.redisUsPerVisitorSecond,
    idleServerUsPerSecond: idle.app.serverUsPerVisitorSecond,
    refreshUsPerVisitor: idle.app.refreshUsPerVisitor,
    streamBytesPerEntry: bytesPerEntry,
    typingServerUs: typingCost.serverUs,
    typingRedisUs: typingCost.redisUs,
    typingRedisCommands: typingCost.redisCommands,
  };
  return {
    title: "Chat relay through Redis (two instances)",
    rows: [
      {
        benchmark: `Chat relay through Redis, ${fmt(pairs)} pairs at ${fmt(rate)} msg/s, partners on two instances: delivery p50 / p99 ms`,
        ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
        baseline: `${ms(theirs.p50)} / ${ms(theirs.p99)} (two raw Redis relays)`,
        ratio: ratioOf(ours.p99, theirs.p99).toFixed(1),
        goal: `p99 ≤ ${goal} ms`,
        met: yes(ours.p99 <= goal && all("app").every((r) => sustained(r) && across(r))),
      },
      {
        benchmark: "Chat relay through Redis: server CPU per message, both instances (µs)",
        ours: fmt(ourCost.serverUs),
        baseline: `${fmt(rawCost.serverUs)} (two raw Redis relays)`,
        ratio: ratioOf(ourCost.serverUs, rawCost.serverUs).toFixed(1),
        goal: "—",
        met: "—",
      },
      {
        benchmark: "Chat relay through Redis: Redis commands / Redis CPU (µs) per message",
        ours: `${fmt(ourCost.redisCommands, 1)} / ${fmt(ourCost.redisUs, 1)}`,
        baseline: `${fmt(rawCost.redisCommands, 1)} / ${fmt(rawCost.redisUs, 1)} (two raw Redis relays)`,
        ratio: ratioOf(ourCost.redisUs, rawCost.redisUs).toFixed(1),
        goal: "—",
        met: "—",
      },
      {
        benchmark: `Resident memory per idle connected chat visitor, one instance on Redis, at ${fmt(idle.visitors)} (KiB)`,
        ours: idle.app.rssPerVisitor.toFixed(1),
        baseline: `${idle.raw.rssPerVisitor.toFixed(1)} (raw Redis relay)`,
        ratio: ratioOf(idle.app.rssPerVisitor, idle.raw.rssPerVisitor).toFixed(1),
        goal: "≤ 30 KB",
        met: yes(idle.app.rssPerVisitor * 1.024 <= 30),
      },
    ],
    notes: [
      `${fmt(pairs)} pairs at ${fmt(rate)}/s (2.5 messages a second per visitor, inside the flood gate), the median of ${CHAT.rounds} round${CHAT.rounds > 1 ? "s" : ""} (p99 of each: ours ${p99s("app")}; raw ${p99s("raw")} ms), each round on fresh servers and a fresh key prefix: ${summaryOf("ours", ours)}; ${summaryOf("two raw Redis relays", theirs)}.`,
      "Visitor i connects to instance i mod 2, and the generator presses start one pair at a time (the first partner on one instance, then, once it waits, the second on the other), so that every pair spans the two instances; each message goes from the sender's instance through Redis to the partner's. The baseline (`raw-redis-relay.ts`, two of them on the same Redis) is a Bun WebSocket server per instance with ioredis as the app uses it (auto-pipelined commands, a second connection subscribed to the instance's own channel): each frame is one PUBLISH to the partner's instance's channel, and what arrives there is handed to the socket it names. No protocol, identity, limits, stream or presence: about as little as a relay through Redis can do.",
      `Per message relayed in the window (counted by Redis: the send script's one RPUSH, the raw relay's one PUBLISH, the typing script's one XADD; on a busy machine fewer or more are relayed in a window than are sent in it), beyond two quiet seconds measured just before the window with the same pairs connected (median of the rounds): ours ${fmt(ourCost.serverUs)} µs of CPU on the two instances together, ${fmt(ourCost.redisUs, 1)} µs of Redis CPU and ${fmt(ourCost.redisCommands, 1)} Redis commands (median round: ${commandList(byCommand)}); counted from the send script, ${COUNTED.send.commands}: ${COUNTED.send.how}. Raw: ${fmt(rawCost.serverUs)} µs, ${fmt(rawCost.redisUs, 1)} µs and ${fmt(rawCost.redisCommands, 1)} commands. Redis commands include those its scripts call (INFO commandstats); its CPU is the Redis process's own (INFO cpu).`,
      `At lower rates, the same 1,000 pairs across the instances, once each: ${ladder.map((r) => `${fmt(r.offered)}/s: p50 / p99 / max ${ms(r.p50)} / ${ms(r.p99)} / ${ms(r.max)} ms, the two instances ${r.probe?.serverCpuEach.join(" and ")} cores, Redis ${r.probe?.redis?.cpu} cores`).join("; ")}.`,
      `A "typing" call (${fmt(pairs * 2)} pairs across the two instances, each visitor 1.25 calls a second, alternately started and stopped, ${fmt(typing.sentRate)} calls/s; ${fmt(typing.delivered)} typing events reached partners for ${fmt(typing.sent)} calls in the window, ${typing.errors} errors): ${fmt(typingCost.serverUs)} µs of CPU on the two instances, ${fmt(typingCost.redisUs, 1)} µs of Redis CPU, ${fmt(typingCost.redisCommands, 1)} Redis commands (${commandList(typingCost.byCommand)}); counted from the script, ${COUNTED.typing.commands}.`,
      `Events kept in Redis: ${stream ? `${fmt(stream.keys)} visitors' streams sampled after the first round held ${fmt(stream.entries)} events in ${fmt(stream.bytes)} bytes (MEMORY USAGE), ${fmt(bytesPerEntry)} bytes an event; a stream keeps about 200 events (XADD MAXLEN ~ 200) for 24 hours after its last one` : "not sampled"}.`,
      `Idle: ${fmt(idle.visitors)} visitors connected and listening (no chat) on one instance on Redis: VmRSS ${fmt(idle.app.rssBefore)} → ${fmt(idle.app.rssAfter)} KiB (raw Redis relay ${fmt(idle.raw.rssBefore)} → ${fmt(idle.raw.rssAfter)} KiB); Redis held ${fmt(idle.app.redisBytesPerVisitor)} more bytes a visitor. Over ${idle.app.seconds} quiet seconds Redis ran ${fmt(idle.app.commandsPerVisitorSecond, 2)} commands a visitor a second (${commandList(idle.app.byCommand)} a second in all) using ${fmt(idle.app.redisUsPerVisitorSecond, 2)} µs of its CPU a visitor a second; the instance used ${fmt(idle.app.serverUsPerVisitorSecond, 2)} µs a visitor a second. Each presence refresh (one script over all the instance's visitors, once a second) held Redis ${idle.app.refreshMs.map((t) => fmt(t, 1)).join(", ")} ms (SLOWLOG), ${fmt(idle.app.refreshUsPerVisitor, 2)} µs a visitor.`,
    ],
    figures: { ...figures },
  };
}

/** Bytes and entries of some visitors' event streams under a prefix (MEMORY USAGE, XLEN). */
async function streamMemory(redisUrl: string, prefix: string) {
  const redis = new Redis(redisUrl);
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}ev:*`, "COUNT", 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== "0" && keys.length < 100);
    let bytes = 0;
    let entries = 0;
    for (const key of keys.slice(0, 100)) {
      bytes += Number(await redis.memory("USAGE", key, "SAMPLES", "0"));
      entries += await redis.xlen(key);
    }
    return { bytes, entries, keys: Math.min(100, keys.length) };
  } finally {
    await redis.quit();
  }
}

/**
 * Idle chat visitors on one instance on Redis against one raw Redis relay: resident memory per
 * visitor, Redis memory, and over a quiet window what presence costs Redis and the instance.
 */
async function idleOnRedis(site: ClusterSite) {
  const visitors = quick ? 2000 : 5000;
  const measure = async (mode: "app" | "raw") => {
    const { starts } =
      mode === "app" ? instancesOf(site, 1, "idle") : rawRedisRelays(site, 1, "idle-raw");
    return withServers(starts, async ([server]) => {
      if (!server) throw new Error("server missing");
      const redis = new Redis(site.redisUrl);
      const probe = await Probe.open({ servers: [server.pid], redisUrl: site.redisUrl });
      try {
        // One request first, so what is measured is idle, not first use.
        await fetch(`${server.url}/healthz`).catch(() => {});
        await sleep(1500);
        const rssBefore = rssKiB(server.pid);
        const memoryBefore = (await readRedis(redis)).memory;
        // What the instance and Redis use with nobody connected (timers, Redis's own cron).
        await probe.begin();
        await sleep(2000);
        const empty = await probe.end();
        const load = await startServer(
          "load-idle.ts",
          {},
          [
            JSON.stringify({
              url: server.url,
              mode,
              visitors,
              firstVisitor: freshVisitors(),
            } satisfies IdleLoadOptions),
          ],
          120_000,
        );
        try {
          await sleep(2000);
          const rssAfter = rssKiB(server.pid);
          // Scripts that hold Redis a millisecond or more are logged: the presence refreshes.
          await redis.config("SET", "slowlog-log-slower-than", "1000");
          await redis.slowlog("RESET");
          await probe.begin();
          await sleep(quick ? 3000 : 5000);
          const quiet = await probe.end();
          const slow = (await redis.slowlog("GET", 128)) as Array<
            [number, number, number, string[]]
          >;
          const memoryAfter = (await readRedis(redis)).memory;
          // An entry's arguments are cut to 32, the last saying how many more there were.
          const refreshes = slow
            .map(([, , micros, argv]) => {
              const more = Number(
                /\.\.\. \((\d+) more arguments\)/.exec(argv.at(-1) ?? "")?.[1] ?? 0,
              );
              return { micros, visitors: more > 0 ? argv.length - 1 + more - 7 : 0 };
            })
            .filter((r) => r.visitors > 0);
          const seconds = quiet.seconds;
          return {
            rssBefore,
            rssAfter,
            rssPerVisitor: (rssAfter - rssBefore) / visitors,
            redisBytesPerVisitor: (memoryAfter - memoryBefore) / visitors,
            seconds: round(seconds, 1),
            commandsPerVisitorSecond: (quiet.redis?.commands ?? 0) / seconds / visitors,
            byCommand: Object.fromEntries(
              Object.entries(quiet.redis?.byCommand ?? {}).map(([name, count]) => [
                name,
                Math.round(count / seconds),
              ]),
            ),
            redisUsPerVisitorSecond:
              (Math.max(0, (quiet.redis?.cpu ?? 0) - (empty.redis?.cpu ?? 0)) * 1e6) / visitors,
            serverUsPerVisitorSecond:
              (Math.max(0, (quiet.serverCpu ?? 0) - (empty.serverCpu ?? 0)) * 1e6) / visitors,
            emptyRedisCpu: empty.redis?.cpu ?? 0,
            emptyServerCpu: empty.serverCpu ?? 0,
            refreshMs: refreshes.map((r) => r.micros / 1000),
            refreshUsPerVisitor: median(refreshes.map((r) => r.micros / r.visitors)),
          };
        } finally {
          await load.stop();
        }
      } finally {
        await probe.close();
        await redis.quit();
      }
    });
  };
  const raw = await measure("raw");
  const app = await measure("app");
  return { visitors, raw, app };
}

/**
 * Requests/s of two instances against one, on this machine's two cores: discover and throw on
 * PostgreSQL + Redis, the load generator's connections split over the instances (connection i
 * to instance i mod n) as a round-robin balancer would, without a balancer's own process.
 */
async function scaleOut(): Promise<Section> {
  const site = await openSite("scale_out", 10_000);
  type Layout = "one" | "two";
  const results: Record<"discover" | "throw", Record<Layout, HttpLoadResult[]>> = {
    discover: { one: [], two: [] },
    throw: { one: [], two: [] },
  };
  const writes: Array<{ rows: Record<string, number>; walBytes: number; answered: number }> = [];
  try {
    await withServers(instancesOf(site, 2, "scale").starts, async ([a, b]) => {
      if (!a || !b) throw new Error("servers missing");
      for (const kind of ["discover", "throw"] as const) {
        const path = kind === "discover" ? "/trpc/bottles.discover" : "/trpc/bottles.throw";
        for (let round = 0; round < HTTP.rounds; round++) {
          for (const layout of ["one", "two"] as const) {
            const servers = layout === "one" ? [a] : [a, b];
            const mark = kind === "throw" && layout === "one" ? await writeMark(site.dbUrl) : null;
            const r = await runLoad<HttpLoadResult>("load-http.ts", {
              url: a.url,
              urls: servers.map((s) => s.url),
              path,
              kind,
              concurrency: HTTP.concurrency,
              warmupMs: HTTP.warmupMs,
              durationMs: HTTP.durationMs,
              firstVisitor: freshVisitors(),
              probe: {
                servers: servers.map((s) => s.pid),
                postgres: site.postmaster,
                redisUrl: site.redisUrl,
              },
            } satisfies HttpLoadOptions);
            if (mark)
              writes.push({ ...(await writesSince(site.dbUrl, mark)), answered: r.answered });
            results[kind][layout].push(r);
          }
        }
        log(
          `  ${kind}: one instance ${results[kind].one.map((r) => fmt(r.rps)).join(", ")}; two ${results[kind].two.map((r) => fmt(r.rps)).join(", ")} requests/s`,
        );
      }
    });
  } finally {
    site.stop();
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  const costOf = (list: HttpLoadResult[]) => {
    const each = list.map((r) => perOperation(r.probe, undefined, r.rps * (r.probe?.seconds ?? 0)));
    return {
      serverUs: median(each.map((c) => c.serverUs)),
      postgresUs: median(each.map((c) => c.postgresUs)),
      redisUs: median(each.map((c) => c.redisUs)),
      redisCommands: median(each.map((c) => c.redisCommands)),
      byCommand: each[0]?.byCommand ?? {},
    };
  };
  const cores = (list: HttpLoadResult[]) =>
    `instances ${fmt(median(list.map((r) => r.probe?.serverCpu ?? Number.NaN)), 2)}, PostgreSQL ${fmt(median(list.map((r) => r.probe?.postgresCpu ?? Number.NaN)), 2)}, Redis ${fmt(median(list.map((r) => r.probe?.redis?.cpu ?? Number.NaN)), 2)}`;
  for (const kind of ["discover", "throw"] as const) {
    const one = summarizeHttp(results[kind].one);
    const two = summarizeHttp(results[kind].two);
    const name = kind === "discover" ? "Discover (10k bottles)" : "Throw a bottle";
    rows.push({
      benchmark: `${name} on PostgreSQL + Redis, two instances against one on this 2-core machine: requests/s (${HTTP.concurrency} connections split over the instances)`,
      ours: fmt(two.rps),
      baseline: `${fmt(one.rps)} (one instance)`,
      ratio: ratioOf(two.rps, one.rps).toFixed(2),
      goal: "—",
      met: "—",
    });
    const oneCost = costOf(results[kind].one);
    const twoCost = costOf(results[kind].two);
    notes.push(
      `${name}: one instance ${fmt(one.rps)} requests/s (p50 / p99 ${ms(one.p50)} / ${ms(one.p99)} ms), two ${fmt(two.rps)} (${ms(two.p50)} / ${ms(two.p99)} ms); rounds: one ${results[kind].one.map((r) => fmt(r.rps)).join(", ")}; two ${results[kind].two.map((r) => fmt(r.rps)).join(", ")}. Cores in use (median round), one instance: ${cores(results[kind].one)}; two: ${cores(results[kind].two)}. Per request, one instance: ${fmt(oneCost.serverUs)} µs of instance CPU, ${fmt(oneCost.postgresUs)} µs of PostgreSQL, ${fmt(oneCost.redisUs, 1)} µs of Redis and ${fmt(oneCost.redisCommands, 1)} Redis commands (${commandList(oneCost.byCommand)}, with the presence and sweep timers' share); two instances: ${fmt(twoCost.serverUs)}, ${fmt(twoCost.postgresUs)} and ${fmt(twoCost.redisUs, 1)} µs.${one.non200 + one.errors + two.non200 + two.errors > 0 ? ` Answers other than 200: ${one.non200 + two.non200}, connection errors ${one.errors + two.errors}.` : ""}`,
    );
  }
  const throwCost = costOf(results.throw.one);
  const rowsPerThrow = median(
    writes.map((w) => Object.values(w.rows).reduce((a, b) => a + b, 0) / w.answered),
  );
  const walPerThrow = median(writes.map((w) => w.walBytes / w.answered));
  notes.push(
    `Written per bottle thrown (one instance, every answer of the load counted, warm-up included): ${fmt(rowsPerThrow, 2)} rows (${Object.entries(
      writes[0]?.rows ?? {},
    )
      .map(([table, count]) => `${table} ${fmt(count)}`)
      .join(
        ", ",
      )} for ${fmt(writes[0]?.answered ?? 0)} throws in the first round) and ${fmt(walPerThrow)} bytes of WAL.`,
    `Both layouts run on the same two cores as PostgreSQL, Redis and the load generator, so two instances cannot do twice the work of one here: this row says what a second process gains when the first is not alone on the machine, not how the site scales on more machines (the plan below does that from per-request costs). The instances are started once; "one instance" sends all ${HTTP.concurrency} connections to the first while the second idles (its presence and sweep timers only), "two" sends half to each, in turn ${HTTP.rounds} times. No nginx in between: on two cores its worker would take CPU from the instances it balances; splitting the generator's connections is what round robin does without that cost.`,
    "The database is the discover benchmark's 10k seed copied into a throwaway PostgreSQL 15 (fsync off, on tmpfs); every request is a visitor of its own with an address of its own, so no rate limit is reached. CPU is that of the instances' processes, of PostgreSQL's postmaster and every backend it forked, and of the Redis process (INFO cpu).",
  );
  const figures: ScaleFigures = {
    throwServerUs: throwCost.serverUs,
    throwPostgresUs: throwCost.postgresUs,
    throwRedisUs: throwCost.redisUs,
    throwRedisCommands: throwCost.redisCommands,
    throwRows: rowsPerThrow,
    throwWalBytes: walPerThrow,
  };
  return {
    title: "Two instances against one (PostgreSQL + Redis)",
    rows,
    notes,
    figures: { ...figures },
  };
}

const runners: Record<Benchmark, () => Promise<Section>> = {
  discover,
  "discover-pg": discoverPg,
  write,
  chat,
  match,
  memory,
  frontend,
  binary,
  "match-cluster": matchCluster,
  "chat-cluster": chatCluster,
  "scale-out": scaleOut,
};

// ---- BENCHMARKS.md ----

const DATA_MARK = "<!-- bench-data ";

function readPrevious(file: string): Partial<Record<Benchmark, Section & { date: string }>> {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  // Every block of recorded figures, and of each section the newest: a merge of two branches
  // that both wrote BENCHMARKS.md can leave two blocks, each with sections the other lacks.
  const sections: Partial<Record<Benchmark, Section & { date: string }>> = {};
  for (let at = text.indexOf(DATA_MARK); at !== -1; at = text.indexOf(DATA_MARK, at + 1)) {
    const end = text.indexOf(" -->", at);
    try {
      const block = JSON.parse(text.slice(at + DATA_MARK.length, end)) as Partial<
        Record<Benchmark, Section & { date: string }>
      >;
      for (const [name, section] of Object.entries(block) as Array<
        [Benchmark, Section & { date: string }]
      >) {
        const known = sections[name];
        if (!known || section.date > known.date) sections[name] = section;
      }
    } catch {
      // a damaged block: the others still count
    }
  }
  return sections;
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|");

function render(
  sections: Partial<Record<Benchmark, Section & { date: string }>>,
  meta: string[],
): string {
  const lines = [
    "# Benchmarks",
    "",
    "Written by `bun run bench` (`scripts/bench/`). Every server under test and every baseline runs as its own",
    "process and so does every load generator, all on 127.0.0.1 of the same machine; each figure is compared with",
    "a raw baseline measured in the same run (interleaved for the HTTP figures), so that the noise of the machine",
    "falls on both, and discover and the chat also with what a builder would pick instead (Express with",
    "better-sqlite3, a Socket.IO relay; both under Node, in the same run). Ratio is ours ÷ baseline: for rates",
    "higher is better, for times and sizes lower is better.",
    "",
    ...meta,
    "",
    "| Benchmark | Ours | Baseline | Ratio | Goal | Met? |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const name of BENCHMARKS) {
    const section = sections[name];
    if (!section) continue;
    for (const row of section.rows) {
      lines.push(
        `| ${[row.benchmark, row.ours, row.baseline, row.ratio, row.goal, row.met].map(escapeCell).join(" | ")} |`,
      );
    }
  }
  // The plan for a site past one machine, worked out from the cluster benchmarks' figures.
  lines.push(
    "",
    ...renderPlan({
      match: sections["match-cluster"]?.figures as Partial<MatchFigures> | undefined,
      chat: sections["chat-cluster"]?.figures as Partial<ChatFigures> | undefined,
      scale: sections["scale-out"]?.figures as Partial<ScaleFigures> | undefined,
    }),
  );
  lines.push("", NOTES_HEADING, "", ...STANDING_NOTES, "");
  for (const name of BENCHMARKS) {
    const section = sections[name];
    if (!section) continue;
    lines.push(`## ${section.title} (measured ${section.date})`, "");
    for (const note of section.notes) lines.push(`- ${note}`);
    lines.push("");
    if (section.details) lines.push(section.details, "");
  }
  lines.push(`${DATA_MARK}${JSON.stringify(sections)} -->`, "");
  return lines.join("\n");
}

const NOTES_HEADING = "## What the figures mean, and what stands in the way";

/** Analysis kept with the table; the figures it cites are from the run recorded below. */
const STANDING_NOTES: string[] = readStandingNotes();

function readStandingNotes(): string[] {
  const file = join(import.meta.dir, "NOTES.md");
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [];
}

/** The 1-minute load average of the machine, from /proc. */
function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ")[0] ?? "?";
}

/** `--notes`: BENCHMARKS.md written again from its recorded figures with today's NOTES.md. */
function rewriteNotes(): void {
  const file = join(ROOT, "BENCHMARKS.md");
  const text = readFileSync(file, "utf8");
  const meta = text
    .split("\n")
    .filter((line) => /^(Machine: |Last full run: |The last full run took )/.test(line));
  writeFileSync(file, render(readPrevious(file), meta));
  console.log("BENCHMARKS.md written again with the notes of NOTES.md; no benchmark ran.");
}

async function main(): Promise<void> {
  if (args.includes("--notes")) {
    rewriteNotes();
    return;
  }
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  const cores = Bun.spawnSync(["nproc"]).stdout.toString().trim();
  const model = cpus()[0]?.model ?? "unknown CPU";
  const meta = [
    `Machine: ${cores} cores (\`nproc\`), ${model}, ${(Number(readFileSync("/proc/meminfo", "utf8").match(/MemTotal:\s+(\d+)/)?.[1] ?? 0) / 1024 / 1024).toFixed(0)} GiB; Bun ${Bun.version}; databases on ${scratchRoot === "/dev/shm" ? "tmpfs (/dev/shm)" : scratchRoot}.`,
    selected.length < BENCHMARKS.length
      ? `Last full run: none yet (updated ${date} UTC: ${selected.join(", ")}).`
      : `Last full run: ${date} UTC.`,
  ];
  const sections: Partial<Record<Benchmark, Section & { date: string }>> = quick
    ? {}
    : readPrevious(join(ROOT, "BENCHMARKS.md"));
  const mdFile = join(ROOT, "BENCHMARKS.md");
  if (selected.length < BENCHMARKS.length && existsSync(mdFile)) {
    const previous = readFileSync(mdFile, "utf8").match(/^Last full run: .*$/m)?.[0];
    if (previous) {
      meta[1] = `${previous.replace(/ \(updated .*$/, "").replace(/\.$/, "")} (updated ${date} UTC: ${selected.join(", ")}).`;
    }
  }
  if (selected.includes("discover") || selected.includes("chat")) {
    try {
      nodeState = await ensureNodeBaselines(log);
    } catch (error) {
      // The rows that compare with Node's libraries are left out and the notes say why.
      nodeState = error instanceof Error ? error : new Error(String(error));
      console.error(nodeState);
    }
  }
  for (const name of selected) {
    log(`${name}…`);
    const started = performance.now();
    const loadBefore = loadAverage();
    try {
      const section = await runners[name]();
      // Other work on a shared machine moves every figure; the load says how much there was.
      section.notes.push(
        `Load average (1 min) on the ${cores} cores: ${loadBefore} when this section started, ${loadAverage()} when it ended (this run's own processes included).`,
      );
      sections[name] = { ...section, date: `${date} UTC` };
    } catch (error) {
      sections[name] = {
        title: name,
        rows: [
          {
            benchmark: `${name}: failed`,
            ours: "—",
            baseline: "—",
            ratio: "—",
            goal: "—",
            met: "no",
          },
        ],
        notes: [`The run failed: ${String(error).slice(0, 500)}`],
        date: `${date} UTC`,
      };
      console.error(error);
    }
    log(`${name} done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const total = (performance.now() - runStarted) / 1000;
  if (selected.length < BENCHMARKS.length) {
    const full = existsSync(mdFile)
      ? readFileSync(mdFile, "utf8").match(/^The last full run took (\d+) s/m)?.[1]
      : undefined;
    meta.push(
      `${full ? `The last full run took ${full} s; ` : ""}this update took ${total.toFixed(0)} s${quick ? " (--quick)" : ""}.`,
    );
  } else {
    meta.push(`The last full run took ${total.toFixed(0)} s${quick ? " (--quick)" : ""}.`);
  }
  const text = render(sections, meta);
  if (quick) {
    console.log(`\n${text.slice(0, text.indexOf(DATA_MARK))}`);
    console.log("--quick: BENCHMARKS.md left as it was.");
  } else {
    writeFileSync(join(ROOT, "BENCHMARKS.md"), text);
    console.log(`\nBENCHMARKS.md written (${total.toFixed(0)} s).`);
  }
}

process.on("SIGINT", async () => {
  await stopAllChildren();
  rmSync(work, { recursive: true, force: true });
  process.exit(130);
});

try {
  await main();
} finally {
  await stopAllChildren();
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
