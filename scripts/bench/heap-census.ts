/**
 * What an idle chat visitor holds in the server's heap, by object type: the app in this
 * process, `visitors` idle visitors (load-idle.ts) in another, Bun's heapStats after a full
 * collection before and after they connect. For memory work beside the memory benchmark (which
 * reads the resident size).
 *
 *   bun scripts/bench/heap-census.ts [visitors=2000]
 */

import { heapStats } from "bun:jsc";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startApp } from "../../src/server/app.ts";
import { loadConfig } from "../../src/server/config.ts";
import { startServer } from "./lib.ts";
import type { IdleLoadOptions } from "./load-idle.ts";

const visitors = Number(process.argv[2] ?? 2000);
const app = await startApp(
  loadConfig({
    ...process.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), "tidings-census-")),
    SECRET: "bench-secret-0123456789abcdef0123456789",
    PORT: "0",
    HOST: "127.0.0.1",
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
  }),
);
const connect = (count: number, first: number) =>
  startServer(
    "load-idle.ts",
    {},
    [
      JSON.stringify({
        url: app.url.origin,
        mode: "app",
        visitors: count,
        firstVisitor: first,
      } satisfies IdleLoadOptions),
    ],
    120_000,
  );
const settle = async () => {
  await Bun.sleep(1500);
  Bun.gc(true);
  await Bun.sleep(100);
  Bun.gc(true);
  return heapStats();
};
// The first sockets load what every later one shares.
await (await connect(20, 1_000_000)).stop();
const before = await settle();
const load = await connect(visitors, 2_000_000);
const after = await settle();
await load.stop();
await app.stop();
const per = (n: number) => (n / visitors).toFixed(2);
console.log(
  `heap per visitor: ${((after.heapSize - before.heapSize) / visitors / 1024).toFixed(2)} KiB`,
);
const types = Object.entries(after.objectTypeCounts)
  .map(([type, count]) => [type, count - (before.objectTypeCounts[type] ?? 0)] as const)
  .filter(([, grew]) => grew >= visitors / 2)
  .sort((a, b) => b[1] - a[1]);
for (const [type, grew] of types) console.log(`${per(grew).padStart(7)}  ${type}`);
process.exit(0);
