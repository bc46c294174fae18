/**
 * The one tRPC WebSocket chat client of the tests and the benchmarks, each visitor with its signed
 * cookie, the site's Origin and a forwarded address of its own. chatTester is a real tRPC client,
 * as the web's wsLink is. The frame API below it (openVisitors) is the load generators' fast
 * path: the same protocol written and read as text, so the generator's cost per frame stays small
 * next to the server's, and it also speaks the raw relay's and Socket.IO's. No bun:test here, so
 * the benchmarks run it as they are.
 */
import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import type { ChatEvent } from "../../src/common/chat.ts";
import type { MatchPreferencesInput } from "../../src/common/chat-preferences.ts";
import type { AppRouter } from "../../src/server/trpc/routers/index.ts";
import { chatSocketOptions } from "../../src/web/lib/trpc.ts";
import { signedVisitorCookie } from "./server.ts";

let counter = 0;
/** A well-formed visitor id of our own choosing (signedVisitorCookie makes its cookie). */
export function visitorId(): string {
  counter += 1;
  return `test${String(counter).padStart(4, "0")}${"x".repeat(14)}`.slice(0, 22);
}

/**
 * A bare chat socket as a script opens one, with the site's Origin and the cookie and forwarded
 * address given: the socket once open, or undefined when the upgrade was refused.
 */
export function chatSocket(
  url: string,
  headers: { Cookie?: string; "X-Forwarded-For": string },
): Promise<WebSocket | undefined> {
  // Bun's WebSocket takes headers in its options; the DOM's type has no room for them.
  const socket = new WebSocket(`${url.replace("http", "ws")}/trpc`, {
    headers: { Origin: url, ...headers },
  } as unknown as string[]);
  return new Promise((resolve) => {
    socket.onopen = () => resolve(socket);
    socket.onerror = () => resolve(undefined);
  });
}

export interface ChatTester {
  visitorId: string;
  api: ReturnType<typeof createTRPCClient<AppRouter>>;
  events: ChatEvent[];
  lastEventId: string | null;
  /** Subscribes to the chat stream (resuming from lastEventId when given). */
  listen(lastEventId?: string | null): void;
  /** Answers the safety gate (18 or older), once however often it is called. */
  confirmAge(): Promise<unknown>;
  /** Answers the safety gate (once), then starts, asking for what `asked` names. */
  start(
    asked?: MatchPreferencesInput,
  ): ReturnType<ReturnType<typeof createTRPCClient<AppRouter>>["chat"]["start"]["mutate"]>;
  /** Waits until an event matching `match` has arrived (searching all received so far). */
  waitFor(match: (e: ChatEvent) => boolean, timeoutMs?: number): Promise<ChatEvent>;
  close(): void;
  /**
   * Closes the socket as its page would go (1001, going away: the tab closed or its renderer
   * died) or with another code, and never comes back.
   */
  leave(code: number): void;
}

/**
 * A real tRPC WebSocket client, as the web's wsLink is, with the visitor cookie, the site's
 * Origin and a forwarded address of its own.
 */
