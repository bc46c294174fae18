/**
 * Lighthouse CI (`@lhci/cli`, pinned in lighthouse/package.json) on the pages a first visit
 * most often lands on: mobile performance, accessibility, best practices and SEO, the median of
 * three runs of each page (Lighthouse's own simulated slow 4G and 4× slower CPU), against a
 * static page as large as the document /en builds, which needs no script: the score this machine
 * gives a page with nothing left to cut.
 */

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appServer, BENCH_DIR, log, startServer, withServers, workFolder } from "../lib.ts";
import {
  type Benchmark,
  median,
  medianBy,
  type Row,
  type Section,
  type Size,
  yes,
} from "../section.ts";

const LHCI_DIR = join(BENCH_DIR, "lighthouse");
const PAGES = ["/en", "/zh", "/en/random-chat", "/en/discover"] as const;
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
type Category = (typeof CATEGORIES)[number];
const GOAL = 90;

interface Run {
  scores: Record<Category, number>;
  /** Milliseconds, and layout shift as Lighthouse counts it. */
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  requests: number;
}

/** Installs the pinned Lighthouse CI with `npm ci` when it is missing or from another lock. */
async function ensureLhci(): Promise<string> {
  const lock = readFileSync(join(LHCI_DIR, "package-lock.json"), "utf8");
  const stamp = join(LHCI_DIR, "node_modules", ".bench-installed");
  const wanted = Bun.hash(lock).toString(16);
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== wanted) {
    log("installing Lighthouse CI (npm ci)…");
    const npm = Bun.spawnSync(
      ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
      { cwd: LHCI_DIR, stdout: "pipe", stderr: "pipe" },
    );
    if (npm.exitCode !== 0) throw new Error(`npm ci for Lighthouse CI failed: ${npm.stderr}`);
    writeFileSync(stamp, wanted);
  }
  return join(LHCI_DIR, "node_modules", ".bin", "lhci");
}

/** Debian's Chromium (the browser itself: Lighthouse drives a full headless Chrome). */
function chromePath(): string {
  const path = process.env.CHROME_PATH ?? "/usr/bin/chromium";
  if (!existsSync(path)) throw new Error(`Lighthouse needs Chromium at ${path} (CHROME_PATH)`);
  return path;
}

/** `lhci collect` on one URL, each run from a fresh browser; every run's report. */
async function collect(lhci: string, url: string, runs: number): Promise<Run[]> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-lhci-"));
  try {
    const flags =
      "--headless=new --no-sandbox --disable-gpu --disable-background-networking " +
      "--disable-component-update --disable-sync --no-first-run";
    const lh = Bun.spawn(
      [
        lhci,
        "collect",
        `--url=${url}`,
        `--numberOfRuns=${runs}`,
        `--settings.chromeFlags=${flags}`,
        `--settings.onlyCategories=${CATEGORIES.join(",")}`,
      ],
      {
        cwd: dir,
        env: { ...process.env, CHROME_PATH: chromePath() },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [out, err] = await Promise.all([
      new Response(lh.stdout).text(),
      new Response(lh.stderr).text(),
    ]);
    if ((await lh.exited) !== 0)
      throw new Error(`lhci collect ${url}: ${(err || out).slice(-1500)}`);
    const reports = join(dir, ".lighthouseci");
    return readdirSync(reports)
      .filter((file) => file.startsWith("lhr-") && file.endsWith(".json"))
      .map((file) => runOf(JSON.parse(readFileSync(join(reports, file), "utf8"))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Report {
  runtimeError?: { message: string };
  categories: Record<Category, { score: number | null }>;
  audits: Record<string, { numericValue?: number; details?: { items?: unknown[] } }>;
}

function runOf(report: Report): Run {
  if (report.runtimeError) throw new Error(`Lighthouse: ${report.runtimeError.message}`);
  const value = (id: string) => report.audits[id]?.numericValue ?? Number.NaN;
  const scores = {} as Record<Category, number>;
  for (const category of CATEGORIES) {
    const score = report.categories[category]?.score;
    scores[category] = score === null || score === undefined ? Number.NaN : Math.round(score * 100);
  }
  return {
    scores,
    fcp: value("first-contentful-paint"),
    lcp: value("largest-contentful-paint"),
    tbt: value("total-blocking-time"),
    cls: value("cumulative-layout-shift"),
    requests: report.audits["network-requests"]?.details?.items?.length ?? Number.NaN,
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

async function run(size: Size): Promise<Section> {
  const lhci = await ensureLhci();
  // A smoke run: one page, once.
  const runs = size === "smoke" ? 1 : 3;
  const pages = size === "smoke" ? PAGES.slice(2, 3) : PAGES;
  const results = new Map<string, Run[]>();
  let baseline: Run[] = [];
  await withServers([appServer(workFolder("lighthouse"))], async ([app]) => {
    const document = await (await fetch(`${app.url}/en`)).text();
    for (const page of pages) {
      log(`Lighthouse: ${page}, ${runs} run(s)`);
      results.set(page, await collect(lhci, `${app.url}${page}`, runs));
    }
    // Left out of a smoke run, which only shows Lighthouse still runs against the site.
    if (size === "smoke") return;
    const staticPage = await startServer("raw-static.ts", {
      STATIC_BYTES: String(document.length),
    });
    try {
      baseline = await collect(lhci, staticPage.url, runs);
    } finally {
      await staticPage.stop();
    }
  });
  const baselineScore = median(baseline.map((r) => r.scores.performance));
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const [page, samples] of results) {
    const middle = medianBy(samples, (r) => r.scores.performance);
    const score = middle.scores.performance;
    rows.push({
      benchmark: `Lighthouse mobile performance of ${page}, median of ${samples.length}`,
      ours: String(score),
      baseline: `${baselineScore} (static page, no script)`,
      ratio: (score / baselineScore).toFixed(2),
      goal: `≥ ${GOAL}`,
      met: yes(score >= GOAL),
    });
    notes.push(
      `${page}: performance ${samples.map((r) => r.scores.performance).join(", ")}; the median run: first contentful paint ${seconds(middle.fcp)} s, largest ${seconds(middle.lcp)} s, total blocking time ${Math.round(middle.tbt)} ms, layout shift ${middle.cls.toFixed(3)}, ${middle.requests} requests; accessibility ${middle.scores.accessibility}, best practices ${middle.scores["best-practices"]}, SEO ${middle.scores.seo}.`,
    );
  }
  notes.push(
    `Lighthouse CI ${JSON.parse(readFileSync(join(LHCI_DIR, "package.json"), "utf8")).dependencies["@lhci/cli"]}, its mobile defaults (simulated slow 4G, CPU 4× slower), Debian's Chromium; the server on this machine over HTTP/1.1. The static page's runs: ${baseline.map((r) => r.scores.performance).join(", ")}.`,
  );
  return { title: "Lighthouse", rows, notes };
}

export const lighthouse: Benchmark = { name: "lighthouse", run };
