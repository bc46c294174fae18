import type { Server, WebSocketHandler } from "bun";
import { contextFor, type Visitor, visitorCookie, visitorOf } from "./identity.ts";
import type { Services } from "./services.ts";
import type { Context } from "./trpc/context.ts";
import { appRouter } from "./trpc/routers/index.ts";
import { createTrpcWebSocketHandler, type SocketState } from "./trpc/ws-adapter.ts";

/** Frames larger than this close the socket (no chat call comes near it). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Idle sockets are pinged; one that does not answer is closed within this many seconds. */
export const IDLE_TIMEOUT_SECONDS = 30;

type SocketData = SocketState<Context>;

/**
 * tRPC over WebSocket on the same Bun.serve: subscriptions and chat calls. The context is made
 * at the upgrade, from the cookies and address of the upgrade request.
 */
export function createWebSocket(services: Services) {
  const handler = createTrpcWebSocketHandler({
    router: appRouter,
    onError: (error) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error("chat socket error", error);
    },
  });
  const websocket: WebSocketHandler<SocketData> = {
    ...handler,
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
  async function upgrade(
    request: Request,
    server: Server<SocketData>,
    ownOrigin: string,
  ): Promise<Response | undefined> {
    if (!originAllowed(request, ownOrigin)) return new Response("Forbidden", { status: 403 });
    const visitor: Visitor = visitorOf(request);
    // Session cookies cannot be set over a socket; a refreshed session is simply not re-sent.
    const context = contextFor(services, request, server, visitor, []);
    const headers = new Headers();
    if (visitor.isNew) headers.append("Set-Cookie", visitorCookie(services, visitor));
    const data: SocketData = { context, subscriptions: new Map() };
    if (server.upgrade(request, { data, headers })) return undefined;
    return new Response("Upgrade failed", { status: 400 });
  }

  return { websocket, upgrade };
}
