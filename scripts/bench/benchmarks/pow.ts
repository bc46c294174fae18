/**
 * Proof of work's costs: the server's CPU to issue and to verify a challenge (µs), and what one
 * core of a script's machine still does per minute at the default cost and at the raised one
 * (altcha-lib's solver with node:crypto's PBKDF2, native code as a script would run). The
 * browser's solve times come from scripts/bench/pow-browser.mjs (Playwright runs under Node).
 * Plugs into run.ts as one line in benchmarks/index.ts; `bun scripts/bench/benchmarks/pow.ts`
 * prints the section alone.
 */
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { PRESSURE, ProofOfWork } from "../../../src/core/pow/proof-of-work.ts";
import { MemoryPassStore, type SolutionStore } from "../../../src/core/pow/stores.ts";
import { type Benchmark, fmt, median, type Section, type Size } from "../section.ts";

/** The default of POW_COST (src/server/config.ts). */
const DEFAULT_COST = 1000;

/** Records in memory: this measures the cryptography, not the store. */
class CountingStore implements SolutionStore {
  readonly #seen = new Set<string>();
  async record(id: string): Promise<boolean> {
    if (this.#seen.has(id)) return false;
    this.#seen.add(id);
    return true;
  }
  async purge(): Promise<void> {}
}

function proofOfWork(cost: number): ProofOfWork {
  return new ProofOfWork({
    enabled: true,
    cost,
    secret: "a benchmark's secret of at least 32 characters",
    solutions: new CountingStore(),
    passes: new MemoryPassStore(Date.now, 60_000),
    now: Date.now,
  });
}

async function serverCosts(runs: number): Promise<{ issueUs: number; verifyUs: number }> {
  const pow = proofOfWork(1);
  const who = { visitorId: "bench", ipKey: "bench" };
  const issue: number[] = [];
  const verify: number[] = [];
  for (let i = 0; i < runs; i++) {
    let started = performance.now();
    const challenge = await pow.challenge("throw", who);
    issue.push((performance.now() - started) * 1000);
    if (!challenge) throw new Error("no challenge");
    const solution = await solveChallenge({ challenge, deriveKey });
    const payload = JSON.stringify({ challenge, solution });
    started = performance.now();
    await pow.verify("throw", payload, who);
    verify.push((performance.now() - started) * 1000);
  }
  return { issueUs: median(issue), verifyUs: median(verify) };
}

/** Solves per minute on one core at `cost`, over `seconds` of solving. */
async function solvesPerMinute(cost: number, seconds: number): Promise<number> {
  const pow = proofOfWork(cost);
  const who = { visitorId: "script", ipKey: "script" };
  let solved = 0;
  let spent = 0;
  while (spent < seconds * 1000) {
    const challenge = await pow.challenge("throw", who);
    if (!challenge) throw new Error("no challenge");
    const started = performance.now();
    await solveChallenge({ challenge, deriveKey });
    spent += performance.now() - started;
    solved += 1;
  }
  return (solved / spent) * 60_000;
}

async function run(size: Size): Promise<Section> {
  const runs = size === "full" ? 200 : size === "quick" ? 50 : 5;
  const seconds = size === "full" ? 20 : size === "quick" ? 5 : 0.5;
  const { issueUs, verifyUs } = await serverCosts(runs);
  const atDefault = await solvesPerMinute(DEFAULT_COST, seconds);
  const raised = await solvesPerMinute(DEFAULT_COST * PRESSURE.factor, seconds);
  const row = (benchmark: string, ours: string) => ({
    benchmark,
    ours,
    baseline: "—",
    ratio: "—",
    goal: "—",
    met: "—" as const,
  });
  return {
    title: "Proof of work (ALTCHA)",
    rows: [
      row("Issue a challenge, server CPU (µs, median)", fmt(issueUs)),
      row("Verify a solution, server CPU (µs, median)", fmt(verifyUs)),
      row(`Solves per minute, one attacker core, POW_COST ${DEFAULT_COST}`, fmt(atDefault)),
      row(`Solves per minute, one attacker core, raised ${PRESSURE.factor}×`, fmt(raised)),
    ],
    notes: [
      "PBKDF2-SHA-256, 250 rounds a derivation; issuing derives once, verifying checks two HMACs.",
    ],
  };
}

export const pow: Benchmark = { name: "pow", run };

if (import.meta.main) {
  const section = await run((process.argv[2] as Size | undefined) ?? "quick");
  for (const r of section.rows) console.log(`${r.benchmark}: ${r.ours}`);
}
