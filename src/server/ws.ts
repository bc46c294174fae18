import type { Server, WebSocketHandler } from "bun";
import { SERVER_RESTARTING } from "../common/chat-timings.ts";
import { ipKey } from "../core/limits/ip-key.ts";
import { clientIp } from "./client-ip.ts";
import type { ErrorLog } from "./error-log.ts";
import { contextFor, cookiesOf, type Visitor, visitorCookie } from "./identity.ts";
import type { Services } from "./services.ts";
import { appRouter } from "./trpc/routers/index.ts";
import { createTrpcWebSocketHandler, type SocketData } from "./trpc/ws-adapter.ts";

/** Frames larger than this close the socket (no chat call comes near it). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Idle sockets are pinged; one that does not answer is closed within this many seconds. */
export const IDLE_TIMEOUT_SECONDS = 30;
/** Open sockets per visitor (a few tabs), and per address with all its visitors and cookies. */
export const SOCKET_LIMITS = { perVisitor: 4, perAddress: 64 } as const;

/** What a socket's context is made from: the upgrade request, its visitor and address. */
interface Upgrade {
  request: Request;
  visitor: Visitor;
  address: string | undefined;
  ipKey: string;
}

/**
 * tRPC over WebSocket on the same Bun.serve: subscriptions and chat calls. The context is made
 * once per socket, from the cookies and address of the upgrade request.
 */
export function createWebSocket(services: Services, errors: ErrorLog) {
  const trpc = createTrpcWebSocketHandler({
    router: appRouter,
    createContext: ({ request, visitor, address }: Upgrade) =>
      // Cookies cannot be set over a socket; a refreshed session is simply not re-sent.
      contextFor(services, request, cookiesOf(request), () => address, visitor, new Map()),
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
  const websocket: WebSocketHandler<SocketData<Upgrade>> = {
    ...trpc.websocket,
    open(socket) {
      services.metrics.websockets.inc();
      trpc.websocket.open?.(socket);
    },
    close(socket, code, reason) {
      services.metrics.websockets.dec();
      for (const key of keysOf(socket.data.upgrade)) count(key, -1);
      trpc.websocket.close?.(socket, code, reason);
    },
    maxPayloadLength: MAX_FRAME_BYTES,
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
    const address = server.requestIP(request)?.address;
    const ip = clientIp(request, () => address, services.config.trustProxy);
    const data: SocketData<Upgrade> = {
      upgrade: { request, visitor, address, ipKey: ipKey(services.config.secret, ip) },
    };
    // Counted in the same step as the check, so sockets opened together meet the limit too.
    const [byVisitor = "", byAddress = ""] = keysOf(data.upgrade);
    if (
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
    closeAll: () => trpc.closeAll(SERVER_RESTARTING, "server restarting"),
  };
}
