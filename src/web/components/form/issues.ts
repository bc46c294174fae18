import type { FieldIssue } from "../../../common/errors.ts";
import type { ClientIssue } from "../../lib/errors.ts";

/**
 * A problem with one field: one the shared schema or the server named, one only the browser
 * can see (passwords that differ), or a refusal a page names itself (create: "rejected" by
 * the word lists, "contact" details in a bottle).
 */
export type Issue = FieldIssue | ClientIssue | { field: string; kind: "rejected" | "contact" };

export function isIssue(value: unknown): value is Issue {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { field?: unknown }).field === "string" &&
    typeof (value as { kind?: unknown }).kind === "string"
  );
}

/** The first problem of each field, in the order they were found. */
export function byField(issues: ReadonlyArray<Issue>): Record<string, Issue> {
  const found: Record<string, Issue> = {};
  for (const issue of issues) found[issue.field] ??= issue;
  return found;
}
