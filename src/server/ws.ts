import type { Server, WebSocketHandler } from "bun";
import type { ErrorLog } from "./error-log.ts";
import { contextFor, type Visitor, visitorCookie, visitorOf } from "./identity.ts";
import type { Services } from "./services.ts";
import { appRouter } from "./trpc/routers/index.ts";
import { createTrpcWebSocketHandler, type SocketData } from "./trpc/ws-adapter.ts";

/** Frames larger than this close the socket (no chat call comes near it). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Idle sockets are pinged; one that does not answer is closed within this many seconds. */
export const IDLE_TIMEOUT_SECONDS = 30;

/** What a socket's context is made from: the upgrade request, its visitor and address. */
interface Upgrade {
  request: Request;
  visitor: Visitor;
  address: string | undefined;
}

/**
 * tRPC over WebSocket on the same Bun.serve: subscriptions and chat calls. The context is made
 * once per socket, from the cookies and address of the upgrade request.
 */
export function createWebSocket(services: Services, errors: ErrorLog) {
  const trpc = createTrpcWebSocketHandler({
    router: appRouter,
    createContext: ({ request, visitor, address }: Upgrade) =>
      // Session cookies cannot be set over a socket; a refreshed session is simply not re-sent.
      contextFor(services, request, () => address, visitor, []),
    onError: (error) => errors.trpc(error),
  });
  const websocket: WebSocketHandler<SocketData<Upgrade>> = {
    ...trpc.websocket,
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
  ): Response | undefined {
    if (!originAllowed(request, ownOrigin)) return new Response("Forbidden", { status: 403 });
    const visitor = visitorOf(request);
    // Read now: once upgraded, the request no longer names its socket.
    const address = server.requestIP(request)?.address;
    const headers = new Headers();
    if (visitor.isNew) headers.append("Set-Cookie", visitorCookie(services, visitor));
    const data: SocketData<Upgrade> = { upgrade: { request, visitor, address } };
    if (server.upgrade(request, { data, headers })) return undefined;
    return new Response("Upgrade failed", { status: 400 });
  }

  return { websocket, upgrade, reconnectAll: trpc.broadcastReconnectNotification };
}
