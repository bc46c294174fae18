import type { AppErrorCode, FieldIssue } from "../common/errors.ts";

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
