/**
 * The one helper library of the benchmarks: child processes that announce themselves with one
 * JSON line, percentiles and /proc readings, signed visitors, and what the benchmark modules
 * share while they run (scratch folder, log, servers around a body, loads, Node baselines, the
 * problems a run met). The runner (run.ts) sets the shared state up; modules only use it.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { signedVisitorId, visitorKey } from "../../src/server/visitor-id.ts";
import type {
  ChatLoadOptions,
  ChatLoadResult,
  IdleLoadOptions,
  MatchLoadOptions,
  MatchLoadResult,
} from "./load-chat.ts";
import type { HttpLoadOptions, HttpLoadResult } from "./load-http.ts";
import {
  fmt,
  median,
  medianBy,
  ms,
  notAbove,
  type Row,
  ratioOf,
  type Size,
  yes,
} from "./section.ts";

export const ROOT = join(import.meta.dir, "..", "..");
export const BENCH_DIR = import.meta.dir;
export const BUN = process.execPath;
/** Node, for the baselines a builder would write under Node (scripts/bench/node/). */
export const NODE = process.env.NODE_BIN ?? Bun.which("node") ?? "node";
export const NODE_DIR = join(BENCH_DIR, "node");

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A server under test or a baseline, running as its own process. */
export interface ServerChild {
  url: string;
  pid: number;
  /** Lines the child wrote to stderr (kept for error messages). */
  stderr: string[];
  /** Everything its ready line said (a baseline may report its settings there). */
  ready: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Reads a stream line by line, calling `onLine` for each; resolves when the stream ends. */
async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let buffered = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const lines = (buffered + decoder.decode(read.value, { stream: true })).split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) onLine(line);
  }
  if (buffered) onLine(buffered);
}

async function stopChild(child: Subprocess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const exited = await Promise.race([child.exited.then(() => true), sleep(6000).then(() => false)]);
  if (!exited) {
    child.kill("SIGKILL");
    await child.exited;
  }
}

/** Every child still running, so the runner can stop them if it is interrupted. */
const running = new Set<Subprocess>();
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

