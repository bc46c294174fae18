/**
 * Where the server's time goes: runs the app under Bun's CPU profiler (`--cpu-prof`, and
 * `--cpu-prof-md` for a readable copy) while a load generator drives it, then sums the
 * profile's samples by function, by the package that made the call, and for a few functions
 * with everything they call.
 *
 *   bun scripts/bench/profile.ts chat [pairs=1000] [rate=10000] [seconds=8]
 *   bun scripts/bench/profile.ts discover [bottles=10000] [seconds=8]
 *   bun scripts/bench/profile.ts throw [seconds=8]
 *   bun scripts/bench/profile.ts match [visitors=2000] [preferences=1]
 *
 * PROFILE_DB_URL and PROFILE_REDIS_URL run the app on PostgreSQL and Redis instead of SQLite.
 *
 * Samples are counted, not their time deltas: on a loaded machine one sample taken after the
 * process waited for a core carries the whole wait. Samples whose stack holds a connection's
 * upgrade or context made at its opening (before the measured window) are left out.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLoad, startServer } from "./lib.ts";
import type { ChatLoadOptions, ChatLoadResult } from "./load-chat.ts";
import type { HttpLoadOptions, HttpLoadResult } from "./load-http.ts";
import type { MatchLoadOptions, MatchLoadResult } from "./load-match.ts";
import { seed } from "./seed.ts";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Frames that belong to opening a chat connection, not to relaying messages. */
const CHAT_SETUP = ["upgrade", "contextFor", "open"];
/** Functions whose share, with all they call, the chat's summary gives. */
const CHAT_FUNCTIONS = [
  "_objectSpread2",
  "getOwnPropertyDescriptors",
  "race",
  "stringify",
  "transformTRPCResponseItem",
  "cork",
  "callProcedure",
  "inputValidatorMiddleware",
  "eventStream",
  "emit",
];
const THROW_FUNCTIONS = [
  "callProcedure",
  "inputValidatorMiddleware",
  "throwBottle",
  "check",
  "hasContactDetails",
  "refuseRepeats",
  "take",
];
const MATCH_FUNCTIONS = [
  "callProcedure",
  "inputValidatorMiddleware",
  "startChat",
  "answerChatAge",
  "ageStanding",
  "interestKey",
  "stringify",
];
const DISCOVER_FUNCTIONS = [
  "fetchRequestHandler",
  "resolveResponse",
  "contextFor",
  "callProcedure",
  "_objectSpread2",
  "getOwnPropertyDescriptors",
  "inputValidatorMiddleware",
  "discoverBottle",
  "all",
  "stringify",
];

/** The package or part of the code a frame belongs to. */
function packageOf(frame: CallFrame): string | undefined {
  const url = frame.url;
  if (!url || url === "[native code]") return undefined;
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules) return inModules[1];
  if (url.startsWith("node:")) return url;
  const ours = /\/(src\/[^/]+\/[^/]+|db)\//.exec(url);
  return ours ? ours[1] : url;
}

function shortName(frame: CallFrame): string {
  const where = frame.url
    ? `${frame.url.replace(/^.*node_modules\//, "").replace(/^.*?\/(src|db|scripts)\//, "$1/")}:${frame.lineNumber + 1}`
    : "native";
  return `${frame.functionName || "(anonymous)"} ${frame.url === "[native code]" ? "(native)" : where}`;
}

export function summarizeProfile(
  profile: Profile,
  functions: string[],
  setupFrames: string[] = [],
  top = 25,
): string {
  const setupNames = new Set(setupFrames);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let counted = 0;
  let setup = 0;
  for (const id of profile.samples) {
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) stack.push(node.callFrame);
    }
    if (stack.some((f) => setupNames.has(f.functionName))) {
      setup += 1;
      continue;
    }
    const leaf = stack[0];
    if (!leaf || leaf.functionName === "(root)") continue;
    counted += 1;
    const leafName = shortName(leaf);
    self.set(leafName, (self.get(leafName) ?? 0) + 1);
    // Native work (JSON, socket writes, property copies) is charged to the JavaScript that asked.
    const owner = stack.map(packageOf).find((p) => p !== undefined) ?? "native, no caller";
    byPackage.set(owner, (byPackage.get(owner) ?? 0) + 1);
    for (const name of new Set(stack.map((f) => f.functionName).filter(Boolean))) {
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    }
  }
  const pct = (n: number) => `${((n / counted) * 100).toFixed(1)} %`;
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  const lines = [
    `${counted} samples${setupNames.size > 0 ? ` while relaying (${setup} more while opening connections, left out)` : ""}.`,
    "",
    "By the package whose code ran or asked for the native work:",
    ...sorted(byPackage)
      .slice(0, 12)
      .map(([name, n]) => `  ${pct(n).padStart(7)}  ${name}`),
    "",
    "Functions with everything they call:",
    ...functions.map((name) => `  ${pct(inclusive.get(name) ?? 0).padStart(7)}  ${name}`),
    "",
    "Self, by function:",
    ...sorted(self)
      .slice(0, top)
      .map(([name, n]) => `  ${pct(n).padStart(7)}  ${name}`),
  ];
  return lines.join("\n");
}

