/**
 * Codes the server puts on every error it answers with. The web maps each to a localized
 * message; nothing user-visible travels in English from the server.
 */
export const appErrorCodes = [
  "INVALID_INPUT",
  "INVALID_CREDENTIALS",
  "CONTENT_REJECTED",
  "MODERATION_FAILED",
  "TRANSLATION_UNSUPPORTED",
  "TRANSLATION_FAILED",
  "CHAT_BANNED",
  /** Chat needs the "18 or older" answer first (the web shows the safety gate). */
  "AGE_CONFIRMATION_REQUIRED",
  /** The visitor declared being too young; it holds for 30 days. */
  "AGE_REFUSED",
  /** A bottle carries words, not links or contact details. */
  "CONTENT_HAS_CONTACT",
  /** An interest named for matching holds contact details or words strangers must not see. */
  "INTEREST_REFUSED",
  /** The same text again and again (bottles, or chat messages to different partners). */
  "SPAM_REPEATED",
  /** The action needs a moment of proof of work first (the web solves it and sends it again). */
  "POW_REQUIRED",
  /** The proof of work sent is malformed, expired, for another action, or already used. */
  "POW_INVALID",
  /** The operator switched this part of the site off for now. */
  "FEATURE_RESTING",
  "RATE_LIMITED",
  /** The database or Redis is briefly out of reach: try again in a few seconds. */
  "UNAVAILABLE",
  "PAYLOAD_TOO_LARGE",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "INTERNAL",
] as const;
export type AppErrorCode = (typeof appErrorCodes)[number];

/** One problem with one field, as the server reports it and the web localizes it. */
export interface FieldIssue {
  /** The field's name, e.g. "email". */
  field: string;
  kind:
    | "required"
    | "too_long"
    | "too_short"
    | "invalid_email"
    | "username_format"
    | "username_taken"
    | "password_is_username"
    | "drift_past_expiry"
    | "invalid";
  /** The bound that was crossed, for too_long and too_short. */
  limit?: number;
}

/** The `data` the server adds to every tRPC error. */
export interface AppErrorData {
  appCode: AppErrorCode;
  /** Seconds until a rate-limited action is allowed again. */
  retryAfter?: number;
  issues?: FieldIssue[];
}

/** Turns zod issues into field issues; shared so the browser checks exactly as the server does. */
export function toFieldIssues(
  issues: ReadonlyArray<{
    code: string;
    path: ReadonlyArray<PropertyKey>;
    minimum?: unknown;
    maximum?: unknown;
    format?: unknown;
    params?: Record<string, unknown>;
  }>,
): FieldIssue[] {
  return issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    if (issue.code === "too_small") {
      const limit = Number(issue.minimum);
      return limit <= 1 ? { field, kind: "required" } : { field, kind: "too_short", limit };
    }
    if (issue.code === "too_big") return { field, kind: "too_long", limit: Number(issue.maximum) };
    if (issue.code === "invalid_format" && issue.format === "email") {
      return { field, kind: "invalid_email" };
    }
    if (issue.code === "invalid_format" && issue.format === "regex" && field === "username") {
      return { field, kind: "username_format" };
    }
    if (issue.code === "custom" && issue.params?.kind === "password_is_username") {
      return { field, kind: "password_is_username" };
    }
    if (issue.code === "invalid_type") return { field, kind: "required" };
    return { field, kind: "invalid" };
  });
}
