import { toast } from "sonner";
import { AUTH_LIMITS } from "../../../common/auth.ts";
import { toFieldIssues } from "../../../common/errors.ts";
import { useSetAccountUser } from "../../lib/account.ts";
import { CookiesBlocked } from "../../lib/cookies.ts";
import { appCodeOf, errorMessage, fieldIssuesOf } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import type { Issue } from "../form/issues.ts";
import { textField } from "../form/SchemaForm.tsx";
import type { TextFieldProps } from "../form/TextField.tsx";
import type { FormControls } from "../form/useSchemaForm.ts";

/** What a zod schema of common/auth.ts finds wrong, as field problems. */
export function schemaIssues(result: {
  success: boolean;
  error?: { issues: Parameters<typeof toFieldIssues>[0] };
}): Issue[] {
  return result.success || !result.error ? [] : toFieldIssues(result.error.issues);
}

/** A password field of an account form: hidden as typed, filled by password managers. */
export function passwordField<F extends string>(
  name: F,
  label: string,
  autoComplete: "current-password" | "new-password",
  more: Partial<TextFieldProps> = {},
) {
  return textField(name, label, AUTH_LIMITS.passwordMax, {
    type: "password",
    autoComplete,
    ...more,
  });
}

/** The repeated password: given, and the same as the one it repeats. */
export function confirmIssues(password: string, confirm: string): Issue[] {
  if (confirm === "") return [{ field: "confirm", kind: "required" }];
  if (confirm !== password) return [{ field: "confirm", kind: "passwords_mismatch" }];
  return [];
}

/**
 * How an account form shows a failed request: the browser refuses cookies, the session is gone
 * (back to signed out), the password was wrong (emptied, named under `passwordField`), the server named fields, or one
 * alert says what went wrong. What was typed otherwise stays.
 */
export function useAccountFailure<F extends string>(passwordField?: F) {
  const { LL } = useI18n();
  const setAccountUser = useSetAccountUser();
  return (error: unknown, form: FormControls<F>) => {
    if (error instanceof CookiesBlocked) {
      form.show([], LL.common.cookies.accountRefused(), "submit");
      return;
    }
    const code = appCodeOf(error);
    if (code === "UNAUTHORIZED") {
      toast.error(LL.errors.unauthorized());
      void setAccountUser(null);
      return;
    }
    if (code === "INVALID_CREDENTIALS" && passwordField) {
      form.clear(passwordField);
      form.show([{ field: passwordField, kind: "wrong_password" }]);
      return;
    }
    form.problems(fieldIssuesOf(error), errorMessage(LL, error));
  };
}