export function chatTester(
  baseUrl: string,
  options: {
    visitorId?: string;
    /** The SECRET the server signs visitor ids with, when not the test servers' own. */
    secret?: string;
    /** The whole Cookie header, instead of the visitor's signed cookie. */
    cookie?: string;
    address?: string;
    origin?: string;
    /** Where each (re)connection goes, as a load balancer would choose; `baseUrl` by default. */
    url?: () => string;
    /** Reconnect as the web does (its socket options), not every 100 ms. */
    asTheWeb?: boolean;
    /** Called with each event as it arrives. */
    onEvent?: (event: ChatEvent) => void;
  } = {},
): ChatTester {
  const id = options.visitorId ?? visitorId();
  const headers = {
    Origin: options.origin ?? baseUrl,
    Cookie: options.cookie ?? signedVisitorCookie(id, { secret: options.secret }),
    "X-Forwarded-For": options.address ?? `203.0.113.${(counter % 250) + 1}`,
  };
  const sockets = new Set<WebSocket>();
  class HeaderedWebSocket extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      // Bun's WebSocket takes headers, which browsers set themselves.
      super(url, { headers, protocols } as unknown as string[]);
      sockets.add(this);
    }
  }
  const url = () => `${(options.url?.() ?? baseUrl).replace(/^http/, "ws")}/trpc`;
  const client = createWSClient({
    ...(options.asTheWeb
      ? { ...chatSocketOptions(url), lazy: { enabled: false, closeMs: 0 } }
      : { url, retryDelayMs: () => 100 }),
    WebSocket: HeaderedWebSocket as unknown as typeof WebSocket,
  });
  const api = createTRPCClient<AppRouter>({ links: [wsLink({ client })] });
  const waiters = new Set<() => void>();
  let subscription: { unsubscribe(): void } | undefined;
  let confirmed: Promise<unknown> | undefined;
  const tester: ChatTester = {
    visitorId: id,
    api,
    events: [],
    lastEventId: null,
    listen(lastEventId) {
      subscription = api.chat.events.subscribe(lastEventId ? { lastEventId } : undefined, {
        onData(tracked) {
          tester.lastEventId = tracked.id;
          tester.events.push(...tracked.data);
          if (options.onEvent) for (const event of tracked.data) options.onEvent(event);
          for (const wake of waiters) wake();
        },
      });
    },
    confirmAge() {
      confirmed ??= api.chat.confirmAge.mutate({ adult: true });
      return confirmed;
    },
    async start(asked) {
      await tester.confirmAge();
      return asked ? api.chat.startWith.mutate(asked) : api.chat.start.mutate();
    },
    waitFor(match, timeoutMs = 3000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = tester.events.find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; events so far: ${JSON.stringify(tester.events)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      subscription?.unsubscribe();
      client.close();
    },
    leave(code) {
      // The socket closes first with this code; then the client, so it does not reconnect.
      for (const socket of sockets) socket.close(code);
      client.close();
    },
  };
  return tester;
}

/** A test for events of one type, narrowing to it. */
export const isType =
  <T extends ChatEvent["type"]>(type: T) =>
  (e: ChatEvent): e is Extract<ChatEvent, { type: T }> =>
    e.type === type;

/** Subscribes and waits for the first status: from then on the visitor can be paired. */
export async function listening(t: ChatTester): Promise<ChatTester> {
  t.listen();
  await t.waitFor(isType("status"));
  return t;
}

/** The chat a visitor is in, as the last of its events that says so tells. */
export function currentChat(events: readonly ChatEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === "matched") return event.chatId;
    if (event?.type === "status") {
      return event.status.state === "chatting" ? event.status.chatId : undefined;
    }
    if (event?.type === "partner-left" || event?.type === "idle") return undefined;
  }
  return undefined;
}

/** Two listening visitors paired: the first waits, the second is matched with them at once. */
export async function pairListening(a: ChatTester, b: ChatTester): Promise<void> {
  const first = await a.start();
  if (first.state !== "waiting") throw new Error(`the first start answered ${first.state}`);
  const second = await b.start();
  if (second.state !== "chatting") throw new Error(`the second start answered ${second.state}`);
  await a.waitFor(isType("matched"));
  await b.waitFor(isType("matched"));
}

// ---- The frame API: the load generators' visitors ----

