/**
 * Memory: resident memory of the server per idle connected chat visitor (listening to its
 * stream, not chatting), and at rest, against the raw Bun relay.
 */

import {
  appServer,
  idleVisitors,
  rssKiB,
  sleep,
  startServer,
  withServers,
  workFolder,
} from "../lib.ts";
import { type Benchmark, fmt, ratioOf, type Section, type Size, yes } from "../section.ts";

async function run(size: Size): Promise<Section> {
  const visitors = size === "smoke" ? 50 : 5000;
  // Time for the server to settle before each reading.
  const settleMs = size === "smoke" ? 300 : 1500;
  const connectedMs = size === "smoke" ? 300 : 2000;
  const measure = async (mode: "app" | "raw") => {
    const start =
      mode === "app" ? appServer(workFolder(`memory-${mode}`)) : () => startServer("raw-relay.ts");
    return withServers([start], async ([server]) => {
      const connect = (count: number) => idleVisitors(server.url, mode, count);
      // A page load and a few chat sockets first (then closed), so what is measured is each
      // visitor's share, not what the first one loads (the chat's tables, compiled code).
      await fetch(`${server.url}/healthz`);
      await (await connect(20)).stop();
      await sleep(settleMs);
      const idle = rssKiB(server.pid);
      const load = await connect(visitors);
      try {
        await sleep(connectedMs);
        const connected = rssKiB(server.pid);
        return { idle, connected, perVisitor: (connected - idle) / visitors };
      } finally {
        await load.stop();
      }
    });
  };
  const theirs = await measure("raw");
  const ours = await measure("app");
  return {
    title: "Memory",
    rows: [
      {
        benchmark: `Resident memory per idle connected chat visitor at ${fmt(visitors)} (KiB)`,
        ours: ours.perVisitor.toFixed(1),
        baseline: `${theirs.perVisitor.toFixed(1)} (raw relay)`,
        ratio: ratioOf(ours.perVisitor, theirs.perVisitor).toFixed(1),
        goal: "≤ 12 KiB",
        met: yes(ours.perVisitor <= 12),
      },
      {
        benchmark: "Idle server resident memory (MiB)",
        ours: (ours.idle / 1024).toFixed(0),
        baseline: `${(theirs.idle / 1024).toFixed(0)} (raw relay)`,
        ratio: ratioOf(ours.idle, theirs.idle).toFixed(1),
      },
    ],
    notes: [
      `VmRSS of the server before and ${connectedMs / 1000} s after ${fmt(visitors)} visitors connected and subscribed to their chat stream (before: after 20 others had connected and left, so the first use's loading is not counted): ours ${fmt(ours.idle)} → ${fmt(ours.connected)} KiB, raw relay ${fmt(theirs.idle)} → ${fmt(theirs.connected)} KiB. The idle figure includes the bundled front end, the word lists and the country database, all held in memory.`,
    ],
  };
}

export const memory: Benchmark = { name: "memory", run };
