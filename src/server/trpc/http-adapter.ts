import {
  type AnyRouter,
  getErrorShape,
  getTRPCErrorFromUnknown,
  type inferRouterContext,
  type TRPCError,
} from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getHTTPStatusCode } from "@trpc/server/http";
import { createProcedureCaller, procedureTypeAt } from "./procedure-call.ts";

interface Options<TRouter extends AnyRouter> {
  router: TRouter;
  endpoint: string;
  /** Extra response headers for the errors a call ended with (Retry-After, say). */
  headersFor?: (errors: TRPCError[]) => Record<string, string> | undefined;
}

type ProcedureType = "query" | "mutation";

interface Call {
  path: string;
  input: unknown;
}

/** A request the fast path can answer, or what tRPC's own handler needs to answer it. */
type Plan =
  | { kind: "calls"; calls: Call[]; batch: boolean; type: ProcedureType }
  | { kind: "tRPC" };

/**
 * tRPC over HTTP for the calls the web makes: queries by GET and mutations by POST with JSON,
 * single or batched (httpBatchLink). It answers them itself, with the same wire format as
 * tRPC's fetch adapter, which it hands everything else to: unknown paths, wrong methods,
 * malformed input, streaming and subscriptions. The fetch adapter's general machinery cost
 * more per request than the discover read path's two SQL statements (see BENCHMARKS.md); the
 * procedures, their middleware and the error shapes are tRPC's own.
 */
export function createHttpHandler<TRouter extends AnyRouter>(options: Options<TRouter>) {
  const { router, endpoint } = options;
  const config = router._def._config;
  const prefix = `${endpoint}/`;

  // The same middlewares tRPC runs, without its copies of the options at every step.
  const callProcedure = createProcedureCaller(router);

  /** `body` is the text of a JSON POST; undefined for anything else. */
  function plan(request: Request, url: URL, body: string | undefined): Plan {
    const type: ProcedureType | undefined =
      request.method === "GET"
        ? "query"
        : request.method === "POST" && body !== undefined
          ? "mutation"
          : undefined;
    if (!type || !url.pathname.startsWith(prefix)) return { kind: "tRPC" };
    if (request.headers.get("trpc-accept") || url.searchParams.has("connectionParams"))
      return { kind: "tRPC" };
    const batch = url.searchParams.get("batch") === "1";
    let paths: string[];
    try {
      const joined = decodeURIComponent(url.pathname.slice(prefix.length));
      paths = batch ? joined.split(",") : [joined];
    } catch {
      return { kind: "tRPC" };
    }
    let inputs: unknown;
    try {
      const text = type === "query" ? url.searchParams.get("input") : body;
      inputs = text ? JSON.parse(text) : undefined;
    } catch {
      return { kind: "tRPC" };
    }
    if (batch && inputs !== undefined && (typeof inputs !== "object" || inputs === null))
      return { kind: "tRPC" };
    const calls: Call[] = [];
    for (const [index, path] of paths.entries()) {
      if (procedureTypeAt(router, path) !== type) return { kind: "tRPC" };
      const input = batch ? (inputs as Record<string, unknown> | undefined)?.[index] : inputs;
      calls.push({ path, input });
    }
    return { kind: "calls", calls, batch, type };
  }

  return async function handle(
    request: Request,
    url: URL,
    createContext: () => Promise<inferRouterContext<TRouter>>,
  ): Promise<Response> {
    // Only JSON bodies are read here; anything else goes to tRPC unread.
    const body =
      request.method === "POST" &&
      request.headers.get("content-type")?.startsWith("application/json")
        ? await request.text()
        : undefined;
    const planned = plan(request, url, body);
    if (planned.kind === "tRPC") {
      const forwarded =
        body === undefined
          ? request
          : new Request(request.url, { method: request.method, headers: request.headers, body });
      return fetchRequestHandler({
        endpoint,
        req: forwarded,
        router,
        createContext,
        responseMeta: ({ errors }) => ({ headers: options.headersFor?.(errors) }),
      });
    }

    const { calls, batch, type } = planned;
    // As in tRPC: a context that fails to build fails each call, with the error it threw.
    let ctx: inferRouterContext<TRouter> | undefined;
    let contextError: unknown;
    try {
      ctx = await createContext();
    } catch (cause) {
      contextError = cause;
    }
    const errors: TRPCError[] = [];
    const results = await Promise.all(
      calls.map(async (call) => {
        try {
          if (contextError !== undefined) throw contextError;
          const data = await callProcedure({
            path: call.path,
            type,
            ctx,
            input: call.input,
            // No procedure called over HTTP reads one; the chat stream runs over the WebSocket.
            signal: undefined,
          });
          return { result: { data } };
        } catch (cause) {
          const error = getTRPCErrorFromUnknown(cause);
          errors.push(error);
          return {
            error: getErrorShape({
              config,
              error,
              type,
              path: call.path,
              input: call.input,
              ctx,
            }),
          };
        }
      }),
    );
    const headers: Record<string, string> = {
      vary: "trpc-accept, accept",
      "content-type": "application/json",
      ...options.headersFor?.(errors),
    };
    return new Response(JSON.stringify(batch ? results : results[0]), {
      status: getHTTPStatusCode(results),
      headers,
    });
  };
}
