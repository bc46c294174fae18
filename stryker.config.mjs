// Mutation testing of core/, folder by folder: `bun run mutate` (not part of ./scripts/test).
// Stryker changes the code one mutant at a time and runs the folder's own tests through Bun; a
// mutant no test notices is a behaviour no test pins down. Pick the folder and its tests with
// MUTATE and MUTATE_TESTS, e.g.
//   MUTATE='src/core/chat/**/*.ts' MUTATE_TESTS='tests/unit/chat-broker.test.ts' bun run mutate
// The default is src/core/limits with its unit tests. One mutant at a time (the machine is
// shared) unless MUTATE_CONCURRENCY says more; the report is written to reports/mutation/.
const folders = (process.env.MUTATE ?? "src/core/limits/**/*.ts").split(/\s+/).filter(Boolean);
const tests =
  process.env.MUTATE_TESTS ?? "tests/unit/rate-limiter.test.ts tests/unit/ip-key.test.ts";
// Each folder's reports go to their own place when scripts/mutate runs them all.
const reports = process.env.MUTATE_REPORTS ?? "reports/mutation";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "command",
  // The pinned Bun, as ./scripts/test finds it (on PATH, or installed in .tools/).
  // --bail: a mutant is killed by its first failing test; the rest need not run. Tests named
  // for a time budget ("… in 50 ms at most") are left out: the instrumented code is slower, so
  // they would fail on every mutant alike, and a slower mutant is not a wrong one.
  commandRunner: { command: `bun test --bail --timeout 20000 -t '^(?!.*ms at most)' ${tests}` },
  mutate: folders,
  coverageAnalysis: "off",
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 1),
  // Beyond the dry run's time: a mutant that hangs (a regex that backtracks forever) costs this.
  timeoutMS: 15_000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `${reports}/mutation.html` },
  jsonReporter: { fileName: `${reports}/mutation.json` },
  tempDirName: ".stryker-tmp",
  ignorePatterns: [".tools", "data", "dist", "reports", "test-results", "playwright-report"],
  cleanTempDir: true,
};
