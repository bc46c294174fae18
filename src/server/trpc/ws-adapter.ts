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

  /**
   * Frames waiting to be written, by socket. A chat message makes several frames for the same
   * socket within one turn of the event loop (the answer to the call, the sender's copy of the
   * message); written together under cork, they leave in one write instead of one each, and a
   * write on a socket costs more than everything else a frame needs (scripts/bench).
   */
  const outbox = new Map<Socket, string[]>();
  let flushScheduled = false;
  const flush = () => {
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
  };
  const write = (socket: Socket, frame: string) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    const frames = outbox.get(socket);
    if (frames) frames.push(frame);
    else outbox.set(socket, [frame]);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  const respond = (socket: Socket, message: TRPCResponseMessage) => {
    write(socket, JSON.stringify(transformTRPCResponse(router._def._config, message)));
  };

  /**
   * A data result, serialized as transformTRPCResponse would (the same keys in the same order)
   * without its copies of the message: this runs for every chat event.
   */
  const serialize = router._def._config.transformer.output.serialize;
  const respondData = (
    socket: Socket,
    id: string | number,
    jsonrpc: "2.0" | undefined,
    data: unknown,
    eventId?: string,
  ) => {
    const result =
      eventId === undefined
        ? { type: "data", data: serialize(data) }
        : { type: "data", id: eventId, data: serialize({ id: eventId, data }) };
    write(socket, JSON.stringify({ id, jsonrpc, result }));
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
        respondData(socket, id, message.jsonrpc, result);
        return;
      }
      if (!result || typeof result !== "object" || !(Symbol.asyncIterator in result)) {
        throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: `${path} is not a stream` });
      }
      const iterator = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      socket.data.subscriptions.set(id, abort);
      respond(socket, { id, jsonrpc: message.jsonrpc, result: { type: "started" } });
      void (async () => {
        // Each wait for the next event also ends on abort. One listener serves every wait;
        // racing each wait against one long-lived promise would add a reaction to it per event.
        let stopWaiting: ((value: "aborted") => void) | undefined;
        abort.signal.addEventListener("abort", () => stopWaiting?.("aborted"), { once: true });
        const nextOrAbort = () =>
          new Promise<IteratorResult<unknown> | "aborted">((resolve, reject) => {
            if (abort.signal.aborted) return resolve("aborted");
            stopWaiting = resolve;
            iterator.next().then(resolve, reject);
          });
        try {
          while (true) {
            const next = await nextOrAbort();
            if (next === "aborted" || next.done) break;
            const value = next.value;
            if (isTrackedEnvelope(value)) {
              const [eventId, data] = value;
              respondData(socket, id, message.jsonrpc, data, eventId);
            } else {
              respondData(socket, id, message.jsonrpc, value);
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
