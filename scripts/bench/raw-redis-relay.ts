/**
 * Baseline for the chat through Redis: the least a relay between instances can do. Each of these
 * servers is a plain Bun WebSocket server with two Redis connections (ioredis, as the app uses,
 * commands auto-pipelined), subscribed to one channel of its own. A socket that sends "start" is
 * paired with the one that waits, on whichever instance it is (a four-line Lua script pops the
 * waiting one or queues this one); both get "matched:<pair>". Every frame a socket sends after
 * that is one PUBLISH to the partner's instance's channel, and each instance hands what arrives
 * on its channel to the socket it names. No protocol, identity, limits, stream or presence.
 *
 *   REDIS_URL=redis://… REDIS_PREFIX=raw-1: bun scripts/bench/raw-redis-relay.ts
 *
 * The load generator speaks to it as to the raw relay (raw-relay.ts); a waiting socket is also
 * told "waiting", so that a generator can pair visitors across instances one pair at a time.
 */
import { randomBytes } from "node:crypto";
import type { ServerWebSocket } from "bun";
import Redis from "ioredis";

interface Peer {
  /** This socket's number on this instance. */
  local: number;
  /** The partner's instance channel and number there, once paired. */
  channel: string | undefined;
  partner: string | undefined;
}

// Pops the waiting visitor, or queues this one: atomic, so two instances never take the same.
const PAIR = `
local other = redis.call('LPOP', KEYS[1])
if other then return other end
redis.call('RPUSH', KEYS[1], ARGV[1])
return false
`;

if (import.meta.main) {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error("REDIS_URL is not set");
  const prefix = process.env.REDIS_PREFIX ?? "raw:";
  const instance = randomBytes(6).toString("hex");
  const inbox = (name: string) => `${prefix}inbox:${name}`;
  const redis = new Redis(url, { enableAutoPipelining: true, lazyConnect: true });
  const subscriber = new Redis(url, { lazyConnect: true });
  await Promise.all([redis.connect(), subscriber.connect()]);
  const sockets = new Map<number, ServerWebSocket<Peer>>();
  let next = 0;

  // "m<local> <instance>.<number>": the named socket was paired; "d<local> <frame>": a frame for it.
  subscriber.on("message", (_channel: string, payload: string) => {
    const space = payload.indexOf(" ");
    const socket = sockets.get(Number(payload.slice(1, space)));
    if (!socket) return;
    const rest = payload.slice(space + 1);
    if (payload[0] === "d") {
      socket.send(rest);
      return;
    }
    const dot = rest.indexOf(".");
    socket.data.channel = inbox(rest.slice(0, dot));
    socket.data.partner = rest.slice(dot + 1);
    socket.send(`matched:${instance}.${socket.data.local}`);
  });
  await subscriber.subscribe(inbox(instance));

  const server = Bun.serve<Peer>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, server) {
      const data: Peer = { local: next++, channel: undefined, partner: undefined };
      if (server.upgrade(request, { data })) return undefined;
      return new Response("upgrade required", { status: 426 });
    },
    websocket: {
      maxPayloadLength: 64 * 1024,
      idleTimeout: 30,
      sendPings: true,
      open(socket) {
        sockets.set(socket.data.local, socket);
      },
      message(socket, message) {
        const { channel, partner } = socket.data;
        if (channel) {
          void redis.publish(channel, `d${partner} ${String(message)}`);
          return;
        }
        if (message !== "start") return;
        const me = `${instance}.${socket.data.local}`;
        void (redis.eval(PAIR, 1, `${prefix}waiting`, me) as Promise<string | null>).then(
          (other) => {
            if (!other) {
              socket.send("waiting");
              return;
            }
            const dot = other.indexOf(".");
            socket.data.channel = inbox(other.slice(0, dot));
            socket.data.partner = other.slice(dot + 1);
            void redis.publish(socket.data.channel, `m${socket.data.partner} ${me}`);
            socket.send(`matched:${other}`);
          },
        );
      },
      close(socket) {
        sockets.delete(socket.data.local);
      },
    },
  });
  console.log(JSON.stringify({ ready: true, url: server.url.origin, pid: process.pid }));
  process.on("SIGTERM", async () => {
    server.stop(true);
    await Promise.all([redis.quit(), subscriber.quit()]).catch(() => {});
    process.exit(0);
  });
}
