/**
 * The self-hosted binary: its size after `bun run build`, and the time from starting it in an
 * empty folder with `--port 0` to its first healthy /healthz. Baseline: the smallest Bun
 * server compiled the same way.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, BUN, ROOT, round } from "../lib.ts";
import { type Benchmark, fmt, median, ratioOf, type Section, type Size } from "../section.ts";

/** Starts the binary in a new empty folder and measures spawn → first 200 from /healthz. */
async function startToHealthy(binary: string): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), "tidings-bench-bin-"));
  const started = performance.now();
  const child = Bun.spawn([binary, "--port", "0", "--host", "127.0.0.1"], {
    cwd: folder,
    // Measured to its first healthy answer only: no drain on the way out (5 s by default).
    env: { ...process.env, LOG_FORMAT: "off", SHUTDOWN_DRAIN: "0s" },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    let url: string | undefined;
    const deadline = started + 30_000;
    while (!url) {
      if (performance.now() > deadline) throw new Error(`${binary} did not start: ${seen}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`${binary} exited: ${seen}`);
      seen += decoder.decode(value);
      url = /listening on (http:\/\/\S+)/.exec(seen)?.[1]?.replace("localhost", "127.0.0.1");
    }
    while (performance.now() < deadline) {
      try {
        const response = await fetch(`${url}/healthz`);
        if (response.ok) return performance.now() - started;
      } catch {
        // not yet
      }
      await Bun.sleep(2);
    }
    throw new Error(`${binary} never became healthy`);
  } finally {
    child.kill("SIGTERM");
    await Promise.race([child.exited, Bun.sleep(6000)]);
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(folder, { recursive: true, force: true });
  }
}

async function measureBinary(samples: number) {
  const buildStarted = performance.now();
  const build = Bun.spawnSync([BUN, "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`bun run build failed: ${build.stderr.toString()}`);
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  const binary = join(ROOT, "dist", "tidings");

  const work = mkdtempSync(join(tmpdir(), "tidings-bench-hello-"));
  const hello = join(work, "raw-hello");
  try {
    const compiled = Bun.spawnSync(
      [BUN, "build", "--compile", "--minify", join(BENCH_DIR, "raw-hello.ts"), "--outfile", hello],
      { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
    );
    if (compiled.exitCode !== 0) throw new Error(`baseline build failed: ${compiled.stderr}`);
    const ours: number[] = [];
    const theirs: number[] = [];
    // Alternate, after one unmeasured start of each (the first reads the file from disk).
    await startToHealthy(binary);
    await startToHealthy(hello);
    for (let i = 0; i < samples; i++) {
      ours.push(await startToHealthy(binary));
      theirs.push(await startToHealthy(hello));
    }
    return {
      bytes: statSync(binary).size,
      startMs: { median: round(median(ours), 0), samples: ours.map((v) => round(v, 0)) },
      baselineBytes: statSync(hello).size,
      baselineStartMs: {
        median: round(median(theirs), 0),
        samples: theirs.map((v) => round(v, 0)),
      },
      buildSeconds: round(buildSeconds, 1),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function run(size: Size): Promise<Section> {
  const r = await measureBinary({ full: 5, quick: 2, smoke: 1 }[size]);
  return {
    title: "Self-hosted binary",
    rows: [
      {
        benchmark: "Compiled binary size, `bun run build` (MB)",
        ours: (r.bytes / 1e6).toFixed(1),
        baseline: `${(r.baselineBytes / 1e6).toFixed(1)} (compiled hello server)`,
        ratio: ratioOf(r.bytes, r.baselineBytes).toFixed(2),
      },
      {
        benchmark: "Binary: start in an empty folder with --port 0 → healthy /healthz (ms)",
        ours: fmt(r.startMs.median),
        baseline: `${fmt(r.baselineStartMs.median)} (compiled hello server)`,
        ratio: ratioOf(r.startMs.median, r.baselineStartMs.median).toFixed(1),
      },
    ],
    notes: [
      `Build took ${r.buildSeconds} s. Start samples (ms): ours ${r.startMs.samples.join(", ")}; hello ${r.baselineStartMs.samples.join(", ")}. A first start also creates the database, runs the migrations and writes the secret.`,
    ],
  };
}

export const binary: Benchmark = { name: "binary", run };
