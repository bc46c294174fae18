import { createFormHook, useStore } from "@tanstack/react-form";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { issueMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { type FormState, fieldContext, formContext } from "./context.ts";
import { FormAlert, SubmitButton } from "./FormParts.tsx";
import { byField, type Issue } from "./issues.ts";
import { TextField } from "./TextField.tsx";

const { useAppForm } = createFormHook({
  fieldContext,
  formContext,
  fieldComponents: { TextField },
  formComponents: { FormAlert, SubmitButton },
});

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a form's callbacks may do to it once a request has ended. */
export interface FormControls<F extends string> {
  /** Shows field problems (and a form-wide alert); focus goes to `focus`, else the first. */
  show: (issues: ReadonlyArray<Issue>, alert?: string | null, focus?: F | "submit") => void;
  /** The field problems the server named for this form's fields, or else the alert `otherwise`. */
  problems: (issues: ReadonlyArray<Issue>, otherwise: string) => void;
  /** Empties text fields (a wrong password, a sent message). */
  clear: (...names: F[]) => void;
  /** Moves focus once the form is enabled again (a disabled control cannot take it). */
  focus: (target: F | "submit") => void;
}

export interface SchemaFormOptions<V extends Record<F, unknown>, F extends string, T> {
  defaultValues: V;
  /** The fields in the order they are shown: the first invalid one takes focus. */
  fields: ReadonlyArray<F>;
  /** Problems found before sending: the shared zod schema's, and the rules of this form. */
  check: (values: V) => Issue[];
  /** Called when the check finds problems (after they are shown), e.g. for a toast. */
  onInvalid?: (issues: Issue[]) => void;
  /** The request; the form is busy until it ends and `minBusyMs` has passed. */
  send: (values: V) => Promise<T>;
  onSent: (result: T, form: FormControls<F>) => void;
  onFailed: (error: unknown, form: FormControls<F>) => void;
  /** A field problem in words; the shared sentences (lib/errors.ts) by default. */
  describe?: (issue: Issue) => string;
  minBusyMs?: number;
  /** The page holds the form disabled (signing in elsewhere, a bottle on its way). */
  locked?: boolean;
}

/**
 * Every form of the site, one way: TanStack Form holds the values and field problems, checked
 * with the zod schemas of common/ before anything is sent. What was typed survives failures,
 * the inputs are disabled while sending, and focus goes to the first problem (or the button)
 * once they are enabled again.
 */
export function useSchemaForm<V extends Record<F, unknown>, F extends string, T>(
  options: SchemaFormOptions<V, F, T>,
) {
  const { LL } = useI18n();
  const id = useId();
  const [alert, setAlert] = useState<string | null>(null);
  const [focusRequest, setFocusRequest] = useState<F | "submit" | null>(null);
  const elements = useRef(new Map<string, HTMLElement | null>());
  const mounted = useRef(true);
  const latest = useRef(options);
  latest.current = options;

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const firstOf = (issues: ReadonlyArray<Issue>): F | "submit" =>
    latest.current.fields.find((field) => issues.some((issue) => issue.field === field)) ??
    "submit";

  const form = useAppForm({
    defaultValues: options.defaultValues,
    validators: {
      onSubmit: ({ value }) => {
        const issues = latest.current.check(value);
        return issues.length > 0 ? { fields: byField(issues) } : undefined;
      },
    },
    onSubmitInvalid: ({ value }) => {
      const issues = latest.current.check(value);
      setAlert(null);
      setFocusRequest(firstOf(issues));
      latest.current.onInvalid?.(issues);
    },
    onSubmit: async ({ value }) => {
      setAlert(null);
      const started = Date.now();
      let outcome: Settled<T>;
      try {
        outcome = { ok: true, value: await latest.current.send(value) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      await wait((latest.current.minBusyMs ?? 0) - (Date.now() - started));
      if (!mounted.current) return;
      if (outcome.ok) latest.current.onSent(outcome.value, controls);
      else latest.current.onFailed(outcome.error, controls);
    },
  });

  const knownOf = (issues: ReadonlyArray<Issue>) =>
    issues.filter((issue) =>
      (latest.current.fields as ReadonlyArray<string>).includes(issue.field),
    );

  const controls: FormControls<F> = {
    show: (issues, alertText = null, focus) => {
      const known = knownOf(issues);
      form.setErrorMap({ onSubmit: { fields: byField(known) } });
      setAlert(alertText);
      setFocusRequest(focus ?? firstOf(known));
    },
    problems: (issues, otherwise) => {
      const known = knownOf(issues);
      controls.show(known, known.length > 0 ? null : otherwise);
    },
    clear: (...names) => {
      for (const name of names) form.setFieldValue(name, "" as never);
    },
    focus: setFocusRequest,
  };

  const submitting = useStore(form.store, (state) => state.isSubmitting);
  const busy = submitting || options.locked === true;

  // A disabled control cannot take focus, so this waits until the form is enabled again.
  useEffect(() => {
    if (!focusRequest || busy) return;
    elements.current.get(focusRequest)?.focus();
    setFocusRequest(null);
  }, [focusRequest, busy]);

  const describe = options.describe ?? ((issue: Issue) => issueMessage(LL, issue));
  const state: FormState = useMemo(
    () => ({
      id,
      busy,
      alert,
      alertId: `${id}-alert`,
      describe,
      register: (name) => (element) => {
        elements.current.set(name, element);
      },
    }),
    [id, busy, alert, describe],
  );

  return { form, state, controls, busy };
}
