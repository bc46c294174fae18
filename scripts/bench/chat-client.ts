/**
 * Simulated chat visitors for the load generators: real WebSockets speaking the app's tRPC
 * protocol (ws://host/trpc, with the site's Origin, a visitor cookie and a forwarded address of
 * their own), the raw relay's ("start", then frames forwarded as they are), or Socket.IO's
 * (node/socketio-relay.mjs). Frames are looked at with string searches, not parsed, so the
 * generator's own cost per frame stays small next to the server's and the same for all three.
 *
 * Socket.IO is spoken here over a plain WebSocket rather than through socket.io-client, so the
 * one generator measures all three servers with the same client code and cost per frame, and
 * the app's dependencies stay as they are. What it takes is small (Engine.IO v4 over
 * `transport=websocket`, Socket.IO protocol v5): the server opens with `0{...}`, the client
 * connects to the main namespace with `40` and is answered `40{...}`, events are
 * `42["name",...args]`, and the server's ping `2` is answered with the pong `3`.
 */
import { privateAddress, visitorCookie } from "./lib.ts";

export type ChatMode = "app" | "raw" | "sio";

export interface Visitor {
  index: number;
  /** Which of the servers it is connected to (its place in the list of URLs). */
  server: number;
  socket: WebSocket;
  /** Next tRPC request id (1 is the subscription). */
  nextId: number;
  chatId: string | undefined;
  matchedAt: number | undefined;
  matchedCount: number;
  pressedAt: number | undefined;
}

export interface FrameCounts {
  frames: number;
  errors: number;
  firstError: string | undefined;
}

const SUBSCRIBE = JSON.stringify({
  id: 1,
  method: "subscription",
  params: { path: "chat.events", input: {} },
});

/** A message's text: the send time, then ordinary words, about the size of a chat line. */
export function stampedMessage(visitor: Visitor, sentAt: number, mode: ChatMode): string {
  const content = `t:${sentAt.toFixed(3)} how is the weather where you are today?`;
  if (mode === "sio") return `42["send","${content}"]`;
  const id = visitor.nextId++;
  return `{"id":${id},"method":"mutation","params":{"path":"chat.send","input":{"content":"${content}"}}}`;
}

/** The send time stamped in a frame that carries a message, or undefined. */
export function stampOf(frame: string): number | undefined {
  const at = frame.indexOf('"content":"t:');
  if (at === -1) return undefined;
  const start = at + 13;
  const end = frame.indexOf(" ", start);
  return Number(frame.slice(start, end));
}

/** `asked`: the app's chat.start input (languages and interests), JSON; none by default. */
export function startFrame(visitor: Visitor, mode: ChatMode, asked = "null"): string {
  if (mode === "raw") return "start";
  if (mode === "sio") return '42["start"]';
  const id = visitor.nextId++;
  return `{"id":${id},"method":"mutation","params":{"path":"chat.start","input":${asked}}}`;
}

/**
 * Opens `count` visitors, `parallel` at a time, each subscribed to its chat stream (app) and
 * ready. `onFrame` sees every frame after that. Given several servers (instances of one site),
 * visitor i connects to the (i mod n)th.
 */
export async function openVisitors(
  baseUrls: string | readonly string[],
  mode: ChatMode,
  count: number,
  firstVisitor: number,
  onFrame: (visitor: Visitor, frame: string) => void,
  parallel = 100,
): Promise<Visitor[]> {
  const path = { app: "/trpc", raw: "/", sio: "/socket.io/?EIO=4&transport=websocket" }[mode];
  const servers = (typeof baseUrls === "string" ? [baseUrls] : baseUrls).map((url) => {
    const origin = new URL(url).origin;
    return { origin, wsUrl: `${origin.replace(/^http/, "ws")}${path}` };
  });
  const visitors: Visitor[] = new Array(count);
  const openOne = (index: number) =>
    new Promise<Visitor>((resolve, reject) => {
      const n = firstVisitor + index;
      const server = index % servers.length;
      const { origin, wsUrl } = servers[server] as { origin: string; wsUrl: string };
      const headers = {
        Origin: origin,
        Cookie: `visitor=${visitorCookie("chat", n)}`,
        "X-Forwarded-For": privateAddress(n),
      };
      // Bun's WebSocket takes headers, which browsers set themselves.
      const socket = new WebSocket(wsUrl, { headers } as unknown as string[]);
      const visitor: Visitor = {
        index,
        server,
        socket,
        nextId: 2,
        chatId: undefined,
        matchedAt: undefined,
        matchedCount: 0,
        pressedAt: undefined,
      };
      let ready = false;
      const timer = setTimeout(
        () => reject(new Error(`visitor ${index} not ready in 30 s`)),
        30_000,
      );
      socket.onerror = () => {
        if (!ready) {
          clearTimeout(timer);
          reject(new Error(`visitor ${index} could not connect`));
        }
      };
      socket.onopen = () => {
        if (mode === "raw") {
          ready = true;
          clearTimeout(timer);
          resolve(visitor);
        } else if (mode === "app") {
          socket.send(SUBSCRIBE);
        }
        // Socket.IO: the server speaks first (Engine.IO's open packet).
      };
      if (mode === "sio") {
        socket.onmessage = (event) => {
          const frame = typeof event.data === "string" ? event.data : String(event.data);
          if (frame === "2") {
            socket.send("3");
            return;
          }
          if (!ready) {
            if (frame.startsWith("0{")) socket.send("40");
            else if (frame.startsWith("40")) {
              ready = true;
              clearTimeout(timer);
              resolve(visitor);
            } else if (frame.startsWith("44")) {
              clearTimeout(timer);
              reject(new Error(`visitor ${index} refused: ${frame.slice(0, 200)}`));
            }
            return;
          }
          onFrame(visitor, frame);
        };
        return;
      }
      socket.onmessage = (event) => {
        const frame = typeof event.data === "string" ? event.data : String(event.data);
        if (!ready) {
          // The stream's first event says where things stand: the visitor is listening.
          if (frame.includes('"type":"status"')) {
            ready = true;
            clearTimeout(timer);
            resolve(visitor);
          }
          return;
        }
        onFrame(visitor, frame);
      };
    });
  for (let i = 0; i < count; i += parallel) {
    const batch: Promise<Visitor>[] = [];
    for (let j = i; j < Math.min(count, i + parallel); j++) batch.push(openOne(j));
    for (const visitor of await Promise.all(batch)) visitors[visitor.index] = visitor;
  }
  return visitors;
}

/** Whether a frame says the visitor was paired, and with which chat. */
export function matchedChat(frame: string, mode: ChatMode): string | undefined {
  if (mode === "raw") return frame.startsWith("matched:") ? frame.slice(8) : undefined;
  if (mode === "sio" ? !frame.startsWith('42["matched"') : !frame.includes('"type":"matched"'))
    return undefined;
  return /"chatId":"([^"]+)"/.exec(frame)?.[1];
}

/** An error answer: tRPC's error frame, or Socket.IO's refusal of the connection (`44`). */
export function isError(frame: string): boolean {
  return (frame.startsWith('{"id"') && frame.includes('"error":')) || frame.startsWith("44");
}

export function closeAll(visitors: Visitor[]): void {
  for (const visitor of visitors) visitor?.socket.close();
}
