/**
 * Proof of work's costs: a visitor's time to solve in headless Chromium through the site's own
 * worker, unthrottled and with 4× CPU throttling; the server's CPU to issue and to verify a
 * challenge (µs); throws per second with proof of work against without, interleaved; and what
 * one core of a script's machine still does per minute at the default cost and at the raised one
 * (altcha-lib's solver with node:crypto's PBKDF2, native code as a script would run).
 */
import { readdirSync, readFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { PRESSURE, ProofOfWork } from "../../../src/core/pow/proof-of-work.ts";
import { MemoryPassStore, type SolutionStore } from "../../../src/core/pow/stores.ts";
import {
  appServer,
  CHROMIUM_ARGS,
  httpLoad,
  httpSettings,
  problem,
  procStat,
  roundsOf,
  runHttpLoad,
  type ServerChild,
  sleep,
  summarizeHttp,
  withServers,
  workFolder,
} from "../lib.ts";
import type { HttpLoadResult } from "../load-http.ts";
import {
  type Benchmark,
  fmt,
  median,
  notAbove,
  ratioOf,
  type Section,
  type Size,
  yes,
} from "../section.ts";

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

/** The renderers of the browser this process started (SIGSTOP holds all their threads alike). */
function renderers(): number[] {
  const ours = (pid: number): boolean =>
    pid > 1 && (pid === process.pid || ours(procStat(pid).parent));
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer") && ours(pid)
        );
      } catch {
        return false; // ended meanwhile
      }
    });
}

/**
 * Runs `body` with the renderers let run 5 ms at a time and held stopped in between, so that
 * they run 1/`rate` of the time (each pause makes up for the timers' lateness); the slowdown.
 */
async function heldBack<T>(rate: number, body: () => Promise<T>): Promise<[T, number]> {
  const pids = renderers();
  let done = false;
  let ran = 0;
  const started = performance.now();
  const cycle = (async () => {
    while (!done) {
      const running = performance.now();
      await sleep(5);
      ran += performance.now() - running;
      for (const pid of pids) process.kill(pid, "SIGSTOP");
      await sleep(Math.max(1, started + rate * ran - performance.now()));
      for (const pid of pids) process.kill(pid, "SIGCONT");
    }
  })();
  try {
    const result = await body();
    return [result, (performance.now() - started) / ran];
  } finally {
    done = true;
    await cycle;
  }
}

/** How the browser is slowed: not, by CDP's throttling, or by holding its renderer back. */
const MODES = ["none", "cdp", "held"] as const;

/**
 * Milliseconds to solve a challenge of the site's, each for a visitor of its own, in the worker
 * the contact page starts (found as it starts), in each mode; and the slowdown holding reached.
 */
async function browserSolves(site: ServerChild, runs: number) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/lib/chromium/chromium-headless-shell",
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    const [worker] = await Promise.all([
      page.waitForEvent("worker"),
      page.goto(`${site.url}/en/contact`),
    ]);
    // The page's own solve, which would share the CPU with the first measured one.
    await new Promise((resolve) => worker.once("close", resolve));
    const cdp = await page.context().newCDPSession(page);
    // Each visitor from a network of its own (an IPv6 address is limited by its /64).
    const solve = async ({ url, i }: { url: string; i: number }) => {
      const response = await fetch("/trpc/pow.challenge", {
        method: "POST",
        credentials: "omit",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `2001:db8:${i.toString(16)}::1`,
        },
        body: JSON.stringify({ action: "contact" }),
      });
      const { challenge } = (await response.json()).result.data;
      const started = performance.now();
      await new Promise((resolve, reject) => {
        const w = new Worker(url, { type: "module" });
        w.onmessage = (event) => {
          w.terminate();
          event.data.solution ? resolve(null) : reject(new Error(event.data.error));
        };
        w.postMessage(challenge);
      });
      return performance.now() - started;
    };
    const times = new Map<(typeof MODES)[number], number[]>();
    let reached = Number.NaN;
    for (const [m, mode] of MODES.entries()) {
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: mode === "cdp" ? 4 : 1 });
      const samples = async () => {
        const out: number[] = [];
        for (let i = 0; i < runs; i++)
          out.push(await page.evaluate(solve, { url: worker.url(), i: m * 1000 + i }));
        return out;
      };
      if (mode !== "held") times.set(mode, await samples());
      else {
        const [held, factor] = await heldBack(4, samples);
        times.set(mode, held);
        reached = factor;
      }
    }
    return { times, reached };
  } finally {
    await browser.close();
  }
}

/**
 * Throws without proof of work, then with it, round by round; each round with it gets twice as
 * many solutions as the round without it threw (the load stops, and says so, if short).
 */
