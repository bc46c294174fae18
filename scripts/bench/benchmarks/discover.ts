/**
 * Discover on SQLite: the app's read path at 10k, 100k and 1M bottles against the same two
 * statements on raw bun:sqlite, and against Express with better-sqlite3 under Node, interleaved
 * round by round; the query plans; what the framework costs on its own.
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqlite } from "../../../db/connection.ts";
import {
  appServer,
  type HttpSummary,
  httpLoad,
  httpRows,
  httpSettings,
  interleaved,
  log,
  NODE_PACKAGES,
  nodeBaselines,
  problem,
  roundsOf,
  runHttpLoad,
  startNodeServer,
  startServer,
  summarizeHttp,
  withServers,
  work,
} from "../lib.ts";
import { readPath, type Statement } from "../queries.ts";
import { CANDIDATES_SQL, CARD_SQL } from "../raw-discover.ts";
import {
  type Benchmark,
  fmt,
  label,
  notAbove,
  type Row,
  ratioOf,
  type Section,
  type Size,
  yes,
} from "../section.ts";
import { seed } from "../seed.ts";

// Goal for the code on tRPC's public API (issue 11): a ratio to the raw baseline.
const DISCOVER_GOAL = 0.35;

/** The databases' sizes: the smoke run seeds the smallest only. */
export function discoverSizes(size: Size): number[] {
  return {
    full: [10_000, 100_000, 1_000_000],
    quick: [10_000, 100_000],
    smoke: [10_000],
  }[size];
}

