/**
 * The self-hosted binary: its size after `bun run build`, and the time from starting it in an
 * empty folder to a healthy /healthz, against the smallest Bun server compiled the same way.
 */

import { type BinaryResult, measureBinary } from "../binary.ts";
import { type Benchmark, fmt, ratioOf, type Section, type Size } from "../section.ts";

async function run(size: Size): Promise<Section> {
  const r: BinaryResult = await measureBinary({ full: 5, quick: 2, smoke: 1 }[size]);
  return {
    title: "Self-hosted binary",
    rows: [
      {
        benchmark: "Compiled binary size, `bun run build` (MB)",
        ours: (r.bytes / 1e6).toFixed(1),
        baseline: `${(r.baselineBytes / 1e6).toFixed(1)} (compiled hello server)`,
        ratio: ratioOf(r.bytes, r.baselineBytes).toFixed(2),
        goal: "—",
        met: "—",
      },
      {
        benchmark: "Binary: start in an empty folder with --port 0 → healthy /healthz (ms)",
        ours: fmt(r.startMs.median),
        baseline: `${fmt(r.baselineStartMs.median)} (compiled hello server)`,
        ratio: ratioOf(r.startMs.median, r.baselineStartMs.median).toFixed(1),
        goal: "—",
        met: "—",
      },
    ],
    notes: [
      `Build took ${r.buildSeconds} s. Start samples (ms): ours ${r.startMs.samples.join(", ")}; hello ${r.baselineStartMs.samples.join(", ")}. A first start also creates the database, runs the migrations and writes the secret.`,
    ],
  };
}

export const binary: Benchmark = { name: "binary", run };