async function throws(size: Size, off: ServerChild, on: ServerChild) {
  const HTTP = httpSettings(size);
  const results = { off: [] as HttpLoadResult[], on: [] as HttpLoadResult[] };
  const path = "/trpc/bottles.throw";
  for (let round = 0; round < HTTP.rounds; round++) {
    const without = await runHttpLoad(
      "throw without proof of work",
      httpLoad(HTTP, { url: off.url, path, kind: "throw", serverPid: off.pid }),
    );
    const pow = Math.ceil((2 * without.rps * (HTTP.warmupMs + HTTP.durationMs)) / 1000) + 100;
    const withPow = await runHttpLoad(
      "throw with proof of work",
      httpLoad(HTTP, { url: on.url, path, kind: "throw", serverPid: on.pid, pow }),
    );
    if (withPow.agePoolExhausted)
      problem(`throw with proof of work: the load ran short of solutions or visitors`);
    results.off.push(without);
    results.on.push(withPow);
  }
  return {
    off: summarizeHttp(results.off),
    on: summarizeHttp(results.on),
    concurrency: HTTP.concurrency,
    rounds: { on: roundsOf(results.on), off: roundsOf(results.off) },
  };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

async function run(size: Size): Promise<Section> {
  const runs = size === "full" ? 200 : size === "quick" ? 50 : 5;
  const seconds = size === "full" ? 20 : size === "quick" ? 5 : 0.5;
  const solves = size === "full" ? 40 : size === "quick" ? 10 : 2;
  const { issueUs, verifyUs } = await serverCosts(runs);
  const atDefault = await solvesPerMinute(DEFAULT_COST, seconds);
  const raised = await solvesPerMinute(DEFAULT_COST * PRESSURE.factor, seconds);
  // One site with proof of work at its default cost: the browser solves its challenges, and the
  // throws' solutions (issued at cost 1 by the load) pass the same verification at any cost.
  const [browser, load] = await withServers(
    [appServer(workFolder("pow-on"), { POW: "true" }), appServer(workFolder("pow-off"))],
    async ([on, off]) => [await browserSolves(on, solves), await throws(size, off, on)] as const,
  );
  const row = (benchmark: string, ours: string) => ({
    benchmark,
    ours,
    met: "—" as const,
  });
  const solveRow = (mode: (typeof MODES)[number], how: string) => {
    const times = browser.times.get(mode) ?? [];
    const m = median(times);
    const cells = row(
      `Solve at POW_COST ${DEFAULT_COST}, headless Chromium${how}: median / p95 ms`,
      `${fmt(m)} / ${fmt(quantile(times, 0.95))}`,
    );
    return mode === "held" ? { ...cells, goal: "median ≤ 500 ms", met: yes(m <= 500) } : cells;
  };
  const ratio = ratioOf(load.on.rps, load.off.rps);
  return {
    title: "Proof of work (ALTCHA)",
    rows: [
      solveRow("none", ""),
      solveRow("cdp", ", CDP's 4× CPU throttling (the page's thread, not the worker's)"),
      solveRow("held", ", its renderer let run a quarter of the time (4× slower)"),
      {
        benchmark: `Throw a bottle with proof of work, the server's share (verify + record; solved beforehand at POW_COST 1): requests/s (${load.concurrency} concurrent)`,
        ours: fmt(load.on.rps),
        baseline: `${fmt(load.off.rps)} (POW off)`,
        ratio: notAbove(ratio),
      },
      row("Issue a challenge, server CPU (µs, median)", fmt(issueUs)),
      row("Verify a solution, server CPU (µs, median)", fmt(verifyUs)),
      row(`Solves per minute, one attacker core, POW_COST ${DEFAULT_COST}`, fmt(atDefault)),
      row(`Solves per minute, one attacker core, raised ${PRESSURE.factor}×`, fmt(raised)),
    ],
    notes: [
      "PBKDF2-SHA-256, 250 rounds a derivation; issuing derives once, verifying checks two HMACs.",
      `Browser: Debian's chromium-headless-shell, ${solves} solves in each row, each a challenge the site issued to a visitor of its own, solved in the worker the contact page starts (its script loaded once); timed in the page from handing it the challenge to its answer. Samples (ms): ${[...browser.times].map(([mode, times]) => `${mode} ${times.map((t) => fmt(t)).join(", ")}`).join("; ")}.`,
      `CDP's Emulation.setCPUThrottlingRate slows the page's main thread only: Chromium refuses it on a worker's target ("only supported for pages, not workers") and a worker's JavaScript runs no slower under the page's, so that row slows only the page's part (starting the worker, taking its answer), no phone proxy. The goal row slows the whole renderer instead: the benchmark stops it (SIGSTOP) and lets it run (SIGCONT) 5 ms at a time, so that it runs a quarter of the wall time (reached: ${browser.reached.toFixed(2)}× slower), as on a CPU four times slower (a phone's memory and caches are not emulated).`,
      `Throws: two app servers in the same run, one with POW off, one with POW on, each throw with a solution of its own issued at POW_COST 1 with the site's SECRET and solved by the load generator before its warm-up (verifying reads no cost), so the row weighs what the server adds (reading the payload, the signatures, recording the solution once), not the client's solving; p50 / p99 ms ${load.on.p50.toFixed(1)} / ${load.on.p99.toFixed(1)} with, ${load.off.p50.toFixed(1)} / ${load.off.p99.toFixed(1)} without; server CPU ${fmt((load.on.cpu / load.on.rps) * 1e6)} µs a throw with, ${fmt((load.off.cpu / load.off.rps) * 1e6)} µs without; rounds (requests/s) with ${load.rounds.on}; without ${load.rounds.off}.`,
    ],
  };
}

export const pow: Benchmark = { name: "pow", run };

if (import.meta.main) {
  const section = await run((process.argv[2] as Size | undefined) ?? "quick");
  for (const r of section.rows) console.log(`${r.benchmark}: ${r.ours}`);
}
