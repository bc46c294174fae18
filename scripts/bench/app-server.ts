/**
 * The real app as a server under test: startApp with the settings from the environment
 * (DATA_DIR, SECRET), on 127.0.0.1 with a free port, trusting X-Forwarded-For so each simulated
 * visitor has an address of its own, and without request logs. Prints one JSON line when ready.
 */
import { startApp } from "../../src/server/app.ts";
import { loadConfig } from "../../src/server/config.ts";

const config = loadConfig({
  ...process.env,
  PORT: "0",
  HOST: "127.0.0.1",
  TRUST_PROXY: "true",
  LOG_FORMAT: "off",
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
