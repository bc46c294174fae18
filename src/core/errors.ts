import { isConnectionFailure } from "../../db/errors.ts";
import type { AppErrorCode, FieldIssue } from "../common/errors.ts";
import { isRedisUnavailable } from "./redis-script.ts";

/** An error the domain expects and a visitor can be told about. */
export class DomainError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly issues?: FieldIssue[],
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export class RateLimitedError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super("RATE_LIMITED", `rate limited, retry in ${retryAfterSeconds}s`, retryAfterSeconds);
  }
}

/** Input that passed the schema but breaks a rule only the database knows (a taken name). */
export class FieldError extends DomainError {
  constructor(issue: FieldIssue) {
    super("INVALID_INPUT", `${issue.field}: ${issue.kind}`, undefined, [issue]);
  }
}

/** A wrong username or password; which of the two is never said. */
export class InvalidCredentialsError extends DomainError {
  constructor() {
    super("INVALID_CREDENTIALS", "invalid username or password");
  }
}

/** How long a visitor is asked to wait when the database or Redis is briefly out of reach. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * The database or Redis could not be reached (stopped, restarting, out of connections): nothing
 * was done that can be relied on, and the same call can be tried again in a few seconds.
 */
export class UnavailableError extends DomainError {
  constructor(cause: unknown) {
    super("UNAVAILABLE", "the database or Redis is out of reach", UNAVAILABLE_RETRY_SECONDS);
    this.cause = cause;
  }
}

/**
 * The error as a visitor is told of it: a domain error as it is, a store out of reach as
 * UnavailableError (looked for through its causes), anything else not at all (a fault).
 */
export function asDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    if (isConnectionFailure(cause) || isRedisUnavailable(cause)) return new UnavailableError(error);
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
