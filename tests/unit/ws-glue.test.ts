import { describe, expect, test } from "bun:test";
import { callTRPCProcedure, type ProcedureType, TRPCError } from "@trpc/server";
import { z } from "zod";
import { RateLimitedError } from "../../src/core/errors.ts";
import type { Context } from "../../src/server/trpc/context.ts";
import {
  protectedProcedure,
  publicProcedure,
  router,
  syncInput,
} from "../../src/server/trpc/init.ts";
import { LiveStream } from "../../src/server/trpc/live-stream.ts";
import { createProcedureCaller } from "../../src/server/trpc/procedure-call.ts";
import { appRouter } from "../../src/server/trpc/routers/index.ts";
import { createTrpcWebSocketHandler, dataFrame } from "../../src/server/trpc/ws-adapter.ts";

describe("data frames", () => {
  const values: unknown[] = [
    undefined,
    null,
    0,
    -1.5,
    true,
    "",
    'quotes " and \\ backslashes',
    "línea\nnueva\t和 emoji 🌊 \u2028 \u0007",
    { a: 1, b: undefined, c: [1, undefined, { d: "e" }] },
    [],
    new Date(0),
    { toJSON: () => "custom" },
  ];
  test("each is what JSON.stringify makes of the whole response, character for character", () => {
    for (const id of [1, 0, "abc", 'we"ird']) {
      for (const jsonrpc of [undefined, "2.0"] as const) {
        for (const eventId of [undefined, "e1.0:7"]) {
          for (const data of values) {
            const result =
              eventId === undefined
                ? { type: "data", data }
                : { type: "data", id: eventId, data: { id: eventId, data } };
            expect(dataFrame(id, jsonrpc, data, eventId)).toBe(
              JSON.stringify({ id, jsonrpc, result }),
            );
          }
        }
      }
    }
  });
});

// A router built like the app's (same init, middleware and error formatter).
const ctxWith = (extra: object = {}) => ({ user: null, session: null, ...extra }) as never;
const testRouter = router({
  plain: publicProcedure.query(() => ({ ok: 1 })),
  nothing: publicProcedure.mutation(() => undefined),
  echo: publicProcedure
    .input(z.object({ text: z.string().max(5) }))
    .mutation(({ input }) => input.text),
  echoSync: publicProcedure
    .input(syncInput(z.object({ text: z.string().max(5) })))
    .mutation(({ input }) => input.text),
  limited: publicProcedure.mutation(() => {
    throw new RateLimitedError(3);
  }),
  broken: publicProcedure.query(() => {
    throw new Error("internal detail");
  }),
  mine: protectedProcedure.query(({ ctx }) => ctx.user.username),
  twoInputs: publicProcedure
    .input(z.object({ a: z.number() }))
    .input(z.object({ b: z.number() }))
    .query(({ input }) => input.a + input.b),
  withCtx: publicProcedure
    .use(({ next }) => next({ ctx: { extra: "added" } }))
    .query(({ ctx }) => `${(ctx as { extra: string }).extra}`),
  swappedRaw: publicProcedure
    .use(({ next }) => next({ getRawInput: async () => ({ text: "swap" }) }))
    .input(syncInput(z.object({ text: z.string().max(5) })))
    .query(({ input }) => input.text),
  checkedOutput: publicProcedure
    .input(z.number())
    .output(z.string())
    .query(({ input }) => (input > 0 ? "positive" : (input as unknown as string))),
  asyncResolver: publicProcedure
    .input(syncInput(z.object({ n: z.number() })))
    .query(async ({ input }) => {
      await Bun.sleep(1);
      return input.n + 1;
    }),
  asyncThrow: publicProcedure.mutation(async () => {
    await Bun.sleep(1);
    throw new TRPCError({ code: "CONFLICT", message: "taken" });
  }),
});

/** What a call came to: its data, or its error's code, message and kind of cause. */
async function outcome(promise: () => Promise<unknown>) {
  try {
    return { data: await promise() };
  } catch (error) {
    return outcomeOfError(error);
  }
}
function outcomeOfError(error: unknown) {
  const e = error as TRPCError;
  return { code: e.code, message: e.message, cause: e.cause?.constructor.name };
}

