import type { AppErrorCode } from "../common/errors.ts";

/** An error the domain expects and a visitor can be told about. */
export class DomainError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
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
