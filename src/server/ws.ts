import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import { SERVER_RESTARTING } from "../common/chat-timings.ts";
import { ipKey } from "../core/limits/ip-key.ts";
import type { ErrorLog } from "./error-log.ts";
import {
  contextFor,
  cookieHeaderOf,
  factsOf,
  type RequestFacts,
  type Visitor,
  visitorCookie,
} from "./identity.ts";
import type { Services } from "./services.ts";
import { MAX_BATCH_SIZE } from "./trpc/http.ts";
import { appRouter } from "./trpc/routers/index.ts";
import { createTrpcWebSocketHandler, type SocketData } from "./trpc/ws-adapter.ts";

/** Frames larger than this close the socket (no chat call comes near it). */
export const MAX_FRAME_BYTES = 64 * 1024;
/**
 * What the server holds unsent for one socket at most: frames its client has not read yet. A page
 * reads as frames come (a resume resends at most a chat's kept events, ~100 KB); a client that
 * asks and never reads is closed past it, instead of being held up to Bun's default 16 MiB on
 * each of an address's 64 sockets. A page whose socket closes reconnects and resumes, losing
 * nothing.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** Idle sockets are pinged; one that does not answer is closed within this many seconds. */
export const IDLE_TIMEOUT_SECONDS = 30;
/** Open sockets per visitor (a few tabs), and per address with all its visitors and cookies. */
export const SOCKET_LIMITS = { perVisitor: 4, perAddress: 64 } as const;
/** Frames with more calls than a batch may hold that a socket may send before it is closed. */
export const OVERSIZED_FRAMES_TO_CLOSE = 3;
/** The close code for a socket that kept breaking the rules (RFC 6455: policy violation). */
export const POLICY_VIOLATION = 1008;
/**
 * The close code a browser sends when the page holding the socket goes away (RFC 6455: going
 * away): the tab closed, the page was left, or its renderer died. A dropped network sends no
 * close frame, and the tRPC client's own closes use other codes.
 */
export const GOING_AWAY = 1001;

/**
 * Whether a socket's close says its page went away for good: a 1001 while the browser was
 * still answering. Bun reports two other closes as 1001 too: its idle timeout, which comes only
 * after IDLE_TIMEOUT_SECONDS without a word (a dead network, which the resume grace is for),
 * and this server stopping (the visitor resumes on another instance).
 */
export function pageWentAway(code: number, heardAgoMs: number, stopping: boolean): boolean {
  return code === GOING_AWAY && !stopping && heardAgoMs < (IDLE_TIMEOUT_SECONDS * 1000 * 2) / 3;
}

/**
 * The calls in a frame, when it is a batch (a JSON array) with more of them than an HTTP batch
 * may hold; undefined for every other frame, which is left to tRPC whole. Only frames that start
 * like an array are parsed here, so a chat message's frame costs one byte's look.
 */
export function oversizedBatch(message: string | Buffer): unknown[] | undefined {
  const first = typeof message === "string" ? message.charCodeAt(0) : message[0];
  if (first !== 0x5b) return undefined;
  let calls: unknown;
  try {
    calls = JSON.parse(typeof message === "string" ? message : message.toString("utf8"));
  } catch {
    return undefined;
  }
  return Array.isArray(calls) && calls.length > MAX_BATCH_SIZE ? calls : undefined;
}

/** tRPC's error answer to a call refused before it ran, in the shape the client reads. */
function refusal(id: unknown): string {
  return JSON.stringify({
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: {
      code: TRPC_ERROR_CODES_BY_KEY.BAD_REQUEST,
      message: `At most ${MAX_BATCH_SIZE} calls in one frame`,
      data: { code: "BAD_REQUEST", httpStatus: 400, appCode: "INVALID_INPUT" },
    },
  });
}

/**
 * What a socket's context is made from (of the upgrade request, only what the context reads:
 * holding the request for the socket's life cost every idle visitor memory of its own), and when
 * its browser was last heard.
 */
interface Upgrade {
  facts: RequestFacts;
  /** The upgrade's Cookie header. */
  cookie: string;
  visitor: Visitor;
  ipKey: string;
  /** When the browser last sent anything (a call or the answer to a ping). */
  heardAt: number;
}

/**
 * tRPC over WebSocket on the same Bun.serve: subscriptions and chat calls. The context is made
 * once per socket, from the cookies and address of the upgrade request; the session those
 * cookies name, and its operator flag, are read again for each call (see contextFor).
 */
