/**
 * The real app as a server under test: startApp with the settings from the environment
 * (DATA_DIR, SECRET), on 127.0.0.1 with a free port, trusting X-Forwarded-For so each simulated
 * visitor has an address of its own, and without request logs. Prints one JSON line when ready.
 *
 * With BENCH_WEB_BUILD (a smoke run), the front end comes from that file, built once for the
 * run, as the compiled binary carries it; otherwise it is bundled at start, as from source.
 */
import { readFileSync } from "node:fs";
import { startApp } from "../../src/server/app.ts";
import { useEmbeddedWeb, type WebBuild } from "../../src/server/assets.ts";
import { loadConfig } from "../../src/server/config.ts";

const webBuild = process.env.BENCH_WEB_BUILD;
if (webBuild) {
  // biome-ignore lint/correctness/useHookAtTopLevel: not a React hook, the binary's hand-over.
  useEmbeddedWeb(JSON.parse(readFileSync(webBuild, "utf8")) as WebBuild);
}

const config = loadConfig({
  ...process.env,
  PORT: "0",
  HOST: "127.0.0.1",
  TRUST_PROXY: "true",
  LOG_FORMAT: "off",
  // The load generators call the API as scripts do; benchmarks/pow.ts measures proof of work.
  POW: process.env.POW ?? "false",
});
const app = await startApp(config);
console.log(JSON.stringify({ ready: true, url: app.url.origin, pid: process.pid }));

let stopping = false;
process.on("SIGTERM", async () => {
  if (stopping) return;
  stopping = true;
  await app.stop();
  process.exit(0);
});
