import {
  type AnyRouter,
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  type ProcedureType,
  TRPCError,
} from "@trpc/server";
// The parser tRPC makes from an .input() schema, and its helpers, exactly as its middleware
// uses them (the module's name warns that it may change between versions; ours is pinned
// and the tests compare every kind of call with tRPC's own).
import {
  getParseFn,
  isObject,
  middlewareMarker,
  type Parser,
} from "@trpc/server/unstable-core-do-not-import";

/** One call of a procedure: what the WebSocket glue knows when a frame asks for one. */
export interface ProcedureCall {
  path: string;
  type: ProcedureType;
  ctx: unknown;
  input: unknown;
  signal: AbortSignal | undefined;
}

/** What a middleware answers (tRPC's MiddlewareResult, as far as calling needs). */
type Outcome =
  | { marker?: string; ok: true; data: unknown; ctx?: unknown }
  | { marker?: string; ok: false; error: TRPCError };

interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

interface MiddlewareOptions {
  ctx: unknown;
  type: ProcedureType;
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  meta: unknown;
  signal: AbortSignal | undefined;
  batchIndex: number;
  next(options?: NextOptions): Promise<Outcome>;
}

type Middleware = ((opts: MiddlewareOptions) => Promise<Outcome>) & {
  _type?: string;
  mapOutcome?: (outcome: Outcome) => Outcome;
};

/**
 * Says of a middleware that all it does is `next().then(map)`: our caller then maps the
 * outcome itself, at once when the rest of the call was synchronous. (tRPC's own callers
 * run the middleware as it is, so both must agree; the tests compare them.)
 */
export function mapsOutcome<B extends { _middlewares: unknown[] }>(
  builder: B,
  map: <R extends Outcome>(outcome: R) => R,
): B {
  const [middleware] = builder._middlewares;
  if (builder._middlewares.length === 1 && typeof middleware === "function") {
    Object.assign(middleware, { mapOutcome: map });
  }
  return builder;
}

/** The parts of a built procedure's `_def` that calling it reads (tRPC 11). */
interface ProcedureDef {
  type: ProcedureType;
  meta?: unknown;
  middlewares: Middleware[];
  /** The parsers given to .input(), in order: one input middleware each. */
  inputs?: unknown[];
  /** The function given to .query(), .mutation() or .subscription(); its middleware is last. */
  resolver?: (opts: Omit<MiddlewareOptions, "next">) => unknown;
  caller?: unknown;
}

/**
 * How each middleware of a procedure runs. tRPC's own two kinds, the input validator and the
 * resolver, are async functions, so each costs promise steps even when all they wrap is
 * synchronous; run here from what they are built from (the parser tRPC made from the
 * .input() schema, and the resolver), they finish at once when parsing and resolving do.
 * Any other middleware is called as it is.
 */
type Step =
  | { kind: "input"; middleware: Middleware; parse: (raw: unknown) => unknown }
  | { kind: "map"; map: (outcome: Outcome) => Outcome }
  | { kind: "resolve"; resolver: NonNullable<ProcedureDef["resolver"]> }
  | { kind: "middleware"; middleware: Middleware };

