/**
 * Simulated chat visitors for the load generators: real WebSockets speaking either the app's
 * tRPC protocol (ws://host/trpc, with the site's Origin, a visitor cookie and a forwarded
 * address of their own) or the raw relay's ("start", then frames forwarded as they are).
 * Frames are looked at with string searches, not parsed, so the generator's own cost per
 * frame stays small next to the server's.
 */
import { privateAddress, visitorCookie } from "./lib.ts";

export type ChatMode = "app" | "raw";

export interface Visitor {
  index: number;
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
export function stampedMessage(visitor: Visitor, sentAt: number): string {
  const content = `t:${sentAt.toFixed(3)} how is the weather where you are today?`;
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

export function startFrame(visitor: Visitor, mode: ChatMode): string {
  if (mode === "raw") return "start";
  const id = visitor.nextId++;
  return `{"id":${id},"method":"mutation","params":{"path":"chat.start","input":null}}`;
}

/**
 * Opens `count` visitors, `parallel` at a time, each subscribed to its chat stream (app) and
 * ready. `onFrame` sees every frame after that.
 */
export async function openVisitors(
  baseUrl: string,
  mode: ChatMode,
  count: number,
  firstVisitor: number,
  onFrame: (visitor: Visitor, frame: string) => void,
  parallel = 100,
): Promise<Visitor[]> {
  const origin = new URL(baseUrl).origin;
  const wsUrl = `${origin.replace(/^http/, "ws")}${mode === "app" ? "/trpc" : "/"}`;
  const visitors: Visitor[] = new Array(count);
  const openOne = (index: number) =>
    new Promise<Visitor>((resolve, reject) => {
      const n = firstVisitor + index;
      const headers = {
        Origin: origin,
        Cookie: `visitor=${visitorCookie("chat", n)}`,
        "X-Forwarded-For": privateAddress(n),
      };
      // Bun's WebSocket takes headers, which browsers set themselves.
      const socket = new WebSocket(wsUrl, { headers } as unknown as string[]);
      const visitor: Visitor = {
        index,
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
        } else {
          socket.send(SUBSCRIBE);
        }
      };
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
  if (!frame.includes('"type":"matched"')) return undefined;
  return /"chatId":"([^"]+)"/.exec(frame)?.[1];
}

export function isError(frame: string): boolean {
  return frame.startsWith('{"id"') && frame.includes('"error":');
}

export function closeAll(visitors: Visitor[]): void {
  for (const visitor of visitors) visitor?.socket.close();
}
