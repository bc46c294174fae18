import { TRPCClientError } from "@trpc/client";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import type { AppErrorCode, AppErrorData, FieldIssue } from "../../common/errors.ts";

/**
 * Problems the web names itself: a repeated password that differs (the server never sees it),
 * and a wrong current password, shown under the password field that was wrong.
 */
export interface ClientIssue {
  field: string;
  kind: "passwords_mismatch" | "wrong_password";
}

function dataOf(error: unknown): Partial<AppErrorData> | undefined {
  if (error instanceof TRPCClientError) return error.data as Partial<AppErrorData> | undefined;
  return undefined;
}

export function fieldIssuesOf(error: unknown): FieldIssue[] {
  return dataOf(error)?.issues ?? [];
}

/** Seconds until a rate-limited action is allowed again, when the server said. */
export function retryAfterOf(error: unknown): number | undefined {
  return dataOf(error)?.retryAfter;
}

/** The application code a failed request carries, if the server answered at all. */
export function appCodeOf(error: unknown): AppErrorCode | undefined {
  return dataOf(error)?.appCode;
}

type Sentence = (LL: TranslationFunctions, limit: number) => string;

/** Each field problem's sentence; `limit` is the bound a too long or too short text crossed. */
const issueSentences: Record<(FieldIssue | ClientIssue)["kind"], Sentence> = {
  required: (LL) => LL.errors.required(),
  too_long: (LL, limit) => LL.errors.tooLong({ limit }),
  too_short: (LL, limit) => LL.errors.tooShort({ limit }),
  invalid_email: (LL) => LL.errors.invalidEmail(),
  username_format: (LL) => LL.errors.usernameFormat(),
  username_taken: (LL) => LL.errors.usernameTaken(),
  password_is_username: (LL) => LL.errors.passwordIsUsername(),
  passwords_mismatch: (LL) => LL.errors.passwordsMismatch(),
  wrong_password: (LL) => LL.errors.wrongPassword(),
  drift_past_expiry: (LL) => LL.errors.invalid(),
  invalid: (LL) => LL.errors.invalid(),
};

/** The localized sentence for one field problem (an unknown kind reads "check this field"). */
export function issueMessage(LL: TranslationFunctions, issue: { kind: string; limit?: number }) {
  const sentence: Sentence | undefined = issueSentences[issue.kind as keyof typeof issueSentences];
  return sentence ? sentence(LL, issue.limit ?? 0) : LL.errors.invalid();
}

/** "Try again in N minutes" past a minute, rounded up; seconds below that. */
function rateLimitedMessage(LL: TranslationFunctions, retryAfter: number | undefined): string {
  const seconds = Math.max(1, Math.ceil(retryAfter ?? 60));
  if (seconds < 60) return LL.errors.rateLimited({ seconds });
  return LL.errors.rateLimitedMinutes({ minutes: Math.ceil(seconds / 60) });
}

/** The localized sentence for an error a request ended with. */
export function errorMessage(LL: TranslationFunctions, error: unknown): string {
  const data = dataOf(error);
  switch (data?.appCode) {
    case "RATE_LIMITED":
      return rateLimitedMessage(LL, data.retryAfter);
    case "PAYLOAD_TOO_LARGE":
      return LL.errors.tooLarge();
    case "INVALID_INPUT":
      return LL.errors.invalid();
    case "INVALID_CREDENTIALS":
      return LL.errors.invalidCredentials();
    case "UNAUTHORIZED":
      return LL.errors.unauthorized();
    case "FORBIDDEN":
      return LL.errors.forbidden();
    case "AGE_CONFIRMATION_REQUIRED":
      return LL.errors.ageConfirmationRequired();
    case "AGE_REFUSED":
      return LL.errors.ageRefused();
    case "CONTENT_HAS_CONTACT":
      return LL.errors.contentHasContact();
    case "SPAM_REPEATED":
      return LL.errors.spamRepeated({
        minutes: Math.max(1, Math.ceil((data.retryAfter ?? 60) / 60)),
      });
    case "FEATURE_RESTING":
      return LL.errors.featureResting();
    case "POW_REQUIRED":
      return LL.pow.required();
    case "POW_INVALID":
      return LL.pow.invalid();
    case "UNAVAILABLE":
      return LL.errors.unavailable({ seconds: Math.max(1, Math.ceil(data.retryAfter ?? 5)) });
    default:
      if (error instanceof TRPCClientError && !data) return LL.errors.network();
      return LL.errors.generic();
  }
}