/** Runs `body` against the app under the profiler; answers its summary line and the profile. */
async function profiled(
  prepare: (dataDir: string) => Promise<void>,
  body: (url: string, pid: number) => Promise<string>,
  functions: string[],
  setupFrames: string[] = [],
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-profile-"));
  const data = join(dir, "data");
  mkdirSync(data);
  await prepare(data);
  const server = await startServer(
    "app-server.ts",
    {
      DATA_DIR: data,
      SECRET: "bench-secret-0123456789abcdef0123456789",
      // The app on PostgreSQL and Redis, as one instance of a scaled-out site.
      ...(process.env.PROFILE_DB_URL ? { DB_URL: process.env.PROFILE_DB_URL } : {}),
      ...(process.env.PROFILE_REDIS_URL ? { REDIS_URL: process.env.PROFILE_REDIS_URL } : {}),
    },
    [],
    120_000,
    ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${dir}`],
  );
  let summary: string;
  try {
    summary = await body(server.url, server.pid);
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  const markdown = readdirSync(dir).find((f) => f.endsWith(".md"));
  console.log(summary);
  console.log(`Profile: ${join(dir, file)}${markdown ? ` and ${join(dir, markdown)}` : ""}\n`);
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile;
  console.log(summarizeProfile(profile, functions, setupFrames));
}

/** An HTTP load of `seconds` on discover or throw, summed up in one line. */
function httpLoadFor(kind: "discover" | "throw", seconds: number, label: string) {
  return async (url: string, pid: number) => {
    const r = await runLoad<HttpLoadResult>("load-http.ts", {
      url,
      path: `/trpc/bottles.${kind}`,
      kind,
      concurrency: 32,
      warmupMs: 1000,
      durationMs: seconds * 1000,
      serverPid: pid,
      firstVisitor: 9_000_000,
      // Each visitor throws once: a second throw of the same text is refused as a repeat.
      ...(kind === "throw" ? { agePool: 3000 * (seconds + 1) } : {}),
    } satisfies HttpLoadOptions);
    return `${label} for ${seconds} s: ${r.rps} requests/s, p50 / p99 ${r.p50} / ${r.p99} ms, server CPU ${r.serverCpu} cores (≈ ${Math.round(((r.serverCpu ?? 0) / r.rps) * 1e6)} µs per request), statuses ${JSON.stringify(r.statuses)}.`;
  };
}

async function main(): Promise<void> {
  const [what = "chat", ...rest] = process.argv.slice(2);
  const numbers = rest.map(Number);
  if (what === "discover") {
    const [bottles = 10_000, seconds = 8] = numbers;
    await profiled(
      async (data) => {
        await seed(join(data, "tidings.db"), bottles);
      },
      httpLoadFor("discover", seconds, `discover on ${bottles} bottles`),
      DISCOVER_FUNCTIONS,
    );
    return;
  }
  if (what === "throw") {
    const [seconds = 8] = numbers;
    await profiled(async () => {}, httpLoadFor("throw", seconds, "throw"), THROW_FUNCTIONS, [
      "answerAgeGate",
      "confirmAge",
    ]);
    return;
  }
  if (what === "match") {
    const [visitors = 2000, preferences = 1] = numbers;
    await profiled(
      async () => {},
      async (url) => {
        const r = await runLoad<MatchLoadResult>("load-match.ts", {
          url,
          mode: "app",
          visitors,
          spreadMs: 1000,
          firstVisitor: 9_000_000,
          ...(preferences ? { preferences: { seed: 2026 } } : {}),
        } satisfies MatchLoadOptions);
        return `${visitors} visitors pressed start within 1 s${preferences ? " with preferences" : ""}: matched once ${r.matchedOnce}, p50 / p99 ${r.p50} / ${r.p99} ms, errors ${r.errors}.`;
      },
      MATCH_FUNCTIONS,
      CHAT_SETUP,
    );
    return;
  }
  const [pairs = 1000, rate = 10_000, seconds = 8] = numbers;
  await profiled(
    async () => {},
    async (url, pid) => {
      const r = await runLoad<ChatLoadResult>(
        "load-chat.ts",
        {
          url,
          mode: "app",
          pairs,
          rate,
          warmupMs: 1000,
          durationMs: seconds * 1000,
          serverPid: pid,
          firstVisitor: 9_000_000,
        } satisfies ChatLoadOptions,
        180_000,
      );
      return `${pairs} pairs at ${rate}/s for ${seconds} s: sent ${r.sentRate}/s (${r.skipped} skipped by a late generator), p50 / p99 ${r.p50} / ${r.p99} ms, lost ${r.lost}, errors ${r.errors}, server CPU ${r.serverCpu} cores (≈ ${Math.round(((r.serverCpu ?? 0) / r.sentRate) * 1e6)} µs per message), generator CPU ${r.clientCpu}.`;
    },
    CHAT_FUNCTIONS,
    CHAT_SETUP,
  );
}

if (import.meta.main) await main();
