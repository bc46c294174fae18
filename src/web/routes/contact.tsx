import { CircleCheck, LoaderCircle, Mail, Send } from "lucide-react";
import { type ChangeEvent, type FormEvent, useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { CONTACT_LIMITS, contactInput } from "../../common/contact.ts";
import { type FieldIssue, toFieldIssues } from "../../common/errors.ts";
import { CharacterCount } from "../components/CharacterCount.tsx";
import { PageIntro } from "../components/PageIntro.tsx";
import { errorMessage, fieldIssuesOf, issueMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";
import { siteConfig } from "../lib/site.ts";
import { trpc } from "../lib/trpc.ts";
import "./contact.css";

/** The shortest the sending state lasts, so it never flickers (spec 9: contact send delay). */
const MIN_SENDING_MS = 1000;

const fields = ["name", "email", "message"] as const;
type Field = (typeof fields)[number];
type Values = Record<Field, string>;
type Issues = Partial<Record<Field, FieldIssue>>;
/** What takes focus once the form is enabled again: the first invalid field, or the button. */
type FocusTarget = Field | "submit";

const emptyValues: Values = { name: "", email: "", message: "" };

function isField(value: string): value is Field {
  return (fields as ReadonlyArray<string>).includes(value);
}

/** The first problem of each field, in the order the form shows them. */
function byField(list: ReadonlyArray<FieldIssue>): Issues {
  const out: Issues = {};
  for (const issue of list) {
    if (isField(issue.field) && !out[issue.field]) out[issue.field] = issue;
  }
  return out;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function ContactPage() {
  const { LL } = useI18n();
  const email = siteConfig().contactEmail;
  const id = useId();
  const [values, setValues] = useState<Values>(emptyValues);
  const [issues, setIssues] = useState<Issues>({});
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [focusRequest, setFocusRequest] = useState<FocusTarget | null>(null);
  const send = trpc.contact.send.useMutation();
  const inputs = useRef<Partial<Record<Field, HTMLInputElement | HTMLTextAreaElement | null>>>({});
  const submitButton = useRef<HTMLButtonElement>(null);
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // Runs once the inputs are enabled again: a disabled control cannot take focus, and disabling
  // the focused button while sending drops focus to the page.
  useEffect(() => {
    if (!focusRequest || sending) return;
    if (focusRequest === "submit") submitButton.current?.focus();
    else inputs.current[focusRequest]?.focus();
    setFocusRequest(null);
  }, [focusRequest, sending]);

  const showIssues = (found: Issues) => {
    setIssues(found);
    setFocusRequest(fields.find((field) => found[field]) ?? "submit");
  };

  const onChange = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    const { name, value } = event.target;
    if (!isField(name)) return;
    setValues((current) => ({ ...current, [name]: value }));
    setIssues((current) => (current[name] ? { ...current, [name]: undefined } : current));
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sending) return;
    setSent(false);
    const parsed = contactInput.safeParse(values);
    if (!parsed.success) {
      showIssues(byField(toFieldIssues(parsed.error.issues)));
      return;
    }
    setIssues({});
    setSending(true);
    const started = Date.now();
    let failure: { error: unknown } | undefined;
    try {
      await send.mutateAsync(parsed.data);
    } catch (error) {
      failure = { error };
    }
    await wait(MIN_SENDING_MS - (Date.now() - started));
    if (!mounted.current) return;
    setSending(false);
    if (failure === undefined) {
      setValues(emptyValues);
      setSent(true);
      setFocusRequest("submit");
      toast.success(LL.contact.sentTitle(), { description: LL.contact.sentBody() });
      return;
    }
    // Whatever the visitor typed stays; only the problems are shown.
    toast.error(LL.contact.failedTitle(), { description: errorMessage(LL, failure.error) });
    showIssues(byField(fieldIssuesOf(failure.error)));
  };

  const [altBefore, altAfter] = around((email) => LL.contact.alternative({ email }));
  const counterId = `${id}-message-counter`;

  const field = (name: Field) => {
    const issue = issues[name];
    const errorId = `${id}-${name}-error`;
    const describedBy =
      [issue ? errorId : undefined, name === "message" ? counterId : undefined]
        .filter(Boolean)
        .join(" ") || undefined;
    return {
      inputProps: {
        id: `${id}-${name}`,
        name,
        value: values[name],
        onChange,
        required: true,
        disabled: sending,
        maxLength: CONTACT_LIMITS[name],
        "aria-invalid": issue ? true : undefined,
        "aria-describedby": describedBy,
        className: "field__input",
        ref: (element: HTMLInputElement | HTMLTextAreaElement | null) => {
          inputs.current[name] = element;
        },
      },
      label: (
        <label className="field__label" htmlFor={`${id}-${name}`}>
          {LL.contact[name]()}
        </label>
      ),
      error: issue ? (
        <p id={errorId} className="field__error">
          {issueMessage(LL, issue)}
        </p>
      ) : null,
    };
  };

  const nameField = field("name");
  const emailField = field("email");
  const messageField = field("message");

  return (
    <div className="container--narrow contact">
      <PageIntro title={LL.contact.title()}>{LL.contact.lead()}</PageIntro>

      <form
        className="card contact__form"
        noValidate
        onSubmit={onSubmit}
        aria-label={LL.contact.formLabel()}
        aria-busy={sending}
      >
        <p className="contact__required">{LL.contact.allRequired()}</p>
        <div className="contact__row">
          <div className="field">
            {nameField.label}
            <input
              {...nameField.inputProps}
              type="text"
              autoComplete="name"
              placeholder={LL.contact.namePlaceholder()}
            />
            {nameField.error}
          </div>
          <div className="field">
            {emailField.label}
            <input
              {...emailField.inputProps}
              type="email"
              inputMode="email"
              autoComplete="email"
              spellCheck={false}
              placeholder={LL.contact.emailPlaceholder()}
            />
            {emailField.error}
          </div>
        </div>
        <div className="field">
          {messageField.label}
          <textarea
            {...messageField.inputProps}
            rows={7}
            autoComplete="off"
            placeholder={LL.contact.messagePlaceholder()}
          />
          <div className="field__under">
            {messageField.error ?? <span />}
            <CharacterCount
              id={counterId}
              count={values.message.length}
              limit={CONTACT_LIMITS.message}
            />
          </div>
        </div>
        <div className="contact__actions">
          <button
            type="submit"
            ref={submitButton}
            className="button button--primary button--large contact__submit"
            disabled={sending}
          >
            {sending ? (
              <LoaderCircle aria-hidden="true" className="spinner" />
            ) : (
              <Send aria-hidden="true" />
            )}
            {sending ? LL.contact.sending() : LL.contact.send()}
          </button>
        </div>
        <div role="status" className="contact__status">
          {sent && (
            <p className="contact__sent">
              <CircleCheck aria-hidden="true" />
              <span>
                <strong>{LL.contact.sentTitle()}</strong> {LL.contact.sentBody()}
              </span>
            </p>
          )}
        </div>
      </form>

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
