import {
  type AnyRouter,
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
import { LiveStream } from "./live-stream.ts";
import { createProcedureCaller } from "./procedure-call.ts";

/** What each socket carries: its context (made at the upgrade) and its running subscriptions. */
export interface SocketState<TContext> {
  context: Promise<TContext>;
  /** The context once made, so calls after the first need not wait for it. */
  made?: { context: TContext };
  subscriptions: Map<string | number, AbortController>;
}

interface Options<TRouter extends AnyRouter> {
  router: TRouter;
  onError?: (error: TRPCError) => void;
}

/**
 * A data frame, `JSON.stringify({ id, jsonrpc, result: { type: "data", data } })` or, for a
 * tracked event, `{ ..., result: { type: "data", id: eventId, data: { id: eventId, data } } }`,
 * character for character, built around one stringify of the data instead of four objects'.
 */
export function dataFrame(
  id: string | number,
  jsonrpc: "2.0" | undefined,
  data: unknown,
  eventId?: string,
): string {
  return dataFrameAfter(frameHead(id, jsonrpc), data, eventId);
}

/** The start of every data frame answering `id` (a stream's frames all share it). */
export function frameHead(id: string | number, jsonrpc: "2.0" | undefined): string {
  return jsonrpc === undefined
    ? `{"id":${JSON.stringify(id)},"result":{"type":"data"`
    : `{"id":${JSON.stringify(id)},"jsonrpc":${JSON.stringify(jsonrpc)},"result":{"type":"data"`;
}

/** A data frame after its head (see dataFrame). */
export function dataFrameAfter(head: string, data: unknown, eventId?: string): string {
  const json: string | undefined = JSON.stringify(data);
  const inner = json === undefined ? "" : `,"data":${json}`;
  if (eventId === undefined) return `${head}${inner}}}`;
  const event = JSON.stringify(eventId);
  return `${head},"id":${event},"data":{"id":${event}${inner}}}}`;
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
  const callProcedure = createProcedureCaller(router);

  /**
   * Frames waiting to be written, by socket. A chat message makes several frames for the same
   * socket within one turn of the event loop (the answer to the call, the sender's copy of the
   * message); written together under cork, they leave in one write instead of one each, and a
   * write on a socket costs more than everything else a frame needs (scripts/bench).
   */
  const outbox = new Map<Socket, string[]>();
  let flushScheduled = false;
  // What the cork callback writes: one function for every socket, not a closure each.
  let corkedSocket: Socket | undefined;
  let corkedFrames: string[] = [];
  const writeCorked = () => {
    for (const frame of corkedFrames) corkedSocket?.send(frame);
  };
  const flush = () => {
    flushScheduled = false;
    // Whether a socket is still open is asked here, once per socket, not for every frame.
    for (const [socket, frames] of outbox) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      if (frames.length === 1) {
        socket.send(frames[0] as string);
      } else {
        corkedSocket = socket;
        corkedFrames = frames;
        socket.cork(writeCorked);
      }
    }
    corkedSocket = undefined;
    corkedFrames = [];
    outbox.clear();
  };
  const write = (socket: Socket, frame: string) => {
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
   * A data result, serialized as transformTRPCResponse would (the same keys in the same order),
   * without building its wrapping objects: this runs for every chat event. A transformer other
   * than plain JSON gets the object form.
   */
  const serialize = router._def._config.transformer.output.serialize;
  const probe = {};
  const plainJson = serialize(probe) === probe;
  const respondData = (
    socket: Socket,
    id: string | number,
    jsonrpc: "2.0" | undefined,
    data: unknown,
    eventId?: string,
  ) => {
    if (plainJson) {
      write(socket, dataFrame(id, jsonrpc, data, eventId));
      return;
    }
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

  /** One call; it throws only what is answered with a null id (no usable call). */
  function handle(socket: Socket, message: TRPCClientOutgoingMessage): void {
    const { id } = message;
    if (id === null || id === undefined)
      throw new TRPCError({ code: "BAD_REQUEST", message: "`id` is required" });
    if (message.method === "subscription.stop") {
      socket.data.subscriptions.get(id)?.abort();
      socket.data.subscriptions.delete(id);
      return;
    }
    const made = socket.data.made;
    if (!made) {
      // The first call on a socket waits for its context; later ones find it made.
      contextOf(socket).then(
        () => handleSafely(socket, message),
        (cause) => respondError(socket, null, cause),
      );
      return;
    }
    const ctx = made.context;
    const { path, lastEventId } = message.params;
    const type = message.method;
    let input = message.params.input;
    // A resumed subscription names the last event it saw; the procedure reads it from its input.
    if (lastEventId !== undefined) {
      input = input && typeof input === "object" ? { ...input, lastEventId } : { lastEventId };
    }
    if (socket.data.subscriptions.has(id)) {
      const duplicate = new TRPCError({ code: "BAD_REQUEST", message: `Duplicate id ${id}` });
      respondError(socket, id, duplicate, { path, type, input, ctx });
      return;
    }
    // Only a subscription can be stopped; calls get no signal, as none was ever aborted.
    const abort = type === "subscription" ? new AbortController() : undefined;
    const call = { path, type, ctx, input, signal: abort?.signal };
    // A synchronous call (chat.send is one) is answered before this returns: no promise step.
    callProcedure.settle(
      call,
      (result) => {
        try {
          if (!abort) {
            respondData(socket, id, message.jsonrpc, result);
            return;
          }
          // The socket closed while the call ran: nobody is left to stream to.
          if (socket.readyState !== WebSocket.OPEN) return;
          if (result instanceof LiveStream) {
            streamLive(socket, id, message.jsonrpc, result, abort, call);
            return;
          }
          if (!result || typeof result !== "object" || !(Symbol.asyncIterator in result)) {
            throw new TRPCError({
              code: "INTERNAL_SERVER_ERROR",
              message: `${path} is not a stream`,
            });
          }
          streamIterable(
            socket,
            id,
            message.jsonrpc,
            result as AsyncIterable<unknown>,
            abort,
            call,
          );
        } catch (cause) {
          respondError(socket, id, cause, call);
        }
      },
      (cause) => respondError(socket, id, cause, call),
    );
  }

  /** One message of a frame; whatever goes wrong is answered, never thrown. */
  function handleRaw(socket: Socket, raw: unknown): void {
    let message: TRPCClientOutgoingMessage;
    try {
      message = parseTRPCMessage(raw, router._def._config.transformer);
    } catch (cause) {
      respondError(socket, null, cause);
      return;
    }
    handleSafely(socket, message);
  }

  function handleSafely(socket: Socket, message: TRPCClientOutgoingMessage): void {
    try {
      handle(socket, message);
    } catch (cause) {
      respondError(socket, null, cause);
    }
  }

  async function contextOf(socket: Socket): Promise<inferRouterContext<TRouter>> {
    const context = await socket.data.context;
    socket.data.made = { context };
    return context;
  }

  type Call = Parameters<typeof respondError>[3];

  /** A data frame for each value, tracked ones with their event id. */
  function respondValue(
    socket: Socket,
    id: string | number,
    jsonrpc: "2.0" | undefined,
    value: unknown,
  ) {
    if (isTrackedEnvelope(value)) respondData(socket, id, jsonrpc, value[1], value[0]);
    else respondData(socket, id, jsonrpc, value);
  }

  /**
   * A pushed stream: each value is written as it is emitted, inside the emitter's call (for a
   * chat message, inside the sender's call), so it takes no promise, timer or generator step.
   */
  function streamLive(
    socket: Socket,
    id: string | number,
    jsonrpc: "2.0" | undefined,
    stream: LiveStream<unknown>,
    abort: AbortController,
    call: Call,
  ) {
    const { subscriptions } = socket.data;
    subscriptions.set(id, abort);
    respond(socket, { id, jsonrpc, result: { type: "started" } });
    let stop: (() => void) | undefined;
    let ended = false;
    const end = () => {
      ended = true;
      stop?.();
      if (subscriptions.get(id) === abort) subscriptions.delete(id);
    };
    // Every frame of this stream starts the same way.
    const head = plainJson ? frameHead(id, jsonrpc) : undefined;
    try {
      stop = stream.subscribe((value) => {
        if (ended) return;
        try {
          if (head !== undefined && isTrackedEnvelope(value)) {
            write(socket, dataFrameAfter(head, value[1], value[0]));
          } else {
            respondValue(socket, id, jsonrpc, value);
          }
        } catch (cause) {
          // The emitter (another visitor's call, say) is not the one to hear about it.
          end();
          respondError(socket, id, cause, call);
        }
      });
    } catch (cause) {
      end();
      respondError(socket, id, cause, call);
      return;
    }
    if (ended) {
      stop();
      return;
    }
    abort.signal.addEventListener(
      "abort",
      () => {
        if (ended) return;
        end();
        respond(socket, { id, jsonrpc, result: { type: "stopped" } });
      },
      { once: true },
    );
  }

  /** Any other async iterable, pulled one value at a time until it ends or is stopped. */
  function streamIterable(
    socket: Socket,
    id: string | number,
    jsonrpc: "2.0" | undefined,
    iterable: AsyncIterable<unknown>,
    abort: AbortController,
    call: Call,
  ) {
    const iterator = iterable[Symbol.asyncIterator]();
    socket.data.subscriptions.set(id, abort);
    respond(socket, { id, jsonrpc, result: { type: "started" } });
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
          respondValue(socket, id, jsonrpc, next.value);
        }
        respond(socket, { id, jsonrpc, result: { type: "stopped" } });
      } catch (cause) {
        respondError(socket, id, cause, call);
      } finally {
        if (socket.data.subscriptions.get(id) === abort) socket.data.subscriptions.delete(id);
        await iterator.return?.();
      }
    })();
  }

  return {
    open(socket) {
      socket.data.subscriptions = new Map();
    },
    close(socket) {
      for (const abort of socket.data.subscriptions.values()) abort.abort();
      socket.data.subscriptions.clear();
    },
    message(socket, raw) {
      const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw);
      // wsLink's keep-alive.
      if (text === "PING") {
        socket.send("PONG");
        return;
      }
      if (text === "PONG") return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        respondError(socket, null, new TRPCError({ code: "PARSE_ERROR", cause }));
        return;
      }
      if (Array.isArray(parsed)) for (const one of parsed) handleRaw(socket, one);
      else handleRaw(socket, parsed);
    },
  };
}