/** A child of this run, in the project's folder, its output read through pipes. */
function spawn(argv: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(argv, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  running.add(child);
  return child;
}

/** Starts `bun <script>` and waits for the JSON line `{"ready":true,"url":...}` on its stdout. */
export function startServer(
  script: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<ServerChild> {
  return startProcess(script, [BUN, join(BENCH_DIR, script), ...args], env, 120_000);
}

/** Starts `node scripts/bench/node/<script>` (see ensureNodeBaselines) the same way. */
export function startNodeServer(script: string, env: Record<string, string> = {}) {
  return startProcess(script, [NODE, join(NODE_DIR, script)], env, 60_000);
}

async function startProcess(
  script: string,
  argv: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ServerChild> {
  const child = spawn(argv, env);
  const stderr: string[] = [];
  void readLines(child.stderr, (line) => {
    stderr.push(line);
    if (stderr.length > 200) stderr.shift();
  });
  const ready = new Promise<{ url: string; pid: number; message: Record<string, unknown> }>(
    (resolve, reject) => {
      void readLines(child.stdout, (line) => {
        if (!line.startsWith("{")) return;
        try {
          const message = JSON.parse(line) as { ready?: boolean; url?: string; pid?: number };
          if (message.ready && message.url)
            resolve({ url: message.url, pid: message.pid ?? child.pid, message });
        } catch {
          // not our line
        }
      }).then(() => reject(new Error(`${script} ended before it was ready: ${stderr.join("\n")}`)));
    },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${script} not ready after ${timeoutMs} ms: ${stderr.join("\n")}`)),
      timeoutMs,
    );
  });
  try {
    const { url, pid, message } = await Promise.race([ready, timeout]).finally(() =>
      clearTimeout(timer),
    );
    return {
      url,
      pid,
      stderr,
      ready: message,
      async stop() {
        await stopChild(child);
        running.delete(child);
      },
    };
  } catch (error) {
    await stopChild(child);
    running.delete(child);
    throw error;
  }
}

/**
 * Installs the Node baselines' pinned dependencies (node/package-lock.json) with `npm ci` when
 * missing or installed from another lock file or Node; answers Node's version and whether the
 * native part (better-sqlite3, compiled by node-gyp against the system's Node headers when
 * there) is built. Without `native` (a smoke run) install scripts are skipped: Socket.IO and
 * Express are plain JavaScript, only Express's database is then missing.
 */
export async function ensureNodeBaselines(
  log: (message: string) => void,
  native = true,
): Promise<{ version: string; native: boolean }> {
  const version = Bun.spawnSync([NODE, "--version"]).stdout.toString().trim();
  const major = Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
  if (major < 20)
    throw new Error(
      `Node 20 or later is needed for the baselines (found ${NODE} ${version || "none"})`,
    );
  const lock = readFileSync(join(NODE_DIR, "package-lock.json"), "utf8");
  const stamp = join(NODE_DIR, "node_modules", ".bench-installed");
  const scriptsOnly = join(NODE_DIR, "node_modules", ".bench-installed-js");
  const wanted = `${Bun.hash(lock).toString(16)} ${version}`;
  const stamped = (file: string) => existsSync(file) && readFileSync(file, "utf8") === wanted;
  if (stamped(stamp)) return { version, native: true };
  if (!native && stamped(scriptsOnly)) return { version, native: false };
  log(
    native
      ? "installing the Node baselines' dependencies (npm ci, compiles better-sqlite3)…"
      : "installing the Node baselines' JavaScript (npm ci --ignore-scripts)…",
  );
  const env: Record<string, string | undefined> = { ...process.env };
  if (!env.npm_config_nodedir && existsSync("/usr/include/node/node.h")) {
    env.npm_config_nodedir = "/usr";
  }
  const npm = Bun.spawn(
    [
      "npm",
      "ci",
      "--prefix",
      NODE_DIR,
      "--no-audit",
      "--no-fund",
      // The cache's copies, exact by the lockfile, without asking the registry again.
      "--prefer-offline",
      ...(native ? [] : ["--ignore-scripts"]),
    ],
    { cwd: NODE_DIR, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  const [out, err] = await Promise.all([
    new Response(npm.stdout).text(),
    new Response(npm.stderr).text(),
  ]);
  if ((await npm.exited) !== 0) {
    throw new Error(`npm ci for the Node baselines failed: ${(err || out).slice(-2000)}`);
  }
  writeFileSync(native ? stamp : scriptsOnly, wanted);
  return { version, native };
}

/**
 * Runs a load generator `bun <script> '<json options>'` to its end and parses the last JSON
 * line it printed. Killed after `timeoutMs`.
 */
export async function runLoad<T>(
  script: string,
  options: unknown,
  timeoutMs = 120_000,
): Promise<T> {
  const child = spawn([BUN, join(BENCH_DIR, script), JSON.stringify(options)]);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.exited;
  clearTimeout(timer);
  running.delete(child);
  const line = out
    .trim()
    .split("\n")
    .reverse()
    .find((l) => l.startsWith("{"));
  if (!line) throw new Error(`${script} printed no result (exit ${child.exitCode}): ${err}`);
  return JSON.parse(line) as T;
}

/** The options a load generator was started with. */
export function loadOptions<T>(): T {
  const raw = process.argv[2];
  if (!raw) throw new Error("expected the options as one JSON argument");
  return JSON.parse(raw) as T;
}

/** How many, and p50/p99/mean/max to 0.01 ms, of a list of milliseconds. */
export function summarize(values: ArrayLike<number>) {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const at = (p: number) =>
    n === 0 ? Number.NaN : round(sorted[Math.min(n - 1, Math.floor(p * n))] ?? 0, 2);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { count: n, p50: at(0.5), p99: at(0.99), mean: round(sum / n, 2), max: at(1) };
}

/** Resident memory of a process, in KiB, from /proc. */
export function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : Number.NaN;
}

/** A process's parent and the CPU seconds (user + system) it has used so far, from /proc. */
export function procStat(pid: number): { parent: number; cpu: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces), from the state on; CLK_TCK is 100.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
}

export const cpuSeconds = (pid: number) => procStat(pid).cpu;

/** The SECRET of every site the benchmarks start, so their clients can sign visitor ids. */
export const BENCH_SECRET = "bench-secret-0123456789abcdef0123456789";

/** A visitor cookie's value for an id, signed as a site with BENCH_SECRET issues it. */
export function signedVisitor(id: string): string {
  return signedVisitorId(visitorKey(BENCH_SECRET), id);
}

// First octets of public, unicast IPv4 space (no private, loopback, CGNAT, test or multicast).
const PUBLIC_FIRST_OCTETS: number[] = [];
for (let a = 1; a <= 223; a++) {
  if ([10, 100, 127, 169, 172, 192, 198, 203].includes(a)) continue;
  PUBLIC_FIRST_OCTETS.push(a);
}

/**
 * A public address, unique per n below 3.5 billion, spread over many networks so the country
 * lookup works; never a network's .0 or .255. (Unique matters: the site limits each address as
 * a visitor, and two visitors on one address reach its limit twice as fast.)
 */
export function publicAddress(n: number): string {
  const first = PUBLIC_FIRST_OCTETS[n % PUBLIC_FIRST_OCTETS.length] ?? 1;
  const rest = Math.floor(n / PUBLIC_FIRST_OCTETS.length);
  const network = Math.floor(rest / 254);
  return `${first}.${(network >>> 8) & 255}.${network & 255}.${(rest % 254) + 1}`;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

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
 * Something that means a benchmark no longer measures what it says (a load that paired nobody,
 * a baseline whose SQL drifted): a full run prints it, a smoke run fails on it.
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

/** Headless Chromium as the browser benchmarks start it. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

// ---- Servers ----

/**
 * Starts the servers in turn, runs `body` on them and stops them, whatever happened; a list
 * written out gives `body` one server for each of its starts.
 */
export async function withServers<T, const S extends ReadonlyArray<() => Promise<ServerChild>>>(
  starts: S,
  body: (servers: { -readonly [K in keyof S]: ServerChild }) => Promise<T>,
): Promise<T> {
  const servers: ServerChild[] = [];
  try {
    for (const start of starts) servers.push(await start());
    return await body(servers as { -readonly [K in keyof S]: ServerChild });
  } finally {
    for (const server of servers) await server.stop();
  }
}

let webBuildFile: string | undefined;
/**
 * App servers of this run take the front end from this build instead of bundling it at start.
 * Only a smoke run sets it: the memory rows count the bundler's memory a server keeps.
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
  return { SECRET: BENCH_SECRET, ...(webBuildFile ? { BENCH_WEB_BUILD: webBuildFile } : {}) };
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
 * Throws answer the bottles' age gate first, as a browser does: a pool of visitors answers it
 * before the warm-up, `perSecond` for each second of the window. A faster load wraps around the
 * pool (within 5 throws a minute each) and says how often; one needing a sixth stops early.
 * A smoke round throws well over 1,000 a second on a quiet machine: its pool is sized for that.
 */
export function throwPool(settings: HttpSettings, perSecond = 8000): number {
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

/**
 * `rounds` rounds of `one` for each kind in turn, so that a burst of other work on the machine
 * falls on every kind alike; each kind's results in the order run.
 */
export async function inTurn<K extends string, R>(
  rounds: number,
  kinds: readonly K[],
  one: (kind: K, round: number) => Promise<R>,
): Promise<Record<K, R[]>> {
  const results = Object.fromEntries(kinds.map((kind) => [kind, [] as R[]])) as Record<K, R[]>;
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) results[kind].push(await one(kind, round));
  }
  return results;
}

/** Load on each server in turn, `rounds` times round the list; the results in list order. */
export async function interleaved(
  settings: HttpSettings,
  targets: Array<{ server: ServerChild; path: string; name: string }>,
  kind: HttpLoadOptions["kind"],
): Promise<HttpLoadResult[][]> {
  const results = targets.map(() => [] as HttpLoadResult[]);
  for (let round = 0; round < settings.rounds; round++) {
    for (const [i, { server, path, name }] of targets.entries()) {
      const options = httpLoad(settings, { url: server.url, path, kind, serverPid: server.pid });
      results[i]?.push(await runHttpLoad(`${kind} on ${name}`, options));
    }
  }
  return results;
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

/**
 * The two rows of an HTTP load against its baseline: requests/s (a goal on their ratio, if it has
 * one) and p50 / p99.
 */
export function httpRows(
  settings: HttpSettings,
  ours: HttpSummary,
  theirs: HttpSummary,
  what: { rate: string; latency?: string; baseline: string; goal?: number },
): Row[] {
  const { goal } = what;
  const ratio = ratioOf(ours.rps, theirs.rps);
  return [
    {
      benchmark: `${what.rate}: requests/s (${settings.concurrency} concurrent)`,
      ours: fmt(ours.rps),
      baseline: `${fmt(theirs.rps)} (${what.baseline})`,
      ratio: notAbove(ratio),
      ...(goal === undefined ? {} : { goal: `≥ ${goal}`, met: yes(ratio >= goal) }),
    },
    {
      benchmark: `${what.latency ?? what.rate}: p50 / p99 ms`,
      ours: `${ms(ours.p50)} / ${ms(ours.p99)}`,
      baseline: `${theirs.p50.toFixed(1)} / ${theirs.p99.toFixed(1)}`,
      ratio: ratioOf(ours.p99, theirs.p99).toFixed(2),
    },
  ];
}

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
 * Runs one chat load and notes what says it measured nothing: nothing delivered, or error
 * answers. Nothing delivered in the window (a stalled server) counts as endless latency.
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
  const r = await runLoad<MatchLoadResult>("load-chat.ts", options);
  if (r.matchedOnce === 0) problem(`${what}: nobody was paired (${r.visitors} pressed start)`);
  if (r.errors > 0) {
    problem(`${what}: ${r.errors} error answers (first: ${r.firstError?.slice(0, 200)})`);
  }
  return r;
}

/** `count` idle chat visitors held open on a server (load-chat.ts) until stopped. */
export function idleVisitors(url: string, mode: "app" | "raw", count: number) {
  const options: IdleLoadOptions = { url, mode, visitors: count, firstVisitor: freshVisitors() };
  return startServer("load-chat.ts", {}, [JSON.stringify(options)]);
}

/** The round with the median p99 (the higher middle one of an even count). */
export const medianRound = (results: ChatLoadResult[]) => medianBy(results, (r) => r.p99);

/** Everyone paired exactly once: nobody left or paired twice, every chat of two, no error. */
export const pairedOnce = (r: MatchLoadResult) =>
  r.matchedOnce === r.visitors && r.badChats === 0 && r.chats === r.visitors / 2 && r.errors === 0;

/** A time in seconds when it is whole seconds, in ms otherwise: "1 s", "200 ms". */
export const span = (t: number) => (t % 1000 === 0 ? `${t / 1000} s` : `${t} ms`);

/** Kept up: every message delivered, no error answer, the offered rate sent, p99 ≤ 100 ms. */
export function sustained(r: ChatLoadResult): boolean {
  return r.errors === 0 && r.lost === 0 && r.sentRate >= 0.95 * r.offered && r.p99 <= 100;
}

/** The 1-minute load average of the machine, from /proc. */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ")[0] ?? "?";
}

/** Fails the benchmark: the runner must never report a figure from a broken run. */
export function fail(message: string): never {
  throw new Error(message);
}

/**
 * Waits until `done` holds, asking every `everyMs`. Past `ms` it fails the run with what `failure`
 * says, or, with no `failure`, stops waiting.
 */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  ms: number,
  failure?: () => string,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) {
      if (failure) fail(failure());
      return;
    }
    await sleep(everyMs);
  }
}
