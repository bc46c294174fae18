import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import type { AnyRouter, inferRouterContext, TRPCError } from "@trpc/server";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import type { ServerWebSocket, WebSocketHandler } from "bun";

/**
 * tRPC over WebSocket on Bun.serve through tRPC's own WebSocket adapter (`applyWSSHandler`, the
 * documented API of `@trpc/server/adapters/ws`): the protocol, subscriptions, tracked event ids,
 * transformers and error shapes are all tRPC's. That adapter is written for the `ws` package's
 * server and sockets and Node's request; Bun.serve has none of them, so this file is only a
 * bridge: a server and sockets with the events and methods tRPC uses (`connection`; `message`,
 * `error`, `close`; send, close, terminate, readyState), fed by Bun's handlers.
 * The community `trpc-bun-adapter` was evaluated and not taken: it reads the router's private config,
 * imports types from tRPC's source folders and answers any failure in a frame as PARSE_ERROR.
 */

/** What each Bun socket carries: what its context is made from, and its bridge. */
export interface SocketData<TUpgrade> {
  upgrade: TUpgrade;
  bridge?: SocketBridge<TUpgrade>;
}

type BunSocket<TUpgrade> = ServerWebSocket<SocketData<TUpgrade>>;

/** Frames wait here until the end of the event loop's turn, then leave together under cork. */
const outbox = new Map<BunSocket<unknown>, string[]>();
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  for (const [socket, frames] of outbox) {
    if (socket.readyState !== WebSocket.OPEN) continue;
    if (frames.length === 1) socket.send(frames[0] as string);
    else
      socket.cork(() => {
        for (const frame of frames) socket.send(frame);
      });
  }
  outbox.clear();
}

/**
 * A Bun socket as tRPC sees one (a `ws` WebSocket). A chat message makes several frames for the
 * same socket within one turn (the answer, the sender's copy); written together under Bun's
 * cork they leave in one write instead of one each.
 */
export class SocketBridge<TUpgrade> extends EventEmitter {
  readonly OPEN = WebSocket.OPEN;

  constructor(readonly socket: BunSocket<TUpgrade>) {
    super();
  }

  get readyState(): number {
    return this.socket.readyState;
  }

  send(frame: string): void {
    const key = this.socket as BunSocket<unknown>;
    const frames = outbox.get(key);
    if (frames) frames.push(frame);
    else outbox.set(key, [frame]);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  terminate(): void {
    this.socket.terminate();
  }
}

interface Options<TRouter extends AnyRouter, TUpgrade> {
  router: TRouter;
  /** The context of one socket, made once when it opens, from what its upgrade carried. */
  createContext(upgrade: TUpgrade): Promise<inferRouterContext<TRouter>>;
  onError?: (error: TRPCError) => void;
}

/** Bun.serve's `websocket` handlers speaking tRPC, and a way to ask every client to reconnect. */
export function createTrpcWebSocketHandler<TRouter extends AnyRouter, TUpgrade>(
  options: Options<TRouter, TUpgrade>,
): {
  websocket: WebSocketHandler<SocketData<TUpgrade>>;
  broadcastReconnectNotification(): void;
  /** Closes every open socket with this close code and reason. */
  closeAll(code: number, reason: string): void;
} {
  /** In the place of `ws`'s server: tRPC listens for `connection` and reads `clients`. */
  const server = Object.assign(new EventEmitter(), { clients: new Set<SocketBridge<TUpgrade>>() });
  const { broadcastReconnectNotification } = applyWSSHandler<TRouter>({
    // `ws` is not installed, so tRPC's types for its server and sockets are open here.
    wss: server,
    router: options.router,
    // tRPC hands back the socket it was given: the bridge, with the upgrade's data.
    createContext: ({ res }) =>
      options.createContext((res as SocketBridge<TUpgrade>).socket.data.upgrade),
    onError: ({ error }) => options.onError?.(error),
  });
  // tRPC reads the request's path (for connectionParams) and host, and passes it on to
  // createContext and onError, which read nothing of it here.
  const request = { url: "/trpc", headers: { host: "localhost" } } as unknown as IncomingMessage;

  const websocket: WebSocketHandler<SocketData<TUpgrade>> = {
    open(socket) {
      const bridge = new SocketBridge(socket);
      socket.data.bridge = bridge;
      server.clients.add(bridge);
      server.emit("connection", bridge, request);
    },
    message(socket, message) {
      const binary = typeof message !== "string";
      socket.data.bridge?.emit("message", binary ? message : Buffer.from(message), binary);
    },
    close(socket) {
      const bridge = socket.data.bridge;
      outbox.delete(socket as BunSocket<unknown>);
      if (!bridge) return;
      server.clients.delete(bridge);
      bridge.emit("close");
      bridge.removeAllListeners();
    },
  };
  const closeAll = (code: number, reason: string) => {
    flush();
    for (const bridge of server.clients) bridge.close(code, reason);
  };
  return { websocket, broadcastReconnectNotification, closeAll };
}
