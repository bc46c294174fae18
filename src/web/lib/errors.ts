import { TRPCClientError } from "@trpc/client";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import type { AppErrorData, FieldIssue } from "../../common/errors.ts";

function dataOf(error: unknown): Partial<AppErrorData> | undefined {
  if (error instanceof TRPCClientError) return error.data as Partial<AppErrorData> | undefined;
  return undefined;
}

export function fieldIssuesOf(error: unknown): FieldIssue[] {
  return dataOf(error)?.issues ?? [];
}

/** The localized sentence for one field problem. */
export function issueMessage(LL: TranslationFunctions, issue: FieldIssue): string {
  switch (issue.kind) {
    case "required":
      return LL.errors.required();
    case "too_long":
      return LL.errors.tooLong({ limit: issue.limit ?? 0 });
    case "too_short":
      return LL.errors.tooShort({ limit: issue.limit ?? 0 });
    case "invalid_email":
      return LL.errors.invalidEmail();
    default:
      return LL.errors.invalid();
  }
}

/** The localized sentence for an error a request ended with. */
export function errorMessage(LL: TranslationFunctions, error: unknown): string {
  const data = dataOf(error);
  switch (data?.appCode) {
    case "RATE_LIMITED":
      return LL.errors.rateLimited({ seconds: data.retryAfter ?? 60 });
    case "PAYLOAD_TOO_LARGE":
      return LL.errors.tooLarge();
    case "INVALID_INPUT":
      return LL.errors.invalid();
    default:
      if (error instanceof TRPCClientError && !data) return LL.errors.network();
      return LL.errors.generic();
  }
}