function stepsOf(def: ProcedureDef): Step[] {
  const { middlewares, inputs = [], resolver } = def;
  const inputMiddlewares = middlewares.filter((m) => m._type === "input").length;
  // Inputs and their middlewares are added in pairs; if that ever stops being so, the input
  // middlewares run as they are.
  const pairedInputs = inputMiddlewares === inputs.length;
  let k = 0;
  return middlewares.map((middleware, index): Step => {
    if (pairedInputs && middleware._type === "input") {
      return { kind: "input", middleware, parse: getParseFn(inputs[k++] as Parser) };
    }
    if (index === middlewares.length - 1 && typeof resolver === "function") {
      return { kind: "resolve", resolver };
    }
    if (typeof middleware.mapOutcome === "function") {
      return { kind: "map", map: middleware.mapOutcome };
    }
    return { kind: "middleware", middleware };
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** What the router holds at `path` in its flat map of every procedure, if anything. */
function procedureAt(router: AnyRouter, path: string): unknown {
  const procedures = router._def.procedures as Record<string, unknown>;
  return Object.hasOwn(procedures, path) ? procedures[path] : undefined;
}

/** The type of the procedure at `path`, or undefined when there is none. */
export function procedureTypeAt(router: AnyRouter, path: string): ProcedureType | undefined {
  const candidate = procedureAt(router, path);
  if (typeof candidate !== "function") return undefined;
  return (candidate as { _def?: { type?: ProcedureType } })._def?.type;
}

function procedureDefOf(router: AnyRouter, path: string): ProcedureDef | undefined {
  const candidate = procedureAt(router, path);
  if (typeof candidate !== "function") return undefined;
  const def = (candidate as { _def?: Partial<ProcedureDef> })._def;
  // Anything unusual (a lazy router, a caller override) goes through tRPC's own call.
  if (!def || !Array.isArray(def.middlewares) || def.middlewares.length === 0 || def.caller) {
    return undefined;
  }
  return def as ProcedureDef;
}

/**
 * Calls procedures as tRPC's callTRPCProcedure does (the same middlewares, in the same order,
 * with the same options, results and errors) without its copies of the options object at
 * every middleware: tRPC copies them through a property-descriptor helper, twice per
 * middleware, and chat.send cost about 10 µs through callTRPCProcedure against 3 µs here
 * (timed in process), a large part of a chat message's server CPU.
 * Procedures it does not recognise go through callTRPCProcedure; tests compare the two.
 */
export function createProcedureCaller(router: AnyRouter) {
  // Built once: paths a client names that are not here (unknown, or behind a lazy router) go
  // through tRPC, so nothing a client sends grows this map.
  const known = new Map<string, { def: ProcedureDef; steps: Step[] }>();
  for (const path of Object.keys(router._def.procedures)) {
    const def = procedureDefOf(router, path);
    if (def) known.set(path, { def, steps: stepsOf(def) });
  }

  const fail = (cause: unknown): Outcome => ({
    marker: middlewareMarker,
    ok: false,
    error: getTRPCErrorFromUnknown(cause),
  });
  const badInput = (cause: unknown): Outcome => fail(new TRPCError({ code: "BAD_REQUEST", cause }));
  const succeeded = (data: unknown, ctx: unknown): Outcome => ({
    marker: middlewareMarker,
    ok: true,
    data,
    ctx,
  });
  const mapSafely = (map: (outcome: Outcome) => Outcome, outcome: Outcome): Outcome => {
    try {
      return map(outcome);
    } catch (cause) {
      return fail(cause);
    }
  };
  /** What an input middleware passes on: merged into earlier inputs when both are objects. */
  const merged = (earlier: unknown, parsed: unknown): unknown =>
    isObject(earlier) && isObject(parsed) ? { ...earlier, ...parsed } : parsed;
  const noResult = () =>
    new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      message: "No result from middlewares - did you forget to `return next()`?",
    });

  /** Runs the steps from `index` on; synchronous as long as every step is. */
  function run(def: ProcedureDef, steps: Step[], call: ProcedureCall): Outcome | Promise<Outcome> {
    const { meta } = def;
    const { type, path, signal } = call;
    const rawInput = call.input;
    const getRawInput = async () => rawInput;
    const optionsOf = (
      ctx: unknown,
      input: unknown,
      getRaw: () => Promise<unknown>,
    ): Omit<MiddlewareOptions, "next"> => ({
      ctx,
      type,
      path,
      input,
      getRawInput: getRaw,
      meta,
      signal,
      batchIndex: 0,
    });
    const step = (
      index: number,
      ctx: unknown,
      input: unknown,
      getRaw: () => Promise<unknown>,
    ): Outcome | Promise<Outcome> => {
      const current = steps[index];
      if (!current) return fail(noResult());
      try {
        // tRPC's input middleware: parse the raw input, merge it into what earlier inputs
        // parsed, go on. (With a raw input of another middleware's making, it runs itself.)
        // (Closures are made only on the asynchronous ways: this runs for every chat message.)
        if (current.kind === "input" && getRaw === getRawInput) {
          let parsed: unknown;
          try {
            parsed = current.parse(rawInput);
          } catch (cause) {
            return badInput(cause);
          }
          if (isThenable(parsed)) {
            return Promise.resolve(parsed).then(
              (value) => step(index + 1, ctx, merged(input, value), getRaw),
              badInput,
            );
          }
          return step(index + 1, ctx, merged(input, parsed), getRaw);
        }
        // A middleware that only maps what the rest of the call came to.
        if (current.kind === "map") {
          const { map } = current;
          const inner = step(index + 1, ctx, input, getRaw);
          if (inner instanceof Promise) return inner.then((outcome) => mapSafely(map, outcome));
          return mapSafely(map, inner);
        }
        // tRPC's resolver middleware: the resolver's data, or what it threw.
        if (current.kind === "resolve") {
          const data = current.resolver(optionsOf(ctx, input, getRaw));
          if (isThenable(data)) {
            return Promise.resolve(data).then((value) => succeeded(value, ctx), fail);
          }
          return succeeded(data, ctx);
        }
        const outcome = current.middleware({
          ...optionsOf(ctx, input, getRaw),
          next: (next) =>
            Promise.resolve(
              step(
                index + 1,
                next?.ctx ? { ...(ctx as object), ...next.ctx } : ctx,
                next && "input" in next ? next.input : input,
                next?.getRawInput ?? getRaw,
              ),
            ),
        });
        return Promise.resolve(outcome).then(undefined, fail);
      } catch (cause) {
        return fail(cause);
      }
    };
    return step(0, call.ctx, undefined, getRawInput);
  }

  const unwrap = (outcome: Outcome | undefined): unknown => {
    if (!outcome) throw noResult();
    if (!outcome.ok) throw outcome.error;
    return outcome.data;
  };

  /**
   * Calls, then hands over the data or the error: at once when every step was synchronous
   * (a promise would take a turn of the microtask queue, which costs a chat message more
   * than its validation), else when the call settles. Whatever `onData` throws is its own.
   */
  function settle(
    call: ProcedureCall,
    onData: (data: unknown) => void,
    onError: (error: unknown) => void,
  ): void {
    const procedure = known.get(call.path);
    if (!procedure || procedure.def.type !== call.type) {
      callProcedure(call).then(onData, onError);
      return;
    }
    const deliver = (outcome: Outcome | undefined) => {
      let data: unknown;
      try {
        data = unwrap(outcome);
      } catch (error) {
        onError(error);
        return;
      }
      onData(data);
    };
    const outcome = run(procedure.def, procedure.steps, call);
    if (outcome instanceof Promise) outcome.then(deliver, onError);
    else deliver(outcome);
  }

  function callProcedure(call: ProcedureCall): Promise<unknown> {
    const procedure = known.get(call.path);
    if (!procedure) {
      return callTRPCProcedure({
        router,
        path: call.path,
        getRawInput: async () => call.input,
        ctx: call.ctx,
        type: call.type,
        signal: call.signal,
        batchIndex: 0,
      });
    }
    if (procedure.def.type !== call.type) {
      return Promise.reject(
        new TRPCError({
          code: "NOT_FOUND",
          message: `No "${call.type}"-procedure on path "${call.path}"`,
        }),
      );
    }
    const outcome = run(procedure.def, procedure.steps, call);
    if (outcome instanceof Promise) return outcome.then(unwrap);
    try {
      return Promise.resolve(unwrap(outcome));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  /** Whether calls to `path` run here rather than through callTRPCProcedure. */
  callProcedure.isDirect = (path: string) => known.has(path);
  callProcedure.settle = settle;
  return callProcedure;
}
