/**
 * One socket's flood, measured as what the server keeps: a visitor in a chat sends distinct
 * 1,000-character messages as fast as frames of ten calls allow (30,000 in about ten seconds by
 * default, twice), and the JavaScript heap still in use after a full collection is read before
 * and after each flood. The server runs in this process (its heap is the one measured; the
 * clients keep nothing between floods), started from the working tree or from TIDINGS_ROOT, so
 * the same script measures any commit checked out beside it.
 * Usage: bun scripts/bench/flood-memory.ts [messages] [seconds]
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatTester, isType, listening, pairListening } from "../../tests/helpers/chat.ts";

const messages = Number(process.argv[2] ?? 30_000);
const seconds = Number(process.argv[3] ?? 10);
const root = process.env.TIDINGS_ROOT ?? join(import.meta.dir, "..", "..");
const { startApp } = (await import(
  join(root, "src/server/app.ts")
)) as typeof import("../../src/server/app.ts");
const { loadConfig } = (await import(
  join(root, "src/server/config.ts")
)) as typeof import("../../src/server/config.ts");

const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));

/** The heap in use once everything unreachable is collected. */
async function retained(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    Bun.gc(true);
    await Bun.sleep(200);
  }
  return heapStats().heapSize;
}

const dataDir = mkdtempSync(join(tmpdir(), "tidings-flood-"));
const app = await startApp(
  loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
  }),
);
const url = app.url.toString().replace(/\/$/, "");
try {
  const flooder = chatTester(url, { address: "198.51.100.10" });
  const partner = chatTester(url, { address: "198.51.100.11" });
  await Promise.all([listening(flooder), listening(partner)]);
  await pairListening(partner, flooder);
  await partner.waitFor(isType("matched"));
  // Warm: the first messages and answers compile what they need.
  await flooder.api.chat.send.mutate({ content: "hello there, a first message" });
  const rounds = [];
  let before = await retained();
  const first = before;
  for (let round = 0; round < 2; round++) {
    const started = performance.now();
    let delivered = 0;
    const frames = Math.ceil(messages / 10);
    const perFrameMs = (seconds * 1000) / frames;
    for (let frame = 0; frame < frames; frame++) {
      const wait = started + frame * perFrameMs - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      const answers = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          flooder.api.chat.send.mutate({
            content: `${round}.${frame * 10 + i} ${"a distinct flood, ".repeat(60)}`.slice(0, 1000),
          }),
        ),
      );
      delivered += answers.filter((a) => a.status === "fulfilled").length;
    }
    const took = (performance.now() - started) / 1000;
    const after = await retained();
    rounds.push({
      messages: frames * 10,
      seconds: Number(took.toFixed(1)),
      delivered,
      heapGrowthMB: mb(after - before),
    });
    before = after;
  }
  console.log(JSON.stringify({ rounds, totalGrowthMB: mb(before - first) }));
  flooder.close();
  partner.close();
} finally {
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
