import { initTRPC, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { type AppErrorCode, type AppErrorData, toFieldIssues } from "../../common/errors.ts";
import { type PowAction, powInput } from "../../common/pow.ts";
import type { Feature } from "../../core/admin/features.ts";
import { asDomainError } from "../../core/errors.ts";
import type { AccountNow, Context } from "./context.ts";

/** What a procedure declares about itself, read by the middlewares below. */
export interface Meta {
  /**
   * The part of the site the procedure belongs to: while the operator has it switched off, the
   * call is refused with FEATURE_RESTING before anything else runs.
   */
  feature?: Feature;
  /**
   * The action this procedure does, which scripts abuse: the call carries a solved challenge
   * for it (its `pow` field), checked before anything else of the action runs (POW_REQUIRED,
   * POW_INVALID). Declared with `powProcedure`.
   */
  pow?: PowAction;
}

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
  INTEREST_REFUSED: "UNPROCESSABLE_CONTENT",
  SPAM_REPEATED: "TOO_MANY_REQUESTS",
  FEATURE_RESTING: "SERVICE_UNAVAILABLE",
  POW_REQUIRED: "PRECONDITION_FAILED",
  POW_INVALID: "FORBIDDEN",
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

/** The HTTP status of each tRPC code, as tRPC itself answers it. */
const httpStatusOf = Object.fromEntries(
  (Object.keys(TRPC_ERROR_CODES_BY_KEY) as TRPC_ERROR_CODE_KEY[]).map((code) => [
    code,
    getHTTPStatusCodeFromError(new TRPCError({ code })),
  ]),
) as Record<TRPC_ERROR_CODE_KEY, number>;

/**
 * The tRPC code an error is answered with: a domain error (thrown by core, which knows nothing
 * of tRPC, and so wrapped by tRPC as an internal error) by what it means.
 */
export function trpcCodeOfError(error: TRPCError): TRPC_ERROR_CODE_KEY {
  const cause = asDomainError(error.cause);
  return cause ? trpcCodeOf[cause.code] : error.code;
}

/** The HTTP status an error is answered with (see trpcCodeOfError). */
export function httpStatusOfError(error: TRPCError): number {
  return httpStatusOf[trpcCodeOfError(error)];
}

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

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Stack traces never leave the server.
    isDev: false,
    // Subscriptions run over the WebSocket only; over HTTP they are refused (see handler.ts).
    sse: { enabled: false },
    // Domain errors are mapped here, once, for every transport (the HTTP status of a domain error
    // is set in trpc/http.ts's responseMeta): a middleware would cost every call a copy of its
    // options and result, errors or not.
    errorFormatter({ shape, error }) {
      const { stack: _stack, ...data } = shape.data;
      const cause = asDomainError(error.cause);
      if (!cause) {
        return { ...shape, data: { ...data, ...errorData(error) } };
      }
      const code = trpcCodeOf[cause.code];
      return {
        ...shape,
        message: cause.message,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        data: { ...data, code, httpStatus: httpStatusOf[code], ...errorData(error) },
      };
    },
  });

/**
 * One middleware for every call (each middleware costs tRPC two copies of the call's options):
 * the operator's off switch of the procedure's part of the site, declared once per procedure
 * with `.meta({ feature })`; the proof of work of a procedure declared with `powProcedure`
 * (read from the raw input, before the input is parsed or anything of the action runs; a
 * refusal by the limits afterwards makes the visitor's next challenges dearer); over a socket
 * that opened signed in, its account as it stands now (the session and operator flag, read
 * again unless a recent reading still stands); then the call counted once it is answered, by
 * procedure and the HTTP status it is answered with, with its time and what it meant (a
 * refusal's rule, a message relayed, a chat asked for, a report filed).
 */
const observed = t.middleware(async ({ ctx, path, meta, next, getRawInput }) => {
  const started = performance.now();
  let account: AccountNow | Promise<AccountNow> | undefined;
  try {
    if (meta?.feature) ctx.features.require(meta.feature);
    if (meta?.pow) {
      // A body tRPC cannot read (a bare POST) carries no solution; the input parser says the rest.
      const raw = await getRawInput().catch(() => undefined);
      await ctx.pow.admit(meta.pow, powOf(raw), ctx.requester);
    }
    account = ctx.rightsNow?.();
    if (account instanceof Promise) account = await account;
  } catch (refusal) {
    const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: refusal });
    ctx.metrics.procedure(path, httpStatusOfError(error), errorData(error).appCode, 0);
    throw refusal;
  }
  const result = account ? await next({ ctx: account }) : await next();
  const error = result.ok ? null : result.error;
  if (error && meta?.pow) afterRefusal(ctx, meta.pow, errorData(error).appCode);
  ctx.metrics.procedure(
    path,
    error ? httpStatusOfError(error) : 200,
    error ? errorData(error).appCode : null,
    performance.now() - started,
  );
  return result;
});

/** The `pow` field of a call's input, read before the input is parsed (the check comes first). */
function powOf(raw: unknown): unknown {
  return typeof raw === "object" && raw !== null ? (raw as { pow?: unknown }).pow : undefined;
}

/**
 * A protected action the limits refused: the visitor's next challenges cost more. A wrong
 * password counts towards signing in needing proof of work.
 */
function afterRefusal(ctx: Context, action: PowAction, code: AppErrorCode): void {
  if (code === "RATE_LIMITED") ctx.pow.refused(ctx.requester);
  if (action === "signIn" && code === "INVALID_CREDENTIALS") ctx.pow.signInFailed(ctx.requester);
}

export const router = t.router;
export const publicProcedure = t.procedure.use(observed);

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

/**
 * A procedure behind proof of work for `action`: the meta the middleware reads, and the
 * optional `pow` field on its input (merged with the procedure's own input).
 */
export function powProcedure(action: PowAction) {
  return publicProcedure.meta({ pow: action }).input(powInput.optional());
}

/** The chat's procedures that rest while the operator has switched the chat off. */
export const chatProcedure = publicProcedure.meta({ feature: "chat" });