export function planText(title: string, statements: Statement[]): string {
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

async function run(size: Size): Promise<Section> {
  const SIZES = discoverSizes(size);
  const HTTP = httpSettings(size);
  const rows: Row[] = [];
  const notes: string[] = [];
  const byLabel = new Map<string, { ours: HttpSummary; theirs: HttpSummary }>();
  let details = "";
  let allIndexed = true;
  let sqlMatches = true;
  const overhead: string[] = [];
  const node = nodeBaselines();
  // Express needs better-sqlite3 compiled, which a smoke run does not wait for.
  const withExpress = !(node instanceof Error) && node.native;
  const expressChecks = new Set<string>();
  for (const bottles of SIZES) {
    const dir = join(work(), `discover-${label(bottles)}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "tidings.db");
    const seeded = await seed(file, bottles);
    log(
      `seeded ${fmt(bottles)} bottles (${fmt(seeded.visible)} visible) in ${seeded.seconds.toFixed(1)} s`,
    );
    const starts = [appServer(dir), () => startServer("raw-discover.ts", { DB_FILE: file })];
    if (withExpress) {
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
        { server: raw, path: "/", name: "raw bun:sqlite" },
        ...(express ? [{ server: express, path: "/", name: "Express" }] : []),
        { server: app, path: "/trpc/bottles.discover", name: "ours" },
      ];
      const results = await interleaved(HTTP, targets, "discover");
      if (bottles === SIZES[0]) {
        // What the framework costs on its own, on the same server: an empty tRPC query and
        // a plain route, with the same load.
        for (const [name, route] of [
          ["/healthz (no tRPC, no database)", "/healthz"],
          ["chat.online (tRPC and context, no database)", "/trpc/chat.online"],
        ] as const) {
          const r = await runHttpLoad(
            name,
            httpLoad(HTTP, { url: app.url, path: route, kind: "discover", serverPid: app.pid }),
          );
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
    // Read after the load: the capture's connection stays open in this process (its prepared
    // statements are kept), and an open one would hold up the app's last checkpoint at its stop.
    const path = await readPath(file);
    const statements = [...path.anonymous, ...path.signedIn];
    if (statements.some((s) => s.plan.some((line) => /\bSCAN\b/.test(line)))) allIndexed = false;
    if (path.anonymous[0]?.sql !== CANDIDATES_SQL || path.anonymous[1]?.sql !== CARD_SQL)
      sqlMatches = false;
    if (bottles === SIZES[SIZES.length - 1]) {
      details =
        `Query plans on the ${label(bottles)} database (EXPLAIN QUERY PLAN with the values the statements were bound to):\n\n` +
        planText("An anonymous reader (what the load does)", path.anonymous) +
        "\n" +
        planText(
          "A signed-in reader (the account's own bottles left out too; the card also says whether they liked it)",
          path.signedIn,
        );
    }
    const ours = summarizeHttp(measured.ours);
    const theirs = summarizeHttp(measured.theirs);
    byLabel.set(label(bottles), { ours, theirs });
    rows.push(
      ...httpRows(HTTP, ours, theirs, {
        rate: `Discover, ${label(bottles)} bottles`,
        baseline: "raw bun:sqlite",
        goal: DISCOVER_GOAL,
      }),
    );
    const cpuPer = (s: HttpSummary) => fmt((s.cpu / s.rps) * 1e6);
    let expressNote = "";
    if (measured.express) {
      const express = summarizeHttp(measured.express);
      const vsExpress = ratioOf(ours.rps, express.rps);
      rows.push({
        benchmark: `Discover, ${label(bottles)} bottles, same SQL on Express + better-sqlite3 (Node): requests/s`,
        ours: fmt(ours.rps),
        baseline: `${fmt(express.rps)} (Express)`,
        ratio: notAbove(vsExpress),
        goal: "≥ 1.0",
        met: yes(vsExpress >= 1),
      });
      expressNote =
        `; Express ${fmt(express.rps)} requests/s, p50 / p99 ${express.p50.toFixed(1)} / ${express.p99.toFixed(1)} ms, server CPU ${express.cpu.toFixed(2)} cores, about ${cpuPer(express)} µs per request, ` +
        `rounds ${roundsOf(measured.express)}` +
        (express.non200 + express.errors > 0
          ? `, ${express.non200} non-200 answers and ${express.errors} errors`
          : "");
    }
    notes.push(
      `${label(bottles)}: server CPU ${ours.cpu.toFixed(2)} cores (ours) and ${theirs.cpu.toFixed(2)} (raw), ` +
        `about ${cpuPer(ours)} µs and ${cpuPer(theirs)} µs of CPU per request; ` +
        `rounds: ours ${roundsOf(measured.ours)}; raw ${roundsOf(measured.theirs)}` +
        expressNote +
        (ours.non200 + ours.errors > 0
          ? `; ${ours.non200} non-200 answers, ${ours.errors} errors (ours)`
          : ""),
    );
  }
  const first = byLabel.get(label(SIZES[0] ?? 0));
  const last = byLabel.get(label(SIZES[SIZES.length - 1] ?? 0));
  // A flat read path shows as the p99 growing little from the smallest database to the largest;
  // with one size (a smoke run) there is nothing to compare.
  if (first && last && SIZES.length > 1) {
    const growth = ratioOf(last.ours.p99, first.ours.p99);
    rows.push({
      benchmark: `Discover: p99 at ${label(SIZES[SIZES.length - 1] ?? 0)} ÷ p99 at ${label(SIZES[0] ?? 0)}`,
      ours: growth.toFixed(2),
      baseline: ratioOf(last.theirs.p99, first.theirs.p99).toFixed(2),
      goal: "flat (≤ 1.5)",
      met: yes(growth <= 1.5),
    });
  }
  rows.push({
    benchmark: "Discover: every query on the read path uses an index (no full scan)",
    ours: allIndexed ? "yes" : "no",
    baseline: "same SQL",
    goal: "index, no scan",
    met: yes(allIndexed),
  });
  notes.push(`Framework cost on the same server (10k run): ${overhead.join("; ")}.`);
  if (withExpress) {
    notes.push(
      `Express ${NODE_PACKAGES.express} and better-sqlite3 ${NODE_PACKAGES["better-sqlite3"]} under Node ${node.version}, one process, Express's defaults (ETag, X-Powered-By): the raw baseline's SQL handed over as it is, the same database file and connection settings (read back and compared), the same JSON answer (its keys compared with the raw baseline's and ours).`,
      ...expressChecks,
    );
    for (const check of expressChecks) problem(`discover: ${check}`);
  } else {
    notes.push(
      `No Express comparison: ${node instanceof Error ? node.message : "better-sqlite3 is not compiled in a smoke run"}`,
    );
  }
  if (!sqlMatches) problem("discover: the raw baseline's SQL no longer matches discoverBottle's");
  notes.push(
    sqlMatches
      ? "The raw baseline and Express run the very SQL discoverBottle runs (captured from it on each database)."
      : "WARNING: the raw baseline's SQL no longer matches what discoverBottle runs.",
  );
  return { title: "Discover read path", rows, notes, details };
}

export const discover: Benchmark = { name: "discover", needs: ["node"], run };
