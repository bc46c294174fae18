/**
 * What a benchmark module is and what it hands back: a plain object `{ name, run(size) }`
 * whose run gives a Section (rows of BENCHMARKS.md's table, notes, figures). The runner
 * (run.ts) selects, runs and records them; the formatting helpers every module shares are here.
 */

/** How much to run: a full run, `--quick` (for development), or `--smoke` (./scripts/test). */
export type Size = "full" | "quick" | "smoke";

/** Whether a benchmark module needs something beyond Bun and the app. */
export type Need =
  /** The Node baselines with their native part (better-sqlite3 compiled): Express. */
  | "node"
  /** The Node baselines' JavaScript only (Socket.IO, run under Node and under Bun). */
  | "socket.io"
  /** A throwaway PostgreSQL and Redis (scripts/cluster); run by ./scripts/test only with CLUSTER=1. */
  | "cluster";

export interface Benchmark {
  /** The name on the command line and the key of its figures in BENCHMARKS.md. */
  name: string;
  needs?: readonly Need[];
  run(size: Size): Promise<Section>;
}

/** A row of the table as BENCHMARKS.json records it. */
export interface TableRow {
  benchmark: string;
  ours: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: "yes" | "no" | "—";
}

/** A row as a module writes it: a cell it leaves out (no baseline, ratio or goal) reads "—". */
export type Row = Pick<TableRow, "benchmark" | "ours"> & Partial<TableRow>;

/** A row with every cell, in the order the table shows them. */
export const tableRow = (row: Row): TableRow => ({
  benchmark: row.benchmark,
  ours: row.ours,
  baseline: row.baseline ?? "—",
  ratio: row.ratio ?? "—",
  goal: row.goal ?? "—",
  met: row.met ?? "—",
});

export interface Section {
  title: string;
  rows: Row[];
  notes: string[];
  /** Extra text (query plans) shown under the notes. */
  details?: string;
  /** Figures other parts of BENCHMARKS.md work from (the plan of plan.ts). */
  figures?: Record<string, number>;
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "n/a";
export const ratioOf = (ours: number, theirs: number) => (theirs > 0 ? ours / theirs : Number.NaN);
/** A ratio with a goal to reach, cut (not rounded) to two places: 0.597 shows as 0.59. */
export const notAbove = (ratio: number) =>
  Number.isFinite(ratio) ? (Math.floor(ratio * 100) / 100).toFixed(2) : "n/a";
export const yes = (ok: boolean): Row["met"] => (ok ? "yes" : "no");
/** Milliseconds to one place, or "none" when nothing was delivered to time. */
export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "none");

/** The median of the values that are figures (a round that measured nothing is left out). */
export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The result whose `key` is the median of the list (the higher middle one of an even count). */
export function medianBy<T>(results: T[], key: (r: T) => number): T {
  const sorted = [...results].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor(sorted.length / 2)] as T;
}

/** 10k, 100k, 1M. */
export const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/** A cell that holds no measurement: empty, "none", "n/a", NaN, Infinity. */
const NO_FIGURE = /^\s*$|\b(none|n\/a|NaN|Infinity|undefined|null)\b/;
export const noFigure = (cell: string | undefined) => NO_FIGURE.test(cell ?? "");

/**
 * A row can only be met on figures that were measured: when its figure, its baseline or its
 * ratio is missing, "none", "n/a" or NaN (a server that delivered nothing, a baseline that did
 * not run), its goal is not met, whatever the comparison in the module said. The runner applies
 * this to every row of every section; the rows it changed are returned.
 */
export function settleMet(rows: TableRow[]): TableRow[] {
  const changed: TableRow[] = [];
  for (const row of rows) {
    if (row.met !== "yes") continue;
    if ([row.ours, row.baseline, row.ratio].some(noFigure)) {
      row.met = "no";
      changed.push(row);
    }
  }
  return changed;
}
