/**
 * `bun run bench [name ... | --cluster] [--quick | --smoke]`, `bun run bench --notes`
 *
 * Runs the benchmarks (benchmarks/index.ts) in sequence and writes BENCHMARKS.md. Every server
 * under test and every baseline runs as its own process, and so does every load generator;
 * each figure is compared with its raw baseline measured in the same invocation, interleaved
 * where it can be, so that the noise of a shared machine falls on both. Naming some benchmarks
 * runs only those and updates their rows in BENCHMARKS.md.
 *
 * --quick runs shorter and smaller, for development, and prints the table without writing the
 * file. --smoke runs every benchmark at the smallest size that still exercises it (a few
 * pairs, about a second each, the 10k database), writes nothing, and exits non-zero when a
 * benchmark fails or measured nothing; ./scripts/test runs it for the benchmarks on one
 * instance, and under CLUSTER=1 with --cluster for those on PostgreSQL and Redis. --cluster
 * selects those alone. --notes runs nothing and writes BENCHMARKS.md again from the figures
 * it records, with the current NOTES.md.
 */

import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { BENCHMARKS } from "./benchmarks/index.ts";
import {
  elapsedSeconds,
  ensureNodeBaselines,
  loadAverage,
  log,
  ROOT,
  removeWork,
  scratchRoot,
  setNodeBaselines,
  setWebBuild,
  stopAllChildren,
  takeProblems,
  writeWebBuild,
} from "./lib.ts";
import { type Recorded, readPrevious, render, type Sections, writeReport } from "./report.ts";
import { type Benchmark, noFigure, type Size, tableRow } from "./section.ts";

const NAMES = BENCHMARKS.map((b) => b.name);
const MD_FILE = join(ROOT, "BENCHMARKS.md");

const args = process.argv.slice(2);
const size: Size = args.includes("--smoke") ? "smoke" : args.includes("--quick") ? "quick" : "full";
const named = args.filter((a) => !a.startsWith("--"));
const FLAGS = ["--quick", "--smoke", "--cluster", "--notes"];
for (const flag of args.filter((a) => a.startsWith("--"))) {
  if (!FLAGS.includes(flag)) {
    console.error(`unknown option ${flag}; choose from ${FLAGS.join(", ")}`);
    process.exit(2);
  }
}
for (const name of named) {
  if (!NAMES.includes(name)) {
    console.error(`unknown benchmark ${name}; choose from ${NAMES.join(", ")}`);
    process.exit(2);
  }
}
/**
 * Named ones; with --cluster, those that need PostgreSQL and Redis; otherwise all, but a smoke
 * run leaves those out (./scripts/test runs them under CLUSTER=1, with --cluster).
 */
const clusterOnly = args.includes("--cluster");
const needsCluster = (b: Benchmark) => b.needs?.includes("cluster") ?? false;
const selected: Benchmark[] =
  named.length > 0
    ? BENCHMARKS.filter((b) => named.includes(b.name))
    : BENCHMARKS.filter((b) =>
        clusterOnly ? needsCluster(b) : size !== "smoke" || !needsCluster(b),
      );
const partial = selected.length < BENCHMARKS.length;

/** `--notes`: BENCHMARKS.md written again from its recorded figures with today's NOTES.md. */
function rewriteNotes(): void {
  const text = readFileSync(MD_FILE, "utf8");
  const meta = text
    .split("\n")
    .filter((line) => /^(Machine: |Last full run: |The last full run took )/.test(line));
  const sections = readPrevious(MD_FILE);
  writeReport(MD_FILE, sections, render(sections, meta, NAMES));
  console.log("BENCHMARKS.md written again with the notes of NOTES.md; no benchmark ran.");
}

/**
 * The Node baselines the selected benchmarks need: Express's native part only in a real run.
 * Answers why they cannot run, if they cannot (a smoke run fails on it: Socket.IO must run).
 */
async function installNodeBaselines(): Promise<string | undefined> {
  const needs = new Set(selected.flatMap((b) => b.needs ?? []));
  if (!needs.has("node") && !needs.has("socket.io")) return undefined;
  try {
    setNodeBaselines(await ensureNodeBaselines(log, needs.has("node") && size !== "smoke"));
    return undefined;
  } catch (error) {
    // The rows that compare with Node's libraries are left out and the notes say why.
    const reason = error instanceof Error ? error : new Error(String(error));
    setNodeBaselines(reason);
    console.error(reason);
    return `the Node baselines (Socket.IO, Express) cannot run: ${reason.message.slice(0, 300)}`;
  }
}

