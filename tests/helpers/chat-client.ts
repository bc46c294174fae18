/**
 * The one tRPC WebSocket chat client of the tests and the benchmarks: a real tRPC client (as the
 * web's wsLink is) with the visitor's signed cookie, the site's Origin and a forwarded address of
 * its own. No bun:test here, so the benchmarks (scripts/bench/cluster/costs.ts) run it as they are;
 * tests/helpers/chat.ts adds the test-only helpers.
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
