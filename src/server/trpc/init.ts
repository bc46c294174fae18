import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { type AppErrorCode, type AppErrorData, toFieldIssues } from "../../common/errors.ts";
import { asDomainError } from "../../core/errors.ts";
import type { Context } from "./context.ts";

const trpcCodeOf: Record<AppErrorCode, TRPC_ERROR_CODE_KEY> = {
  INVALID_INPUT: "BAD_REQUEST",
  INVALID_CREDENTIALS: "UNAUTHORIZED",
  CONTENT_REJECTED: "UNPROCESSABLE_CONTENT",
  MODERATION_FAILED: "SERVICE_UNAVAILABLE",
  TRANSLATION_UNSUPPORTED: "UNPROCESSABLE_CONTENT",
  TRANSLATION_FAILED: "SERVICE_UNAVAILABLE",
  CHAT_BANNED: "FORBIDDEN",
  AGE_CONFIRMATION_REQUIRED: "PRECONDITION_FAILED",
  AGE_REFUSED: "FORBIDDEN",
  CONTENT_HAS_CONTACT: "UNPROCESSABLE_CONTENT",
  SPAM_REPEATED: "TOO_MANY_REQUESTS",
  FEATURE_RESTING: "SERVICE_UNAVAILABLE",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  INTERNAL: "INTERNAL_SERVER_ERROR",
};

const appCodeOf: Partial<Record<TRPC_ERROR_CODE_KEY, AppErrorCode>> = {
  BAD_REQUEST: "INVALID_INPUT",
  PARSE_ERROR: "INVALID_INPUT",
  TOO_MANY_REQUESTS: "RATE_LIMITED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_SUPPORTED: "INVALID_INPUT",
  UNSUPPORTED_MEDIA_TYPE: "INVALID_INPUT",
  UNPROCESSABLE_CONTENT: "INVALID_INPUT",
};

export function errorData(error: TRPCError): AppErrorData {
  const cause = error.cause;
  if (cause instanceof ZodError) {
    return { appCode: "INVALID_INPUT", issues: toFieldIssues(cause.issues) };
  }
  const domain = asDomainError(cause);
  if (domain) {
    const data: AppErrorData = { appCode: domain.code };
    if (domain.retryAfterSeconds !== undefined) data.retryAfter = domain.retryAfterSeconds;
    if (domain.issues) data.issues = domain.issues;
    return data;
  }
  return { appCode: appCodeOf[error.code] ?? "INTERNAL" };
}

const t = initTRPC.context<Context>().create({
  // Stack traces never leave the server.
  isDev: false,
  // Subscriptions run over the WebSocket only; over HTTP they are refused (see handler.ts).
  sse: { enabled: false },
  errorFormatter({ shape, error }) {
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, data: { ...data, ...errorData(error) } };
  },
});

/** Domain errors become tRPC errors with the matching HTTP status, keeping their cause. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  const cause = result.ok ? undefined : asDomainError(result.error.cause);
  if (result.ok || !cause) return result;
  return {
    ...result,
    error: new TRPCError({ code: trpcCodeOf[cause.code], message: cause.message, cause }),
  };
});

export const router = t.router;
export const publicProcedure = t.procedure.use(domainErrors);

/** For operators only (`tidings operator add`); anyone else gets FORBIDDEN. */
export const operatorProcedure = publicProcedure.use(({ ctx, next }) => {
  const { user, session } = ctx;
  if (!user || !session) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign-in required" });
  if (!ctx.isOperator) throw new TRPCError({ code: "FORBIDDEN", message: "operators only" });
  return next({ ctx: { ...ctx, user, session } });
});

/** For signed-in visitors only; others get UNAUTHORIZED, which the web shows as the sign-in dialog. */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  const { user, session } = ctx;
  if (!user || !session) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign-in required" });
  return next({ ctx: { ...ctx, user, session } });
});
