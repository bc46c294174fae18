import { useStore } from "@tanstack/react-form";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { createBottleInput, DEFAULT_EXPIRY_DAYS } from "../../../common/bottles.ts";
import { toFieldIssues } from "../../../common/errors.ts";
import { CookiesBlocked, requireCookies } from "../../lib/cookies.ts";
import { bottleDraft } from "../../lib/drafts.ts";
import {
  appCodeOf,
  errorMessage,
  fieldIssuesOf,
  issueMessage,
  retryAfterOf,
} from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { usePow } from "../../lib/pow.ts";
import { trpc } from "../../lib/trpc.ts";
import { type Issue, isIssue } from "../form/issues.ts";
import { useSchemaForm } from "../form/useSchemaForm.ts";
import { browserTimeZone, expiresBeforeSurfacing, slowDownMessage } from "./bottle-time.ts";
import { AgeGateStop, useBottleAge } from "./useBottleAge.ts";

/** The shortest the sending state lasts, so the button never flickers. */
const MIN_SENDING_MS = 600;
/** Every refusal shares one toast, so a new one replaces the last and sending clears it. */
const ERROR_TOAST_ID = "create-error";

const fields = ["message", "driftHours"] as const;

const driftPastExpiry = { field: "driftHours", kind: "drift_past_expiry" } as const;

/**
 * The bottle form: the message and its drift, expiry and public choice, checked with the
 * shared schema (and the drift against the expiry) before it is thrown. `onThrown` gets the
 * drift hours once the server has the bottle; `thrown` keeps the form disabled afterwards.
 */
export function useThrowForm(thrown: boolean, onThrown: (driftHours: number) => void) {
  const { LL, locale } = useI18n();
  const t = LL.create;
  const send = trpc.bottles.throw.useMutation();
  // Solved in the background while the writer writes.
  const pow = usePow("throw");
  const age = useBottleAge();
  // What was being written in this tab and not thrown comes back into the box.
  const [draft] = useState(bottleDraft.peek);
  const input = (values: {
    message: string;
    driftHours: number;
    isPublic: boolean;
    expiryDays: number;
  }) => createBottleInput.safeParse({ ...values, timeZone: browserTimeZone(), locale });

  const refuse = (title: string, description: string) =>
    toast.error(title, { id: ERROR_TOAST_ID, description });

  const kit = useSchemaForm({
    defaultValues: {
      message: draft,
      driftHours: 0,
      isPublic: false,
      expiryDays: DEFAULT_EXPIRY_DAYS as number,
    },
    fields,
    check: (values) => {
      const parsed = input(values);
      const issues: Issue[] = parsed.success ? [] : toFieldIssues(parsed.error.issues);
      if (expiresBeforeSurfacing(Date.now(), values.driftHours, values.expiryDays)) {
        issues.push(driftPastExpiry);
      }
      return issues;
    },
    onInvalid: (issues) => {
      const message = issues.find((issue) => issue.field === "message");
      if (message?.kind === "required") refuse(t.emptyTitle(), t.emptyBody());
      else if (!message && !issues.some((issue) => issue.field === "driftHours")) {
        refuse(t.failedTitle(), t.failedBody());
      }
    },
    send: async (values) => {
      toast.dismiss(ERROR_TOAST_ID);
      const parsed = input(values);
      if (!parsed.success) throw parsed.error;
      requireCookies();
      await age.ensure();
      await pow.run((solution) => send.mutateAsync({ ...parsed.data, pow: solution }));
      return parsed.data.driftHours;
    },
    minBusyMs: MIN_SENDING_MS,
    onSent: (driftHours) => onThrown(driftHours),
    onFailed: (error, form) => {
      // Whatever the writer typed stays; only the problem is shown.
      const code = appCodeOf(error);
      if (error instanceof CookiesBlocked) {
        refuse(LL.common.cookies.title(), LL.common.cookies.create());
        form.focus("submit");
      } else if (error instanceof AgeGateStop) {
        // Under 13: the page says so above the form. Closed unanswered: nothing to say.
        if (error.standing === "refused") age.showRefusal();
        else form.focus("submit");
      } else if (code === "AGE_REFUSED") {
        age.refusedNow();
        age.showRefusal();
      } else if (code === "CONTENT_REJECTED") {
        refuse(t.rejectedTitle(), t.rejectedBody());
        form.show([{ field: "message", kind: "rejected" }]);
      } else if (code === "CONTENT_HAS_CONTACT") {
        refuse(t.contactTitle(), LL.errors.contentHasContact());
        form.show([{ field: "message", kind: "contact" }]);
      } else if (code === "SPAM_REPEATED") {
        refuse(t.repeatedTitle(), errorMessage(LL, error));
        form.focus("message");
      } else if (code === "RATE_LIMITED") {
        refuse(t.slowTitle(), slowDownMessage(LL, retryAfterOf(error)));
        form.focus("submit");
      } else if (code === "INVALID_INPUT") {
        const issues = fieldIssuesOf(error);
        const drift = issues.find((issue) => issue.field === "driftHours");
        refuse(t.failedTitle(), drift ? problemMessage(drift) : errorMessage(LL, error));
        form.show(issues);
      } else {
        refuse(t.failedTitle(), t.failedBody());
        form.focus("submit");
      }
    },
    describe: (issue) => problemMessage(issue),
    locked: thrown,
  });

  function problemMessage(issue: Issue): string {
    if (issue.kind === "rejected") return t.rejectedBody();
    if (issue.kind === "contact") return LL.errors.contentHasContact();
    if (issue.kind === "required") return t.emptyBody();
    if (issue.kind === "drift_past_expiry") return t.driftPastExpiry();
    return issueMessage(LL, issue);
  }

  const values = useStore(kit.form.store, (state) => state.values);
  // What is being written is kept in this tab until it is thrown, so a reload (a phone's pull to
  // refresh), a wrong tap in the menu or a resting page loses none of it.
  useEffect(() => {
    if (thrown) bottleDraft.forget();
    else bottleDraft.keep(values.message);
  }, [thrown, values.message]);
  const thrownDrift = useStore(kit.form.store, (state) => state.fieldMeta.driftHours?.errors[0]);
  return {
    ...kit,
    age,
    values,
    driftError: isIssue(thrownDrift) ? thrownDrift : undefined,
    driftPastExpiry,
    powWorking: pow.working,
  };
}