async function runOne(
  benchmark: Benchmark,
  cores: string,
): Promise<{
  section: Omit<Recorded, "date">;
  problems: string[];
}> {
  const loadBefore = loadAverage();
  try {
    const section = await benchmark.run(size);
    // Other work on a shared machine moves every figure; the load says how much there was.
    section.notes.push(
      `Load average (1 min) on the ${cores} cores: ${loadBefore} when this section started, ${loadAverage()} when it ended (this run's own processes included).`,
    );
    const problems = takeProblems();
    for (const row of section.rows) {
      // A figure of ours that is not there: a load that measured nothing.
      if (noFigure(row.ours)) problems.push(`row without a figure: ${row.benchmark}`);
    }
    return { section: { ...section, rows: section.rows.map(tableRow) }, problems };
  } catch (error) {
    console.error(error);
    return {
      section: {
        title: benchmark.name,
        rows: [tableRow({ benchmark: `${benchmark.name}: failed`, ours: "—", met: "no" })],
        notes: [`The run failed: ${String(error).slice(0, 500)}`],
      },
      problems: [...takeProblems(), `failed: ${String(error).slice(0, 500)}`],
    };
  }
}

async function main(): Promise<number> {
  if (args.includes("--notes")) {
    rewriteNotes();
    return 0;
  }
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  const cores = Bun.spawnSync(["nproc"]).stdout.toString().trim();
  const model = cpus()[0]?.model ?? "unknown CPU";
  const previousText = existsSync(MD_FILE) ? readFileSync(MD_FILE, "utf8") : "";
  const meta = [
    `Machine: ${cores} cores (\`nproc\`), ${model}, ${(Number(readFileSync("/proc/meminfo", "utf8").match(/MemTotal:\s+(\d+)/)?.[1] ?? 0) / 1024 / 1024).toFixed(0)} GiB; Bun ${Bun.version}; databases on ${scratchRoot === "/dev/shm" ? "tmpfs (/dev/shm)" : scratchRoot}.`,
    partial
      ? `Last full run: none yet (updated ${date} UTC: ${selected.map((b) => b.name).join(", ")}).`
      : `Last full run: ${date} UTC.`,
  ];
  const sections: Sections = size === "full" ? readPrevious(MD_FILE) : {};
  if (partial) {
    const previous = previousText.match(/^Last full run: .*$/m)?.[0];
    if (previous) {
      meta[1] = `${previous.replace(/ \(updated .*$/, "").replace(/\.$/, "")} (updated ${date} UTC: ${selected.map((b) => b.name).join(", ")}).`;
    }
  }
  const failures: string[] = [];
  const nodeProblem = await installNodeBaselines();
  if (nodeProblem) failures.push(nodeProblem);
  // Each app server would otherwise bundle the front end as it starts, seconds each on a
  // busy machine: a smoke run builds it once (full runs keep measuring the server as it was).
  if (size === "smoke") setWebBuild(await writeWebBuild());
  // contacts.ts prints what the contact check costs, recorded nowhere: a smoke run runs it small
  // so that a product change cannot break it unseen.
  if (size === "smoke" && !clusterOnly && named.length === 0) {
    const tool = Bun.spawnSync([process.execPath, join(import.meta.dir, "contacts.ts"), "--quick"]);
    if (tool.exitCode !== 0) failures.push(`contacts.ts: ${tool.stderr.toString().slice(0, 300)}`);
  }
  for (const benchmark of selected) {
    log(`${benchmark.name}…`);
    const started = performance.now();
    const { section, problems } = await runOne(benchmark, cores);
    sections[benchmark.name] = { ...section, date: `${date} UTC` };
    for (const text of problems) {
      console.error(`${size === "smoke" ? "FAIL" : "WARNING"} ${benchmark.name}: ${text}`);
      failures.push(`${benchmark.name}: ${text}`);
    }
    log(`${benchmark.name} done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const total = elapsedSeconds();
  if (partial) {
    const full = previousText.match(/^The last full run took (\d+) s/m)?.[1];
    meta.push(
      `${full ? `The last full run took ${full} s; ` : ""}this update took ${total.toFixed(0)} s${size === "quick" ? " (--quick)" : ""}.`,
    );
  } else {
    meta.push(
      `The last full run took ${total.toFixed(0)} s${size === "quick" ? " (--quick)" : ""}.`,
    );
  }
  const text = render(sections, meta, NAMES);
  if (size === "full") {
    writeReport(MD_FILE, sections, text);
    console.log(`\nBENCHMARKS.md written (${total.toFixed(0)} s).`);
    return 0;
  }
  // A smoke run shows its table only; --quick the whole file as it would be written.
  console.log(`\n${size === "smoke" ? text.slice(0, text.indexOf("\n## ")) : text}`);
  console.log(`--${size}: BENCHMARKS.md left as it was (${total.toFixed(0)} s).`);
  if (size === "smoke") {
    if (failures.length > 0) {
      console.error(
        `\nsmoke: ${failures.length} problem(s):\n${failures.map((f) => `- ${f}`).join("\n")}`,
      );
      return 1;
    }
    console.log(`smoke: ${selected.length} benchmarks ran and measured something.`);
  }
  return 0;
}

process.on("SIGINT", async () => {
  await stopAllChildren();
  removeWork();
  process.exit(130);
});

let code = 1;
try {
  code = await main();
} finally {
  await stopAllChildren();
  removeWork();
}
process.exit(code);
