/**
 * What the benchmark modules share while they run: the scratch folder, the log, fresh visitor
 * numbers, servers started and stopped around a body, the app as a server under test, HTTP
 * load in interleaved rounds, the state of the Node baselines, and the problems a run met.
 * The runner (run.ts) sets these up and reads them back; the modules only use them.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_SECRET, NODE_DIR, runLoad, type ServerChild, startServer } from "./lib.ts";
import type { ChatLoadOptions, ChatLoadResult } from "./load-chat.ts";
import type { HttpLoadOptions, HttpLoadResult } from "./load-http.ts";
import type { MatchLoadOptions, MatchLoadResult } from "./load-match.ts";
import { fmt, median, type Size } from "./section.ts";

export const SECRET = BENCH_SECRET;

// Databases on tmpfs when there is one: the disk of a shared machine (other tenants' fsyncs)
// would otherwise decide the write figures. Reads come from the page cache either way.
export const scratchRoot = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

let workDir: string | undefined;
/** This run's scratch folder (made on first use, removed by the runner at the end). */
export function work(): string {
  workDir ??= mkdtempSync(join(scratchRoot, "tidings-bench-"));
  return workDir;
}
/** A folder of its own in the scratch folder. */
export function workFolder(name: string): string {
  const dir = join(work(), name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
export function removeWork(): void {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}

const runStarted = performance.now();
export function log(message: string): void {
  const elapsed = ((performance.now() - runStarted) / 1000).toFixed(0).padStart(4);
  console.log(`[${elapsed}s] ${message}`);
}
/** Seconds since the run started. */
export const elapsedSeconds = () => (performance.now() - runStarted) / 1000;

let visitorBase = 1_000_000;
/** A fresh range of visitor numbers, so no two runs share a visitor or an address. */
export function freshVisitors(): number {
  visitorBase += 1_000_000;
  return visitorBase;
}

// ---- Problems: what a smoke run fails on ----

const problems: string[] = [];
/**
 * Something a benchmark did that means it no longer measures what it says: a load that paired
 * nobody, delivered nothing or was answered with errors, a baseline whose SQL drifted from the
 * app's. A full run goes on and prints them; a smoke run (./scripts/test) fails on them.
 */
export function problem(text: string): void {
  problems.push(text);
}
/** The problems noted since the last call. */
export function takeProblems(): string[] {
  return problems.splice(0);
}

// ---- The Node baselines ----

/** The pinned versions of the Node baselines' packages (node/package.json). */
export const NODE_PACKAGES = (
  JSON.parse(readFileSync(join(NODE_DIR, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  }
).dependencies;

export interface NodeBaselines {
  /** Node's version, which runs Express and Socket.IO under Node. */
  version: string;
  /** better-sqlite3 is compiled, so Express can run (not in a smoke run). */
  native: boolean;
}
let nodeState: NodeBaselines | Error = new Error("not installed (no benchmark needed them)");
/** The Node baselines' dependencies once installed, or why they cannot run. */
export const nodeBaselines = (): NodeBaselines | Error => nodeState;
export function setNodeBaselines(state: NodeBaselines | Error): void {
  nodeState = state;
}

// ---- Servers ----

export async function withServers<T>(
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

let webBuildFile: string | undefined;
/**
 * App servers of this run take the front end from this file (a build made once) instead of
 * bundling it at start, as the compiled binary does. Only a smoke run sets it: a server that
 * bundles at start holds the bundler's memory after, which the memory rows have always counted.
 */
export function setWebBuild(file: string): void {
  webBuildFile = file;
}
/** Writes the front end's build once, for setWebBuild. */
export async function writeWebBuild(): Promise<string> {
  const { buildWeb } = await import("../../src/server/assets.ts");
  const file = join(work(), "web-build.json");
  writeFileSync(file, JSON.stringify(await buildWeb()));
  return file;
}

/** What every app server of this run is started with (app-server.ts reads it). */
export function appServerEnv(): Record<string, string> {
  return { SECRET, ...(webBuildFile ? { BENCH_WEB_BUILD: webBuildFile } : {}) };
}

/** The app as a server under test, on SQLite in `dataDir` unless `env` says otherwise. */
export const appServer =
  (dataDir: string, env: Record<string, string> = {}) =>
  () =>
    startServer("app-server.ts", { ...appServerEnv(), DATA_DIR: dataDir, ...env });

// ---- HTTP load ----

export interface HttpSettings {
  size: Size;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  rounds: number;
}

export function httpSettings(size: Size): HttpSettings {
  return {
    size,
    concurrency: 32,
    warmupMs: { full: 500, quick: 300, smoke: 200 }[size],
    durationMs: { full: 2000, quick: 1000, smoke: 1000 }[size],
    // Five rounds each in a full run: other work on a shared machine moves single rounds a lot.
    rounds: { full: 5, quick: 2, smoke: 1 }[size],
  };
}

/**
 * Throws answer the bottles' age gate first, as a browser does before its first throw. Each
 * request of the load is a visitor of its own, so a pool of visitors answers during the
 * setup, before the warm-up: `perSecond` for each second of the window, warm-up included. A
 * load that throws faster than that wraps around the pool (a visitor's second throw, inside
 * the limit of 5 a minute) and says how often; one that would need a sixth throw stops early.
 * A smoke run only needs the path to work: a small pool, each visitor throwing up to 5 times.
 */
export function throwPool(settings: HttpSettings, perSecond = 8000): number {
  // A visitor's second throw of the same text is refused as a repeat, so the pool must outlast
  // the load: on a quiet machine a smoke round throws well over 1,000 a second.
  const rate = settings.size === "smoke" ? 2000 : perSecond;
  return Math.ceil((rate * (settings.warmupMs + settings.durationMs)) / 1000);
}

/** Options of one HTTP load on `url` (or split over `urls`): the path's kind decides the rest. */
export function httpLoad(
  settings: HttpSettings,
  target: Omit<HttpLoadOptions, "concurrency" | "warmupMs" | "durationMs" | "firstVisitor">,
): HttpLoadOptions {
  return {
    ...target,
    concurrency: settings.concurrency,
    warmupMs: settings.warmupMs,
    durationMs: settings.durationMs,
    firstVisitor: freshVisitors(),
    ...(target.kind === "throw" && target.path.startsWith("/trpc/")
      ? { agePool: target.agePool ?? throwPool(settings) }
      : {}),
  };
}

/** Runs one HTTP load and notes what says it measured nothing. */
export async function runHttpLoad(what: string, options: HttpLoadOptions): Promise<HttpLoadResult> {
  const r = await runLoad<HttpLoadResult>("load-http.ts", options);
  if (r.answered === 0) problem(`${what}: no request was answered 200`);
  else if (r.requests === 0) problem(`${what}: no answer came within the measured window`);
  const other = Object.entries(r.statuses).filter(([status]) => status !== "200");
  if (other.length > 0) {
    problem(`${what}: answers other than 200 (${other.map(([s, n]) => `${s}: ${n}`).join(", ")})`);
  }
  if (r.errors > 0) problem(`${what}: ${r.errors} connection errors`);
  return r;
}

/** Load on each server in turn, `rounds` times round the list; the results in list order. */
export async function interleavedMany(
  settings: HttpSettings,
  targets: Array<{ server: ServerChild; path: string; name: string }>,
  kind: HttpLoadOptions["kind"],
): Promise<HttpLoadResult[][]> {
  const results = targets.map(() => [] as HttpLoadResult[]);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [i, { server, path, name }] of targets.entries()) {
      const into = results[i] as HttpLoadResult[];
      into.push(
        await runHttpLoad(
          `${kind} on ${name}`,
          httpLoad(settings, { url: server.url, path, kind, serverPid: server.pid }),
        ),
      );
    }
  }
  return results;
}

/** Alternates load on two servers, `rounds` times each, and keeps every result. */
export async function interleaved(
  settings: HttpSettings,
  ours: ServerChild,
  oursPath: string,
  theirs: ServerChild,
  theirsPath: string,
  kind: HttpLoadOptions["kind"],
): Promise<{ ours: HttpLoadResult[]; theirs: HttpLoadResult[] }> {
  const [theirResults = [], ourResults = []] = await interleavedMany(
    settings,
    [
      { server: theirs, path: theirsPath, name: "the baseline" },
      { server: ours, path: oursPath, name: "ours" },
    ],
    kind,
  );
  return { ours: ourResults, theirs: theirResults };
}

export function summarizeHttp(results: HttpLoadResult[]) {
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
    /** Throws that were a pool visitor's second or later (see throwPool). */
    reused: results.reduce((sum, r) => sum + (r.agePoolReused ?? 0), 0),
    /** Rounds that stopped early: every pool visitor had thrown 5 times. */
    exhausted: results.filter((r) => r.agePoolExhausted).length,
  };
}
export type HttpSummary = ReturnType<typeof summarizeHttp>;

/** Rounds' requests/s, for the notes. */
export const roundsOf = (results: HttpLoadResult[]) => results.map((r) => fmt(r.rps)).join(", ");

// ---- Chat and matching load ----

export interface ChatSettings {
  warmupMs: number;
  durationMs: number;
  rounds: number;
  /** The probe's quiet time before the messages (the cluster benchmarks). */
  quietMs: number;
}

export function chatSettings(size: Size): ChatSettings {
  return {
    warmupMs: { full: 1000, quick: 1000, smoke: 300 }[size],
    durationMs: { full: 3000, quick: 1500, smoke: 1000 }[size],
    rounds: { full: 3, quick: 1, smoke: 1 }[size],
    quietMs: { full: 2000, quick: 2000, smoke: 500 }[size],
  };
}

/**
 * Runs one chat load to its end and notes what says it measured nothing: a round that
 * delivered nothing, or error answers. (A generator that pairs nobody fails on its own.)
 * Nothing delivered in the window (a stalled server) leaves no latency: counted as endless.
 */
export async function runChatLoad(what: string, options: ChatLoadOptions): Promise<ChatLoadResult> {
  const r = await runLoad<ChatLoadResult>("load-chat.ts", options, 180_000);
  if (r.delivered === 0) problem(`${what}: nothing was delivered (${fmt(r.sent)} sent)`);
  if (r.errors > 0) {
    problem(`${what}: ${r.errors} error answers (first: ${r.firstError?.slice(0, 200)})`);
  }
  for (const key of ["p50", "p99", "max"] as const) {
    if (typeof r[key] !== "number" || !Number.isFinite(r[key])) r[key] = Number.POSITIVE_INFINITY;
  }
  return r;
}

/** Runs one matching load and notes what says it measured nothing. */
export async function runMatchLoad(
  what: string,
  options: MatchLoadOptions,
): Promise<MatchLoadResult> {
  const r = await runLoad<MatchLoadResult>("load-match.ts", options);
  if (r.matchedOnce === 0) problem(`${what}: nobody was paired (${r.visitors} pressed start)`);
  if (r.errors > 0) {
    problem(`${what}: ${r.errors} error answers (first: ${r.firstError?.slice(0, 200)})`);
  }
  return r;
}

/** The round with the median p99 (the higher middle one of an even count). */
export function medianRound(results: ChatLoadResult[]): ChatLoadResult {
  const sorted = [...results].sort((a, b) => a.p99 - b.p99);
  return sorted[Math.floor(sorted.length / 2)] as ChatLoadResult;
}

/** Kept up: every message delivered, no error answer, the offered rate sent, p99 ≤ 100 ms. */
export function sustained(r: ChatLoadResult): boolean {
  return r.errors === 0 && r.lost === 0 && r.sentRate >= 0.95 * r.offered && r.p99 <= 100;
}

/** The 1-minute load average of the machine, from /proc. */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ")[0] ?? "?";
}
