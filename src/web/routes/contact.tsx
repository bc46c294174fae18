import { useStore } from "@tanstack/react-form";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { CONTACT_LIMITS, type ContactInput, contactInput } from "../../common/contact.ts";
import { toFieldIssues } from "../../common/errors.ts";
import { SubmitRow } from "../components/form/FormParts.tsx";
import { SchemaForm, TextFields, textField } from "../components/form/SchemaForm.tsx";
import { useSchemaForm } from "../components/form/useSchemaForm.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { CircleCheck, Mail, Send } from "../icons.ts";
import { contactDraft } from "../lib/drafts.ts";
import { errorMessage, fieldIssuesOf } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";
import { usePow } from "../lib/pow.ts";
import { siteConfig } from "../lib/site.ts";
import { trpc } from "../lib/trpc.ts";
import "./contact.css";

/** The shortest the sending state lasts, so it never flickers. */
const MIN_SENDING_MS = 1000;

const fields = ["name", "email", "message"] as const;
const blank: ContactInput = { name: "", email: "", message: "" };

export function ContactPage() {
  const { LL } = useI18n();
  const t = LL.contact;
  const email = siteConfig().contactEmail;
  const [sent, setSent] = useState(false);
  const send = trpc.contact.send.useMutation();
  const pow = usePow("contact");
  // What was being written in this tab and not sent comes back into the box.
  const [draft] = useState(contactDraft.peek);
  const { form, state } = useSchemaForm({
    defaultValues: { ...blank, message: draft },
    fields,
    check: (values) => {
      setSent(false);
      const parsed = contactInput.safeParse(values);
      return parsed.success ? [] : toFieldIssues(parsed.error.issues);
    },
    send: (values) => {
      const input = contactInput.parse(values);
      return pow.run((solution) => send.mutateAsync({ ...input, pow: solution }));
    },
    minBusyMs: MIN_SENDING_MS,
    onSent: (_, controls) => {
      controls.clear(...fields);
      setSent(true);
      controls.focus("submit");
      toast.success(t.sentTitle(), { description: t.sentBody() });
    },
    onFailed: (error, controls) => {
      // Whatever the visitor typed stays; only the problems are shown.
      toast.error(t.failedTitle(), { description: errorMessage(LL, error) });
      controls.show(fieldIssuesOf(error));
    },
  });

  // Kept as it is written; sending clears the box, and so what is kept.
  const message = useStore(form.store, (store) => store.values.message);
  useEffect(() => contactDraft.keep(message), [message]);

  const nameField = textField("name", t.name(), CONTACT_LIMITS.name, {
    autoComplete: "name",
    placeholder: t.namePlaceholder(),
  });
  const emailField = textField("email", t.email(), CONTACT_LIMITS.email, {
    type: "email",
    autoComplete: "email",
    placeholder: t.emailPlaceholder(),
  });
  const messageField = textField("message", t.message(), CONTACT_LIMITS.message, {
    rows: 7,
    placeholder: t.messagePlaceholder(),
    counter: { near: false },
  });
  const [altBefore, altAfter] = around((address) => t.alternative({ email: address }));

  return (
    <div className="container--narrow contact">
      <PageIntro title={t.title()}>{t.lead()}</PageIntro>

      <SchemaForm form={form} state={state} className="card contact__form" label={t.formLabel()}>
        <p className="contact__required">{t.allRequired()}</p>
        <div className="contact__row">
          <TextFields form={form} fields={[nameField, emailField]} />
        </div>
        <TextFields form={form} fields={[messageField]} />
        <SubmitRow
          labels={[t.send(), pow.working ? LL.pow.working() : t.sending()]}
          icon={Send}
          large
        />
        <div role="status" className="contact__status">
          {sent && (
            <p className="contact__sent">
              <CircleCheck aria-hidden="true" />
              <span>
                <strong>{t.sentTitle()}</strong> {t.sentBody()}
              </span>
            </p>
          )}
        </div>
      </SchemaForm>

      {email && (
        <p className="contact__alternative">
          <Mail aria-hidden="true" />
          <span>
            {altBefore}
            <a href={`mailto:${email}`}>{email}</a>
            {altAfter}
          </span>
        </p>
      )}
    </div>
  );
}