describe("calling procedures without tRPC's option copies", () => {
  const ours = createProcedureCaller(testRouter);
  const cases: Array<[string, ProcedureType, unknown, object?]> = [
    ["plain", "query", undefined],
    ["nothing", "mutation", undefined],
    ["echo", "mutation", { text: "hi" }],
    ["echo", "mutation", { text: "far too long" }],
    ["echo", "mutation", "not an object"],
    ["echoSync", "mutation", { text: "hi" }],
    ["echoSync", "mutation", { text: "far too long" }],
    ["limited", "mutation", undefined],
    ["broken", "query", undefined],
    ["mine", "query", undefined],
    ["mine", "query", undefined, { user: { id: 1, username: "kai" }, session: {} }],
    ["twoInputs", "query", { a: 1, b: 2 }],
    ["twoInputs", "query", { a: 1 }],
    ["withCtx", "query", undefined],
    ["asyncThrow", "mutation", undefined],
    ["swappedRaw", "query", { text: "far too long" }],
    ["checkedOutput", "query", 2],
    ["checkedOutput", "query", -2],
    ["checkedOutput", "query", "two"],
    ["asyncResolver", "query", { n: 1 }],
    ["asyncResolver", "query", { n: "1" }],
    ["plain", "mutation", undefined],
    ["no.such.path", "query", undefined],
  ];
  for (const [path, type, input, extra] of cases) {
    test(`${type} ${path} ${JSON.stringify(input) ?? ""} ${extra ? "signed in" : ""}`, async () => {
      const ctx = ctxWith(extra);
      const theirs = await outcome(() =>
        callTRPCProcedure({
          router: testRouter,
          path,
          type,
          ctx,
          getRawInput: async () => input,
          signal: undefined,
          batchIndex: 0,
        }),
      );
      const mine = await outcome(() => ours({ path, type, ctx, input, signal: undefined }));
      expect(mine).toEqual(theirs);
    });
  }

  test("the app's procedures, and these, all take the direct way", () => {
    for (const path of Object.keys(appRouter._def.procedures)) {
      expect(createProcedureCaller(appRouter).isDirect(path)).toBe(true);
    }
    expect(ours.isDirect("echo")).toBe(true);
    expect(ours.isDirect("no.such.path")).toBe(false);
  });

  test("synchronous parsing and resolving happen within the call, with no promise step", async () => {
    let resolved = 0;
    const sync = router({
      bump: publicProcedure.input(syncInput(z.object({ by: z.number() }))).mutation(({ input }) => {
        resolved += input.by;
        return resolved;
      }),
    });
    const answer = createProcedureCaller(sync)({
      path: "bump",
      type: "mutation",
      ctx: ctxWith(),
      input: { by: 2 },
      signal: undefined,
    });
    expect(resolved).toBe(2);
    expect(await answer).toBe(2);

    // settle hands over the answer, or the error, before returning: no promise step at all.
    const seen: unknown[] = [];
    const caller = createProcedureCaller(sync);
    const call = (input: unknown) => ({
      path: "bump",
      type: "mutation" as const,
      ctx: ctxWith(),
      input,
      signal: undefined,
    });
    caller.settle(
      call({ by: 3 }),
      (data) => seen.push(data),
      (error) => seen.push(error),
    );
    expect(seen).toEqual([5]);
    caller.settle(
      call({ by: "x" }),
      (data) => seen.push(data),
      (error) => seen.push(error),
    );
    expect(seen).toHaveLength(2);
    expect((seen[1] as TRPCError).code).toBe("BAD_REQUEST");
  });

  test("settle waits for what is asynchronous, and answers as callProcedure does", async () => {
    const caller = createProcedureCaller(testRouter);
    for (const [path, type, input] of [
      ["asyncResolver", "query", { n: 1 }],
      ["asyncThrow", "mutation", undefined],
      ["echo", "mutation", { text: "far too long" }],
      ["limited", "mutation", undefined],
      ["no.such.path", "query", undefined],
    ] as const) {
      const call = { path, type, ctx: ctxWith(), input, signal: undefined };
      const settled = await new Promise((resolve) =>
        caller.settle(
          call,
          (data) => resolve({ data }),
          (error) => resolve(outcomeOfError(error)),
        ),
      );
      expect(settled).toEqual(await outcome(() => caller(call)));
    }
  });

  test("domain errors keep their code and retry time", async () => {
    const mine = await ours({
      path: "limited",
      type: "mutation",
      ctx: ctxWith(),
      input: undefined,
      signal: undefined,
    }).catch((error: TRPCError) => error);
    expect(mine).toBeInstanceOf(TRPCError);
    expect((mine as TRPCError).code).toBe("TOO_MANY_REQUESTS");
    expect(((mine as TRPCError).cause as RateLimitedError).retryAfterSeconds).toBe(3);
  });
});