/** A private address, unique for n < 2^24: 10.x.y.z (the country lookup answers Unknown). */
export function privateAddress(n: number): string {
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** A visitor id of 22 characters of [A-Za-z0-9_-], unique per (prefix, n). */
export const numberedVisitorId = (prefix: string, n: number) =>
  `${prefix}${n.toString(36)}`.padEnd(22, "_").slice(0, 22);

/**
 * The app's tRPC protocol, the raw relay's ("start", then frames forwarded as they are), or
 * Socket.IO's (Engine.IO v4 over `transport=websocket`, protocol v5: the server opens with
 * `0{...}`, `40` joins the main namespace, events are `42["name",...]`, `42<id>[...]` asks for
 * the acknowledgement `43<id>[...]`, the ping `2` is answered `3`), spoken over a plain
 * WebSocket so one generator measures all three with the same cost per frame.
 */
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

const call = (id: number, kind: string, path: string, input: string) =>
  `{"id":${id},"method":"${kind}","params":{"path":"${path}","input":${input}}}`;

/** A message stamped with its send time, about the size of a chat line. */
export function stampedMessage(visitor: Visitor, sentAt: number, mode: ChatMode): string {
  const content = `t:${sentAt.toFixed(3)} how is the weather where you are today?`;
  const id = visitor.nextId++;
  if (mode === "sio") return `42${id}["send","${content}"]`;
  return call(id, "mutation", "chat.send", `{"content":"${content}"}`);
}

/** A "typing" call of the app's protocol. */
export const typingFrame = (visitor: Visitor, isTyping: boolean) =>
  call(visitor.nextId++, "mutation", "chat.typing", `{"isTyping":${isTyping}}`);

const STAMP = '"content":"t:';

/**
 * The send times stamped in the messages a frame brings from the partner (one frame may carry
 * several). The first "from" after a message's opening brace is its own (its country is an
 * object inside it); the sender's own copy ("from":"me") is not counted. The raw relay has no
 * sender: all counts.
 */
export function partnerStamps(frame: string, mode: ChatMode): number[] {
  const stamps: number[] = [];
  for (let at = frame.indexOf(STAMP); at !== -1; at = frame.indexOf(STAMP, at + 1)) {
    const from = frame.indexOf('"from":"', frame.lastIndexOf("{", at));
    if (mode !== "raw" && !frame.startsWith('"from":"partner"', from)) continue;
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
  return asked
    ? call(id, "mutation", "chat.startWith", asked)
    : call(id, "mutation", "chat.start", "null");
}

export interface OpenVisitors {
  urls: string | readonly string[];
  mode: ChatMode;
  count: number;
  firstVisitor: number;
  /** Every frame once the visitor is ready. */
  onFrame: (visitor: Visitor, frame: string) => void;
  /** The SECRET the site signs visitor ids with. */
  secret?: string;
  parallel?: number;
  /** Answer the safety gate (18 or older) before being ready; true unless given. */
  answerAge?: boolean;
}

/**
 * Opens `count` visitors, `parallel` at a time, each subscribed to its chat stream (app) and,
 * unless `answerAge` is false, past the safety gate, as the chat page goes before its first
 * start (a gate not passed fails the load loudly). Visitor i connects to the (i mod n)th URL.
 */
export async function openVisitors(o: OpenVisitors): Promise<Visitor[]> {
  const path = { app: "/trpc", raw: "/", sio: "/socket.io/?EIO=4&transport=websocket" }[o.mode];
  const servers = (typeof o.urls === "string" ? [o.urls] : o.urls).map((url) => {
    const origin = new URL(url).origin;
    return { origin, wsUrl: `${origin.replace(/^http/, "ws")}${path}` };
  });
  const openOne = (index: number) =>
    new Promise<Visitor>((resolve, reject) => {
      const n = o.firstVisitor + index;
      const server = index % servers.length;
      const { origin, wsUrl } = servers[server] as { origin: string; wsUrl: string };
      const headers = {
        Origin: origin,
        Cookie: signedVisitorCookie(numberedVisitorId("chat", n), { secret: o.secret }),
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
      const settle = (error?: Error) => {
        clearTimeout(timer);
        if (error) return reject(error);
        ready = true;
        resolve(visitor);
      };
      const timer = setTimeout(
        () => reject(new Error(`visitor ${index} not ready in 30 s`)),
        30_000,
      );
      socket.onerror = () => {
        if (!ready) settle(new Error(`visitor ${index} could not connect`));
      };
      socket.onopen = () => {
        if (o.mode === "raw") settle();
        else if (o.mode === "app") socket.send(call(1, "subscription", "chat.events", "{}"));
      };
      // The id of the age gate's call, once the stream's first event (the status) has come.
      let gate: string | undefined;
      const handshake = (frame: string) => {
        if (o.mode === "sio") {
          if (frame.startsWith("0{")) socket.send("40");
          else if (frame.startsWith("40")) settle();
          else if (frame.startsWith("44")) settle(new Error(`visitor ${index} refused: ${frame}`));
        } else if (gate === undefined) {
          if (!frame.includes('"type":"status"')) return;
          if (o.answerAge === false) return settle();
          const id = visitor.nextId++;
          gate = `{"id":${id},`;
          socket.send(call(id, "mutation", "chat.confirmAge", '{"adult":true}'));
        } else if (frame.startsWith(gate)) {
          if (isError(frame) || !frame.includes('"age":"confirmed"')) {
            settle(new Error(`visitor ${index}: the safety gate answered ${frame.slice(0, 300)}`));
          } else settle();
        }
      };
      socket.onmessage = (event) => {
        const frame = typeof event.data === "string" ? event.data : String(event.data);
        if (o.mode === "sio" && frame === "2") socket.send("3");
        else if (!ready) handshake(frame);
        else o.onFrame(visitor, frame);
      };
    });
  const visitors: Visitor[] = new Array(o.count);
  const parallel = o.parallel ?? 100;
  for (let i = 0; i < o.count; i += parallel) {
    const batch: Promise<Visitor>[] = [];
    for (let j = i; j < Math.min(o.count, i + parallel); j++) batch.push(openOne(j));
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
