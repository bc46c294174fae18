import { type AnyRouter, type inferRouterContext, TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { AppErrorCode } from "../../common/errors.ts";
import { asDomainError, RateLimitedError } from "../../core/errors.ts";
import { httpStatusOfError } from "./init.ts";

/** The web batches a page's queries; no page makes more than a few at once. */
export const MAX_BATCH_SIZE = 10;

interface Options<TRouter extends AnyRouter> {
  router: TRouter;
  endpoint: string;
  createContext(): Promise<inferRouterContext<TRouter>>;
  onError?: (error: TRPCError) => void;
}

/**
 * tRPC over HTTP through its fetch adapter, with batches capped (a larger one is refused with
 * 400 before any procedure runs) and Retry-After on rate-limited answers. Subscriptions stream
 * over the WebSocket only: asked for over HTTP, one is refused with 405 instead of the event
 * stream tRPC would open.
 */
export async function handleTrpcHttp<TRouter extends AnyRouter>(
  request: Request,
  options: Options<TRouter>,
): Promise<Response> {
  // tRPC decodes the path without catching what a malformed escape throws.
  try {
    decodeURIComponent(new URL(request.url).pathname);
  } catch {
    return trpcRefusal("BAD_REQUEST", "INVALID_INPUT", "Malformed path");
  }
  const response = await fetchRequestHandler({
    endpoint: options.endpoint,
    req: request,
    router: options.router,
    createContext: options.createContext,
    maxBatchSize: MAX_BATCH_SIZE,
    onError: ({ error }) => options.onError?.(error),
    responseMeta({ errors, paths }) {
      if (errors.length === 0) return {};
      const statuses = new Set(errors.map(httpStatusOfError));
      // One call, or a batch failing alike, answers its status; a mixed batch, 207 as tRPC does.
      const status =
        statuses.size === 1 && errors.length === (paths?.length ?? 1)
          ? (statuses.values().next().value as number)
          : 207;
      // The database or Redis out of reach: try again in a few seconds.
      const away = errors.map((e) => asDomainError(e.cause)).find((e) => e?.code === "UNAVAILABLE");
      if (away) return { status, headers: { "Retry-After": String(away.retryAfterSeconds) } };
      const limited = errors.find((e) => e.cause instanceof RateLimitedError)?.cause;
      if (!(limited instanceof RateLimitedError)) return { status };
      return { status, headers: { "Retry-After": String(limited.retryAfterSeconds ?? 60) } };
    },
  });
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  await response.body?.cancel();
  return trpcRefusal(
    "METHOD_NOT_SUPPORTED",
    "INVALID_INPUT",
    "Subscriptions are served over the WebSocket at this endpoint, not over HTTP",
  );
}

/** A refusal before any procedure runs, in the shape of tRPC's error answers. */
export function trpcRefusal(
  code: TRPC_ERROR_CODE_KEY,
  appCode: AppErrorCode,
  message: string,
): Response {
  const httpStatus = getHTTPStatusCodeFromError(new TRPCError({ code }));
  return Response.json(
    {
      error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus, appCode } },
    },
    { status: httpStatus },
  );
}