describe("live streams iterated (as tRPC's own adapters do)", () => {
  function source() {
    const state = { started: 0, stopped: 0, emit: (_value: number) => {} };
    const stream = (signal?: AbortSignal) =>
      new LiveStream<number>((emit) => {
        state.started += 1;
        state.emit = emit;
        emit(0);
        return () => {
          state.stopped += 1;
        };
      }, signal);
    return { state, stream };
  }

  test("nothing starts before the first next; values come in order; return stops it", async () => {
    const { state, stream } = source();
    const iterator = stream()[Symbol.asyncIterator]();
    expect(state.started).toBe(0);
    expect(await iterator.next()).toEqual({ done: false, value: 0 });
    state.emit(1);
    state.emit(2);
    expect(await iterator.next()).toEqual({ done: false, value: 1 });
    expect(await iterator.next()).toEqual({ done: false, value: 2 });
    const waiting = iterator.next();
    state.emit(3);
    expect(await waiting).toEqual({ done: false, value: 3 });
    await iterator.return?.();
    expect(state.stopped).toBe(1);
    state.emit(4);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(state.started).toBe(1);
  });

  test("the procedure's signal ends a waiting iteration and stops the source", async () => {
    const { state, stream } = source();
    const abort = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const value of stream(abort.signal)) seen.push(value);
    })();
    await Bun.sleep(5);
    state.emit(1);
    await Bun.sleep(5);
    abort.abort();
    await reading;
    expect(seen).toEqual([0, 1]);
    expect(state.stopped).toBe(1);
  });

  test("a source that fails to start fails the first next", async () => {
    const stream = new LiveStream<number>(() => {
      throw new Error("refused");
    });
    const iterator = stream[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow("refused");
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});

describe("the WebSocket glue", () => {
  /** Counts iterations: the glue should subscribe to a live stream, never iterate it. */
  class CountedStream<T> extends LiveStream<T> {
    static iterated = 0;
    override [Symbol.asyncIterator]() {
      CountedStream.iterated += 1;
      return super[Symbol.asyncIterator]();
    }
  }
  const live = {
    started: 0,
    stopped: 0,
    emit: (_value: unknown) => {},
    refuse: false,
  };
  const wsRouter = router({
    live: publicProcedure.subscription(
      () =>
        new CountedStream<unknown>((emit) => {
          if (live.refuse) throw new RateLimitedError(9);
          live.started += 1;
          live.emit = emit;
          emit("hello");
          return () => {
            live.stopped += 1;
          };
        }),
    ),
    pulled: publicProcedure.subscription(async function* () {
      yield 1;
      yield 2;
    }),
    send: publicProcedure
      .input(syncInput(z.object({ text: z.string().min(1) })))
      .mutation(({ input }) => {
        live.emit({ echoed: input.text });
        return { sent: input.text };
      }),
  });
  const handler = createTrpcWebSocketHandler({ router: wsRouter });

  function socket(context: Promise<Context> = Promise.resolve({} as Context)) {
    const frames: string[] = [];
    const writes: string[][] = [];
    const s = {
      data: {
        context,
        subscriptions: new Map<string | number, AbortController>(),
      },
      readyState: 1,
      send(frame: string) {
        frames.push(frame);
        writes.push([frame]);
        return frame.length;
      },
      cork(write: () => void) {
        const before = frames.length;
        write();
        writes.splice(writes.length - (frames.length - before), frames.length - before);
        writes.push(frames.slice(before));
      },
    };
    // biome-ignore lint/suspicious/noExplicitAny: a stand-in for Bun's ServerWebSocket.
    const asSocket = s as any;
    handler.open?.(asSocket);
    return {
      s,
      frames,
      writes,
      send: (message: unknown) => handler.message?.(asSocket, JSON.stringify(message)),
      close: () => handler.close?.(asSocket, 1000, ""),
      parsed: () => frames.map((f) => JSON.parse(f)),
    };
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const settle = async () => {
    await Bun.sleep(1);
    await turn();
  };

  test("a pushed stream: started, then a frame per value in the emitter's turn, then stopped", async () => {
    live.refuse = false;
    const client = socket();
    client.send({ id: 1, method: "subscription", params: { path: "live", input: null } });
    await settle();
    expect(client.parsed()).toEqual([
      { id: 1, result: { type: "started" } },
      { id: 1, result: { type: "data", data: "hello" } },
    ]);
    // The mutation's answer and the value it emits leave in one corked write.
    client.send({ id: 2, method: "mutation", params: { path: "send", input: { text: "hi" } } });
    await settle();
    expect(client.parsed().slice(2)).toEqual([
      { id: 1, result: { type: "data", data: { echoed: "hi" } } },
      { id: 2, result: { type: "data", data: { sent: "hi" } } },
    ]);
    expect(client.writes.at(-1)).toHaveLength(2);
    client.send({ id: 1, method: "subscription.stop" });
    await settle();
    expect(client.parsed().at(-1)).toEqual({ id: 1, result: { type: "stopped" } });
    expect(live.stopped).toBe(live.started);
    expect(client.s.data.subscriptions.size).toBe(0);
    expect(CountedStream.iterated).toBe(0);
  });

  test("closing the socket stops its pushed streams", async () => {
    live.refuse = false;
    const client = socket();
    client.send({ id: 7, method: "subscription", params: { path: "live", input: null } });
    await settle();
    const stoppedBefore = live.stopped;
    client.s.readyState = 3;
    client.close();
    expect(live.stopped).toBe(stoppedBefore + 1);
  });

  test("a stream refused at its start answers with the error after started", async () => {
    live.refuse = true;
    const client = socket();
    client.send({ id: 3, method: "subscription", params: { path: "live", input: null } });
    await settle();
    const [started, error] = client.parsed();
    expect(started).toEqual({ id: 3, result: { type: "started" } });
    expect(error.id).toBe(3);
    expect(error.error.data.appCode).toBe("RATE_LIMITED");
    expect(client.s.data.subscriptions.size).toBe(0);
    live.refuse = false;
  });

  test("an async generator is still streamed, then stopped", async () => {
    const client = socket();
    client.send({ id: 4, method: "subscription", params: { path: "pulled", input: null } });
    await Bun.sleep(10);
    await turn();
    expect(client.parsed()).toEqual([
      { id: 4, result: { type: "started" } },
      { id: 4, result: { type: "data", data: 1 } },
      { id: 4, result: { type: "data", data: 2 } },
      { id: 4, result: { type: "stopped" } },
    ]);
  });

  test("calls wait for the socket's context; one that cannot be made fails them", async () => {
    let make: (context: Context) => void = () => {};
    const waiting = socket(new Promise<Context>((resolve) => (make = resolve)));
    waiting.send({ id: 8, method: "mutation", params: { path: "send", input: { text: "a" } } });
    waiting.send({ id: 9, method: "mutation", params: { path: "send", input: { text: "b" } } });
    await settle();
    expect(waiting.frames).toEqual([]);
    make({} as Context);
    await settle();
    expect(waiting.parsed()).toEqual([
      { id: 8, result: { type: "data", data: { sent: "a" } } },
      { id: 9, result: { type: "data", data: { sent: "b" } } },
    ]);

    const failing = socket(Promise.reject(new Error("no session store")));
    failing.send({ id: 10, method: "mutation", params: { path: "send", input: { text: "c" } } });
    await settle();
    const [error] = failing.parsed();
    expect(error.id).toBeNull();
    expect(error.error.data.appCode).toBe("INTERNAL");
  });

  test("a batch of calls in one frame, and bad input, are answered one by one", async () => {
    const client = socket();
    client.send([
      { id: 5, method: "mutation", params: { path: "send", input: { text: "a" } } },
      { id: 6, method: "mutation", params: { path: "send", input: { text: "" } } },
    ]);
    await settle();
    const byId = new Map(client.parsed().map((f) => [f.id, f]));
    expect(byId.get(5)).toEqual({ id: 5, result: { type: "data", data: { sent: "a" } } });
    expect(byId.get(6).error.data.appCode).toBe("INVALID_INPUT");
  });
});
