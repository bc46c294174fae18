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
 * `42["name",...args]`, an event that asks for an acknowledgement carries its id
 * (`42<id>["send",...]`) and is answered `43<id>[...]`, and the server's ping `2` is answered
 * with the pong `3`.
 *
 * The app's visitors go through the calls a browser makes before it can chat: the stream
 * first (its first event is the status), then the safety gate's answer (`chat.confirmAge`,
 * 18 or older), and only then `chat.start`. A gate the client does not pass fails the load
 * loudly, rather than leaving nobody paired.
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

/** The safety gate's answer (18 or older), as the chat page sends it before the first start. */
const CONFIRM_AGE = (id: number) =>
  `{"id":${id},"method":"mutation","params":{"path":"chat.confirmAge","input":{"adult":true}}}`;

/**
 * A message's text: the send time, then ordinary words, about the size of a chat line. The
 * app answers the sender's call with the message; Socket.IO acknowledges it (`43<id>[...]`).
 */
export function stampedMessage(visitor: Visitor, sentAt: number, mode: ChatMode): string {
  const content = `t:${sentAt.toFixed(3)} how is the weather where you are today?`;
  const id = visitor.nextId++;
  if (mode === "sio") return `42${id}["send","${content}"]`;
  return `{"id":${id},"method":"mutation","params":{"path":"chat.send","input":{"content":"${content}"}}}`;
}

const STAMP = '"content":"t:';

/**
 * The send times stamped in the messages a frame brings to their partner: one for each
 * message, however many one frame carries (the app sends the events waiting for a visitor in
 * one frame). A message object is flat, so the keys between its `{` and `}` say who it is from;
 * the sender's own copy (the answer to its call, "from":"me") is not counted. The raw relay
 * forwards the sender's frame as it is, with no sender to tell: everything it brings counts.
 */
export function partnerStamps(frame: string, mode: ChatMode): number[] {
  const stamps: number[] = [];
  for (let at = frame.indexOf(STAMP); at !== -1; at = frame.indexOf(STAMP, at + 1)) {
    if (mode !== "raw") {
      const open = frame.lastIndexOf("{", at);
      const close = frame.indexOf("}", at);
      const from = frame.indexOf('"from":"partner"', open);
      if (from === -1 || from > close) continue;
    }
    const start = at + STAMP.length;
    stamps.push(Number(frame.slice(start, frame.indexOf(" ", start))));
  }
  return stamps;
}

/** `asked`: languages and interests as JSON, for chat.startWith; chat.start (anyone) without. */
export function startFrame(visitor: Visitor, mode: ChatMode, asked?: string): string {
  if (mode === "raw") return "start";
  if (mode === "sio") return '42["start"]';
  const id = visitor.nextId++;
  if (asked) {
    return `{"id":${id},"method":"mutation","params":{"path":"chat.startWith","input":${asked}}}`;
  }
  return `{"id":${id},"method":"mutation","params":{"path":"chat.start","input":null}}`;
}

/**
 * Opens `count` visitors, `parallel` at a time, each subscribed to its chat stream (app) and,
 * unless `answerAge` is false, past the safety gate: ready to press start. `onFrame` sees every
 * frame after that. Given several servers (instances of one site), visitor i connects to the
 * (i mod n)th.
 */
export async function openVisitors(
  baseUrls: string | readonly string[],
  mode: ChatMode,
  count: number,
  firstVisitor: number,
  onFrame: (visitor: Visitor, frame: string) => void,
  parallel = 100,
  answerAge = true,
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
      // The answer awaited to the age gate's call, once the stream has said where things stand.
      let gate: string | undefined;
      socket.onmessage = (event) => {
        const frame = typeof event.data === "string" ? event.data : String(event.data);
        if (!ready) {
          if (gate === undefined) {
            // The stream's first event says where things stand: the visitor is listening.
            if (!frame.includes('"type":"status"')) return;
            if (!answerAge) {
              ready = true;
              clearTimeout(timer);
              resolve(visitor);
              return;
            }
            const id = visitor.nextId++;
            gate = `{"id":${id},`;
            socket.send(CONFIRM_AGE(id));
            return;
          }
          if (!frame.startsWith(gate)) return;
          clearTimeout(timer);
          if (isError(frame) || !frame.includes('"age":"confirmed"')) {
            reject(new Error(`visitor ${index}: the safety gate answered ${frame.slice(0, 300)}`));
            return;
          }
          ready = true;
          resolve(visitor);
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