export function createWebSocket(services: Services, errors: ErrorLog) {
  const trpc = createTrpcWebSocketHandler({
    router: appRouter,
    createContext: ({ facts, cookie, visitor }: Upgrade) =>
      // Cookies cannot be set over a socket; a refreshed session is simply not re-sent.
      contextFor(services, facts, new Bun.CookieMap(cookie), visitor, new Map(), true),
    onError: (error) => errors.trpc(error),
  });
  /** Open sockets by "v:<visitor>" and "ip:<address hash>". */
  const open = new Map<string, number>();
  const count = (key: string, by: number) => {
    const n = (open.get(key) ?? 0) + by;
    if (n > 0) open.set(key, n);
    else open.delete(key);
  };
  const keysOf = ({ visitor, ipKey }: Upgrade) => [`v:${visitor.id}`, `ip:${ipKey}`];
  /** Set once the server closes every socket to stop: no close after that is a page leaving. */
  let stopping = false;
  /** Oversized frames each socket sent. */
  const strikes = new WeakMap<ServerWebSocket<SocketData<Upgrade>>, number>();
  const websocket: WebSocketHandler<SocketData<Upgrade>> = {
    ...trpc.websocket,
    open(socket) {
      services.metrics.websockets.inc();
      trpc.websocket.open?.(socket);
    },
    // Like an HTTP batch, a frame holds at most MAX_BATCH_SIZE calls: a larger one is refused
    // before any call runs (each call answered with the refusal, so no client waits on one), and
    // a socket that keeps sending them is closed.
    message(socket, message) {
      socket.data.upgrade.heardAt = performance.now();
      const calls = oversizedBatch(message);
      if (!calls) {
        trpc.websocket.message?.(socket, message);
        return;
      }
      const count = (strikes.get(socket) ?? 0) + 1;
      strikes.set(socket, count);
      if (count >= OVERSIZED_FRAMES_TO_CLOSE) {
        socket.close(POLICY_VIOLATION, "Too many calls in one frame");
        return;
      }
      socket.cork(() => {
        for (const call of calls) socket.send(refusal((call as { id?: unknown } | null)?.id));
      });
    },
    pong(socket) {
      socket.data.upgrade.heardAt = performance.now();
    },
    close(socket, code, reason) {
      services.metrics.websockets.dec();
      const { upgrade } = socket.data;
      for (const key of keysOf(upgrade)) count(key, -1);
      trpc.websocket.close?.(socket, code, reason);
      // The page's beacon says the same, but a page that is closed under load may be ended
      // before it runs; the browser still sends this code. The resume grace is for dropped
      // networks; a visitor whose page has gone is not coming back to it. Another tab of the
      // same visitor still open, here or on another instance, keeps the chat.
      if (
        pageWentAway(code, performance.now() - upgrade.heardAt, stopping) &&
        !open.has(`v:${upgrade.visitor.id}`)
      ) {
        services.chat.broker
          .end(upgrade.visitor.id, { ifGone: true })
          .catch((error: unknown) => errors.fault("chat end on going away", error));
      }
    },
    maxPayloadLength: MAX_FRAME_BYTES,
    backpressureLimit: MAX_UNSENT_BYTES,
    closeOnBackpressureLimit: true,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    sendPings: true,
  };

  /** Whether the upgrade's Origin is the site's own or one the operator allowed. */
  function originAllowed(request: Request, ownOrigin: string): boolean {
    const origin = request.headers.get("origin");
    if (!origin) return false;
    return origin === ownOrigin || services.config.chatAllowedOrigins.includes(origin);
  }

  /** Answers the upgrade request: a Response when refused, undefined once upgraded. */
  function upgrade(
    request: Request,
    server: Server<SocketData<Upgrade>>,
    ownOrigin: string,
    visitor: Visitor,
  ): Response | undefined {
    if (!originAllowed(request, ownOrigin)) return new Response("Forbidden", { status: 403 });
    // Read now: once upgraded, the request no longer names its socket.
    const facts = factsOf(services, request, () => server.requestIP(request)?.address);
    const data: SocketData<Upgrade> = {
      upgrade: {
        facts,
        cookie: cookieHeaderOf(request),
        visitor,
        ipKey: ipKey(services.config.secret, facts.ip),
        heardAt: performance.now(),
      },
    };
    // Every attempt takes from the address's and the visitor's buckets of sockets opened,
    // refused or not: opening and closing in a loop costs the shared chat state (see
    // CHAT_CONNECTIONS), and a refusal here costs nothing more. The open sockets are counted in
    // the same step as their check, so sockets opened together meet the caps too.
    const [byVisitor = "", byAddress = ""] = keysOf(data.upgrade);
    if (
      !services.chat.connections.allowAddressFirst(visitor.id, data.upgrade.ipKey) ||
      (open.get(byVisitor) ?? 0) >= SOCKET_LIMITS.perVisitor ||
      (open.get(byAddress) ?? 0) >= SOCKET_LIMITS.perAddress
    ) {
      return new Response("Too many chat connections", {
        status: 429,
        headers: { "Retry-After": "10" },
      });
    }
    const headers = new Headers();
    if (visitor.isNew) headers.append("Set-Cookie", visitorCookie(services, visitor));
    count(byVisitor, 1);
    count(byAddress, 1);
    if (server.upgrade(request, { data, headers })) return undefined;
    count(byVisitor, -1);
    count(byAddress, -1);
    return new Response("Upgrade failed", { status: 400 });
  }

  return {
    websocket,
    upgrade,
    reconnectAll: trpc.broadcastReconnectNotification,
    /** Closes every socket as "server restarting"; the web reconnects at once. */
    closeAll: () => {
      stopping = true;
      trpc.closeAll(SERVER_RESTARTING, "server restarting");
    },
  };
}
