/**
 * The write path: throwing a bottle through the app (validation, rate limits, moderation,
 * country) against the same INSERT on raw bun:sqlite, interleaved round by round.
 */

import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { LocalModerator } from "../../../src/core/moderation/local.ts";
import {
  appServer,
  httpRows,
  httpSettings,
  interleaved,
  problem,
  roundsOf,
  startServer,
  summarizeHttp,
  throwPool,
  withServers,
  work,
} from "../lib.ts";
import { writePathSql } from "../queries.ts";
import { INSERT_SQL } from "../raw-insert.ts";
import { type Benchmark, fmt, type Section, type Size } from "../section.ts";
import { seed } from "../seed.ts";

async function run(size: Size): Promise<Section> {
  const HTTP = httpSettings(size);
  const source = join(work(), "write-seed.db");
  await seed(source, 10_000);
  const appDir = join(work(), "write-app");
  const rawDir = join(work(), "write-raw");
  for (const dir of [appDir, rawDir]) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(source, join(dir, "tidings.db"));
  }
  const sql = await writePathSql();
  const [theirRounds = [], ourRounds = []] = await withServers(
    [
      appServer(appDir),
      () => startServer("raw-insert.ts", { DB_FILE: join(rawDir, "tidings.db") }),
    ],
    ([app, raw]) =>
      interleaved(
        HTTP,
        [
          { server: raw, path: "/insert", name: "the baseline" },
          { server: app, path: "/trpc/bottles.throw", name: "ours" },
        ],
        "throw",
      ),
  );
  const ours = summarizeHttp(ourRounds);
  const theirs = summarizeHttp(theirRounds);
  // The parts of a throw that the raw insert leaves out, timed in this process.
  const moderator = new LocalModerator();
  const message =
    "Hello from the other side of the sea. I hope whoever finds this is having a calm evening. Take care.";
  for (let i = 0; i < 500; i++) moderator.checkNow(message);
  const t = performance.now();
  for (let i = 0; i < 5000; i++) moderator.checkNow(message);
  const moderationUs = ((performance.now() - t) / 5000) * 1000;
  const sameInsert = sql[0] === INSERT_SQL;
  if (!sameInsert) problem("write: the raw baseline's INSERT no longer matches throwBottle's");
  const agePool = throwPool(HTTP);
  const ageSeconds = ourRounds.map((r) => r.agePoolSeconds ?? 0);
  return {
    title: "Write path",
    rows: httpRows(HTTP, ours, theirs, {
      rate: "Throw a bottle (validation, rate limits, moderation, country)",
      latency: "Throw a bottle",
      baseline: "raw insert",
      goal: 0.5,
    }),
    notes: [
      `Server CPU ${ours.cpu.toFixed(2)} cores (ours) and ${theirs.cpu.toFixed(2)} (raw): about ${fmt((ours.cpu / ours.rps) * 1e6)} µs and ${fmt((theirs.cpu / theirs.rps) * 1e6)} µs of CPU per request; rounds: ours ${roundsOf(ourRounds)}; raw ${roundsOf(theirRounds)}.`,
      `Every request is a different visitor with its own public address (so the country lookup runs and no rate limit is reached); ${ours.non200} answers of ours were not 200.`,
      `Each visitor has answered the bottles' age gate (\`bottles.confirmAge\`, 13 or older) before its throw, as a browser does: before each round of ours, ${fmt(agePool)} visitors answered it over the load's connections (${ageSeconds.map((s) => s.toFixed(1)).join(", ")} s), outside the warm-up and the measured window; the throws are theirs, one each${ours.reused > 0 ? ` (${fmt(ours.reused)} throws, over all rounds, were a visitor's second or later: the load outran the pool)` : ""}${ours.exhausted > 0 ? `; in ${ours.exhausted} round(s) every visitor of the pool had thrown 5 times (the limit a minute) before the window ended, so the load stopped early and those rounds' requests/s read low` : ""}. The raw insert has no gate.`,
      `The local moderation of one benchmark message takes ${moderationUs.toFixed(0)} µs in this process (word lists in eight languages and the spam checks); the raw insert does none of it.`,
      sameInsert
        ? "The raw baseline runs the same INSERT statement as throwBottle."
        : "WARNING: the raw baseline's INSERT no longer matches throwBottle's.",
    ],
  };
}

export const write: Benchmark = { name: "write", run };
