/**
 * Where the server's time goes in the chat relay: runs the app under Bun's CPU profiler
 * (`--cpu-prof`, and `--cpu-prof-md` for a readable copy) while load-chat.ts drives it, then
 * sums the profile's samples by function, by the package that made the call, and by a few
 * functions counted with everything they call.
 *
 *   bun scripts/bench/profile-chat.ts [pairs=1000] [rate=10000] [seconds=8]
 *
 * Samples are counted, not their time deltas: on a loaded machine one sample taken after the
 * process waited for a core carries the whole wait. Samples whose stack holds a connection's
 * upgrade or context (setup, before the measured window) are left out.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLoad, startServer } from "./lib.ts";
import type { ChatLoadOptions, ChatLoadResult } from "./load-chat.ts";

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

/** Frames that belong to opening a connection, not to relaying messages. */
const SETUP = new Set(["upgrade", "contextFor", "open"]);

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

export function summarizeProfile(profile: Profile, top = 25): string {
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
    if (stack.some((f) => SETUP.has(f.functionName))) {
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
    `${counted} samples while relaying (${setup} more while opening connections, left out).`,
    "",
    "By the package whose code ran or asked for the native work:",
    ...sorted(byPackage)
      .slice(0, 12)
      .map(([name, n]) => `  ${pct(n).padStart(7)}  ${name}`),
    "",
    "Functions with everything they call:",
    ...[
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
    ].map((name) => `  ${pct(inclusive.get(name) ?? 0).padStart(7)}  ${name}`),
    "",
    "Self, by function:",
    ...sorted(self)
      .slice(0, top)
      .map(([name, n]) => `  ${pct(n).padStart(7)}  ${name}`),
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  const [pairs = 1000, rate = 10_000, seconds = 8] = process.argv.slice(2).map(Number);
  const dir = mkdtempSync(join(tmpdir(), "tidings-profile-"));
  const data = join(dir, "data");
  mkdirSync(data);
  const server = await startServer(
    "app-server.ts",
    { DATA_DIR: data, SECRET: "bench-secret-0123456789abcdef0123456789" },
    [],
    120_000,
    ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${dir}`],
  );
  let result: ChatLoadResult;
  try {
    result = await runLoad<ChatLoadResult>(
      "load-chat.ts",
      {
        url: server.url,
        mode: "app",
        pairs,
        rate,
        warmupMs: 1000,
        durationMs: seconds * 1000,
        serverPid: server.pid,
        firstVisitor: 9_000_000,
      } satisfies ChatLoadOptions,
      180_000,
    );
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  const markdown = readdirSync(dir).find((f) => f.endsWith(".md"));
  console.log(
    `${pairs} pairs at ${rate}/s for ${seconds} s: sent ${result.sentRate}/s, p50 / p99 ${result.p50} / ${result.p99} ms, lost ${result.lost}, errors ${result.errors}, server CPU ${result.serverCpu} cores (≈ ${Math.round(((result.serverCpu ?? 0) / result.sentRate) * 1e6)} µs per message), generator CPU ${result.clientCpu}.`,
  );
  console.log(`Profile: ${join(dir, file)}${markdown ? ` and ${join(dir, markdown)}` : ""}\n`);
  console.log(summarizeProfile(JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile));
}

if (import.meta.main) await main();
