import {
  type AnyRouter,
  callTRPCProcedure,
  getErrorShape,
  getTRPCErrorFromUnknown,
  type inferRouterContext,
  isTrackedEnvelope,
  TRPCError,
  transformTRPCResponse,
} from "@trpc/server";
import {
  parseTRPCMessage,
  type TRPCClientOutgoingMessage,
  type TRPCResponseMessage,
} from "@trpc/server/rpc";
import type { ServerWebSocket, WebSocketHandler } from "bun";

/** What each socket carries: its context (made at the upgrade) and its running subscriptions. */
export interface SocketState<TContext> {
  context: Promise<TContext>;
  subscriptions: Map<string | number, AbortController>;
}

interface Options<TRouter extends AnyRouter> {
  router: TRouter;
  onError?: (error: TRPCError) => void;
}

/**
 * tRPC's WebSocket protocol on Bun.serve: queries, mutations and subscriptions, with tracked
 * event ids (so a client that reconnects resumes where it stopped). Our own glue, small enough
 * to read: the ws package's adapter does not run on Bun.serve, and the community adapter loads
 * a second copy of @trpc/server, whose tracked() envelopes it then fails to recognise.
 */
export function createTrpcWebSocketHandler<TRouter extends AnyRouter>(
  options: Options<TRouter>,
): WebSocketHandler<SocketState<inferRouterContext<TRouter>>> {
  const { router } = options;
  type Socket = ServerWebSocket<SocketState<inferRouterContext<TRouter>>>;

  const respond = (socket: Socket, message: TRPCResponseMessage) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify(transformTRPCResponse(router._def._config, message)));
  };

  const respondError = (
    socket: Socket,
    id: string | number | null,
    cause: unknown,
    call: {
      path?: string;
      type?: "query" | "mutation" | "subscription";
      input?: unknown;
      ctx?: unknown;
    } = {},
  ) => {
    const error = getTRPCErrorFromUnknown(cause);
    options.onError?.(error);
    respond(socket, {
      id,
      error: getErrorShape({
        config: router._def._config,
        error,
        type: call.type ?? "unknown",
        path: call.path,
        input: call.input,
        ctx: call.ctx as inferRouterContext<TRouter> | undefined,
      }),
    });
  };

  async function handle(socket: Socket, message: TRPCClientOutgoingMessage): Promise<void> {
    const { id } = message;
    if (id === null || id === undefined)
      throw new TRPCError({ code: "BAD_REQUEST", message: "`id` is required" });
    if (message.method === "subscription.stop") {
      socket.data.subscriptions.get(id)?.abort();
      socket.data.subscriptions.delete(id);
      return;
    }
    const { path, lastEventId } = message.params;
    const type = message.method;
    let input = message.params.input;
    // A resumed subscription names the last event it saw; the procedure reads it from its input.
    if (lastEventId !== undefined) {
      input = input && typeof input === "object" ? { ...input, lastEventId } : { lastEventId };
    }
    const ctx = await socket.data.context;
    try {
      if (socket.data.subscriptions.has(id)) {
        throw new TRPCError({ code: "BAD_REQUEST", message: `Duplicate id ${id}` });
      }
      const abort = new AbortController();
      const result: unknown = await callTRPCProcedure({
        router,
        path,
        getRawInput: async () => input,
        ctx,
        type,
        signal: abort.signal,
        batchIndex: 0,
      });
      if (type !== "subscription") {
        respond(socket, { id, jsonrpc: message.jsonrpc, result: { type: "data", data: result } });
        return;
      }
      if (!result || typeof result !== "object" || !(Symbol.asyncIterator in result)) {
        throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: `${path} is not a stream` });
      }
      const iterator = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      socket.data.subscriptions.set(id, abort);
      respond(socket, { id, jsonrpc: message.jsonrpc, result: { type: "started" } });
      void (async () => {
        const aborted = new Promise<"aborted">((resolve) => {
          abort.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
        });
        try {
          while (true) {
            const next = await Promise.race([iterator.next(), aborted]);
            if (next === "aborted" || next.done) break;
            const value = next.value;
            if (isTrackedEnvelope(value)) {
              const [eventId, data] = value;
              respond(socket, {
                id,
                jsonrpc: message.jsonrpc,
                result: { type: "data", id: eventId, data: { id: eventId, data } },
              });
            } else {
              respond(socket, {
                id,
                jsonrpc: message.jsonrpc,
                result: { type: "data", data: value },
              });
            }
          }
          respond(socket, { id, jsonrpc: message.jsonrpc, result: { type: "stopped" } });
        } catch (cause) {
          respondError(socket, id, cause, { path, type, input, ctx });
        } finally {
          socket.data.subscriptions.delete(id);
          await iterator.return?.();
        }
      })();
    } catch (cause) {
      respondError(socket, id, cause, { path, type, input, ctx });
    }
  }

  return {
    open(socket) {
      socket.data.subscriptions = new Map();
    },
    close(socket) {
      for (const abort of socket.data.subscriptions.values()) abort.abort();
      socket.data.subscriptions.clear();
    },
    async message(socket, raw) {
      const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw);
      // wsLink's keep-alive.
      if (text === "PING") {
        socket.send("PONG");
        return;
      }
      if (text === "PONG") return;
      let messages: unknown[];
      try {
        const parsed: unknown = JSON.parse(text);
        messages = Array.isArray(parsed) ? parsed : [parsed];
      } catch (cause) {
        respondError(socket, null, new TRPCError({ code: "PARSE_ERROR", cause }));
        return;
      }
      await Promise.all(
        messages.map(async (raw) => {
          try {
            await handle(socket, parseTRPCMessage(raw, router._def._config.transformer));
          } catch (cause) {
            respondError(socket, null, cause);
          }
        }),
      );
    },
  };
}
