/**
 * Baseline for the chat: a plain Bun WebSocket relay. A socket that sends "start" waits for the
 * next one that does; both then get "matched:<pair>" and every frame either sends afterwards
 * is forwarded to the other as it is. No protocol, no identity, no limits, no buffering.
 *
 *   bun scripts/bench/raw-relay.ts
 */
import type { ServerWebSocket } from "bun";

interface Peer {
  partner: ServerWebSocket<Peer> | undefined;
}

if (import.meta.main) {
  let waiting: ServerWebSocket<Peer> | undefined;
  let pairs = 0;
  const server = Bun.serve<Peer>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, server) {
      if (server.upgrade(request, { data: { partner: undefined } })) return undefined;
      return new Response("upgrade required", { status: 426 });
    },
    websocket: {
      maxPayloadLength: 64 * 1024,
      idleTimeout: 30,
      sendPings: true,
      message(socket, message) {
        const partner = socket.data.partner;
        if (partner) {
          partner.send(message);
          return;
        }
        if (message !== "start") return;
        if (waiting && waiting !== socket && waiting.readyState === WebSocket.OPEN) {
          const other = waiting;
          waiting = undefined;
          other.data.partner = socket;
          socket.data.partner = other;
          pairs += 1;
          other.send(`matched:${pairs}`);
          socket.send(`matched:${pairs}`);
        } else {
          waiting = socket;
        }
      },
      close(socket) {
        if (waiting === socket) waiting = undefined;
        const partner = socket.data.partner;
        if (partner) partner.data.partner = undefined;
      },
    },
  });
  console.log(JSON.stringify({ ready: true, url: server.url.origin, pid: process.pid }));
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
}
