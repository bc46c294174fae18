/**
 * Idle chat visitors for the memory measurement: opens `visitors` sockets, each subscribed to
 * its chat stream (app) or just open (raw), prints one JSON line when all are connected, and
 * holds them until it is told to stop (SIGTERM) or `holdMs` passes.
 *
 *   bun scripts/bench/load-idle.ts '{"url":"http://127.0.0.1:1234","mode":"app","visitors":5000}'
 */
import { type ChatMode, closeAll, openVisitors } from "../../tests/helpers/chat-client.ts";
import { BENCH_SECRET, loadOptions, round } from "./lib.ts";

export interface IdleLoadOptions {
  url: string;
  mode: ChatMode;
  visitors: number;
  holdMs?: number;
  firstVisitor?: number;
}

async function main(): Promise<void> {
  const options = loadOptions<IdleLoadOptions>();
  const started = performance.now();
  const visitors = await openVisitors({
    urls: options.url,
    mode: options.mode,
    count: options.visitors,
    firstVisitor: options.firstVisitor ?? 0,
    secret: BENCH_SECRET,
    onFrame: () => {},
    // Listening, not chatting: a visitor on the chat page before the safety gate.
    answerAge: false,
  });
  let closed = 0;
  for (const visitor of visitors) visitor.socket.addEventListener("close", () => (closed += 1));
  console.log(
    JSON.stringify({
      ready: true,
      url: options.url,
      pid: process.pid,
      visitors: visitors.length,
      seconds: round((performance.now() - started) / 1000, 1),
    }),
  );
  const stop = () => {
    closeAll(visitors);
    process.exit(closed === 0 ? 0 : 3);
  };
  process.on("SIGTERM", stop);
  setTimeout(stop, options.holdMs ?? 120_000);
}

if (import.meta.main) await main();
