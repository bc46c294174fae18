import { Dialog, RadioGroup } from "radix-ui";
import { toast } from "sonner";
import { Flag } from "../icons.ts";
import { appCodeOf, errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { useFieldContext, useFormState } from "./form/context.ts";
import { DialogActions } from "./form/FormParts.tsx";
import { isIssue } from "./form/issues.ts";
import { SchemaForm } from "./form/SchemaForm.tsx";
import { useSchemaForm } from "./form/useSchemaForm.ts";
import { Modal } from "./Modal.tsx";
import "./ReportDialog.css";

export interface ReportDialogProps<Reason extends string> {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The reasons offered, in order. */
  reasons: readonly Reason[];
  reasonLabel: (reason: Reason) => string;
  /** The dialog's title and lead, which name what is reported. */
  title: string;
  lead: string;
  /** The reported words, quoted under the lead (a chat that has already ended). */
  quote?: string | undefined;
  /** Sends the report; the dialog closes and thanks the reader when it resolves. */
  submit: (reason: Reason) => Promise<unknown>;
  /** What the toast says of the server's answer (otherwise "Report submitted" and thanks). */
  thanks?: (answer: unknown) => { title: string; description: string };
  /** The failure toast's text when the reported thing is gone (otherwise the generic one). */
  notFound?: string;
  /** When given, a submit refused for want of an account closes the dialog and calls this. */
  onSignInNeeded?: () => void;
  /** What takes focus back when the dialog closes (when it is opened without a Radix trigger). */
  returnFocus?: () => HTMLElement | null | undefined;
}

/** The reasons as radio buttons; the first takes focus when none was chosen. */
function ReasonField<Reason extends string>({
  reasons,
  reasonLabel,
}: Pick<ReportDialogProps<Reason>, "reasons" | "reasonLabel">) {
  const { LL } = useI18n();
  const field = useFieldContext<string>();
  const form = useFormState();
  const id = `${form.id}-reason`;
  const [first] = field.state.meta.errors;
  const missing = isIssue(first);
  return (
    <>
      <p id={`${id}-legend`} className="report-dialog__legend">
        {LL.report.reason()}
      </p>
      <RadioGroup.Root
        className="report-reasons"
        aria-labelledby={`${id}-legend`}
        aria-describedby={missing ? `${id}-error` : undefined}
        aria-invalid={missing ? true : undefined}
        aria-required="true"
        value={field.state.value}
        onValueChange={(value) => {
          field.handleChange(value);
          field.setMeta((meta) => ({ ...meta, errorMap: {} }));
        }}
        disabled={form.busy}
      >
        {reasons.map((value, index) => {
          // Child safety says what it is for and that it acts at once.
          const urgent = value === "childSafety";
          return (
            <div key={value} className={urgent ? "report-reason is-urgent" : "report-reason"}>
              <RadioGroup.Item
                id={`${id}-${value}`}
                value={value}
                className="report-reason__radio"
                ref={index === 0 ? form.register(field.name) : undefined}
                aria-describedby={urgent ? `${id}-${value}-hint` : undefined}
              >
                <RadioGroup.Indicator className="report-reason__dot" />
              </RadioGroup.Item>
              <div className="report-reason__text">
                <label htmlFor={`${id}-${value}`} className="report-reason__label">
                  {reasonLabel(value)}
                </label>
                {urgent && (
                  <p id={`${id}-${value}-hint`} className="report-reason__hint">
                    {LL.report.childSafetyHint()}
                  </p>
                )}
              </div>
            </div>
          );
        })}
      </RadioGroup.Root>
      {missing && (
        <p id={`${id}-error`} className="field__error report-dialog__error">
          {LL.report.choose()}
        </p>
      )}
    </>
  );
}

/** Asks why something should be looked at, and sends the report. */
export function ReportDialog<Reason extends string>({
  open,
  onOpenChange,
  reasons,
  reasonLabel,
  title,
  lead,
  quote,
  submit,
  thanks,
  notFound,
  onSignInNeeded,
  returnFocus,
}: ReportDialogProps<Reason>) {
  const { LL } = useI18n();
  const t = LL.report;
  const chosen = (value: string) => reasons.find((reason) => reason === value);
  const { form, state, busy } = useSchemaForm({
    defaultValues: { reason: "" },
    fields: ["reason"],
    check: ({ reason }) => (chosen(reason) ? [] : [{ field: "reason", kind: "required" }]),
    send: ({ reason }) => {
      const picked = chosen(reason);
      return picked ? submit(picked) : Promise.reject(new Error("no reason chosen"));
    },
    onSent: (answer) => {
      close();
      const said = thanks?.(answer) ?? {
        title: t.submittedTitle(),
        description: t.submittedBody(),
      };
      toast.success(said.title, { description: said.description });
    },
    onFailed: (error) => {
      const code = appCodeOf(error);
      if (code === "UNAUTHORIZED" && onSignInNeeded) {
        close();
        onSignInNeeded();
        return;
      }
      let description: string = t.failedBody();
      if (code === "NOT_FOUND" && notFound !== undefined) description = notFound;
      if (code === "RATE_LIMITED") description = errorMessage(LL, error);
      toast.error(t.failedTitle(), { description });
    },
  });

  // Closing forgets the reason chosen; a report on its way is not abandoned halfway.
  function close() {
    form.reset();
    onOpenChange(false);
  }
  const changeOpen = (next: boolean) => {
    if (next) onOpenChange(true);
    else if (!busy) close();
  };

  return (
    <Modal
      open={open}
      onOpenChange={changeOpen}
      className="dialog report-dialog"
      returnFocus={returnFocus}
    >
      <div className="dialog__icon dialog__icon--danger" aria-hidden="true">
        <Flag />
      </div>
      <Dialog.Title className="dialog__title">{title}</Dialog.Title>
      <Dialog.Description className="dialog__body">{lead}</Dialog.Description>
      {quote !== undefined && <blockquote className="report-dialog__quote">{quote}</blockquote>}
      <SchemaForm form={form} state={state}>
        <form.AppField name="reason">
          {() => <ReasonField reasons={reasons} reasonLabel={reasonLabel} />}
        </form.AppField>
        <DialogActions close={Dialog.Close} labels={[t.submit(), t.submitting()]} icon={Flag} />
      </SchemaForm>
    </Modal>
  );
}
