/**
 * Helpers shared by the benchmark runner, its servers and its load generators: spawning child
 * processes that announce themselves with one JSON line, percentiles, and /proc readings.
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { signedVisitorId, visitorKey } from "../../src/server/visitor-id.ts";

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
async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  const reader = stream.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
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

/**
 * Starts `bun [bunFlags] <script>` and waits for the JSON line `{"ready":true,"url":...}` on
 * its stdout.
 */
export function startServer(
  script: string,
  env: Record<string, string> = {},
  args: string[] = [],
  timeoutMs = 120_000,
  bunFlags: string[] = [],
): Promise<ServerChild> {
  const argv = [BUN, ...bunFlags, join(BENCH_DIR, script), ...args];
  return startProcess(script, argv, env, timeoutMs);
}

/** Starts `node scripts/bench/node/<script>` (see ensureNodeBaselines) the same way. */
export function startNodeServer(
  script: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<ServerChild> {
  return startProcess(script, [NODE, join(NODE_DIR, script)], env, timeoutMs);
}

async function startProcess(
  script: string,
  argv: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ServerChild> {
  const child = Bun.spawn(argv, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  running.add(child);
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
 * Installs the Node baselines' pinned dependencies (scripts/bench/node/package-lock.json) with
 * `npm ci` when they are missing or were installed from another lock file or for another Node,
 * and answers the Node version that runs them and whether their native part is built. No
 * prebuilt better-sqlite3 binary can be fetched here, so a full install compiles it with
 * node-gyp (one to two minutes on two cores); node-gyp is pointed at the headers that come with
 * the system's Node when they are there, rather than downloading them. Without `native` (a
 * smoke run), install scripts are skipped: Socket.IO and Express are plain JavaScript, only
 * better-sqlite3 (Express's database) is then missing.
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
  const child = Bun.spawn([BUN, join(BENCH_DIR, script), JSON.stringify(options)], {
    cwd: ROOT,
    env: process.env,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  running.add(child);
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

export interface Latency {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** p50/p99/mean/max of a list of milliseconds. */
export function summarize(values: ArrayLike<number>): Latency {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const at = (p: number) =>
    n === 0 ? Number.NaN : (sorted[Math.min(n - 1, Math.floor(p * n))] ?? 0);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: n,
    p50: at(0.5),
    p99: at(0.99),
    mean: n === 0 ? Number.NaN : sum / n,
    max: n === 0 ? Number.NaN : (sorted[n - 1] ?? 0),
  };
}

/** Resident memory of a process, in KiB, from /proc. */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) : Number.NaN;
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at index 2 (state).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100; // CLK_TCK is 100 on Linux
}

/** The SECRET of every site the benchmarks start, so their clients can sign visitor ids. */
export const BENCH_SECRET = "bench-secret-0123456789abcdef0123456789";

/** A visitor cookie's value for an id, signed as a site with BENCH_SECRET issues it. */
export function signedVisitor(id: string): string {
  return signedVisitorId(visitorKey(BENCH_SECRET), id);
}

/** A visitor cookie value, signed: an id of 22 characters of [A-Za-z0-9_-], unique per (prefix, n). */
export function visitorCookie(prefix: string, n: number): string {
  return signedVisitor(`${prefix}${n.toString(36)}`.padEnd(22, "_").slice(0, 22));
}

/** A private address, unique for n < 2^24: 10.x.y.z (the country lookup answers Unknown). */
export function privateAddress(n: number): string {
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
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
