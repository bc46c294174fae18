import { Flag, LoaderCircle } from "lucide-react";
import { Dialog, RadioGroup } from "radix-ui";
import { type FormEvent, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { appCodeOf, errorMessage } from "../lib/errors.ts";
import { focusOnClose } from "../lib/focus.ts";
import { useI18n } from "../lib/i18n.tsx";
import "./dialog.css";
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
  /** Sends the report; the dialog closes and thanks the reader when it resolves. */
  submit: (reason: Reason) => Promise<unknown>;
  /** The failure toast's text when the reported thing is gone (otherwise the generic one). */
  notFound?: string;
  /** When given, a submit refused for want of an account closes the dialog and calls this. */
  onSignInNeeded?: () => void;
  /** What takes focus back when the dialog closes (when it is opened without a Radix trigger). */
  returnFocus?: () => HTMLElement | null | undefined;
}

/** Asks why something should be looked at, and sends the report. */
export function ReportDialog<Reason extends string>({
  open,
  onOpenChange,
  reasons,
  reasonLabel,
  title,
  lead,
  submit,
  notFound,
  onSignInNeeded,
  returnFocus,
}: ReportDialogProps<Reason>) {
  const { LL } = useI18n();
  const t = LL.report;
  const id = useId();
  const [reason, setReason] = useState<Reason>();
  const [missing, setMissing] = useState(false);
  const [pending, setPending] = useState(false);
  const firstRadio = useRef<HTMLButtonElement>(null);

  const changeOpen = (next: boolean) => {
    if (!next && pending) return;
    if (!next) {
      setReason(undefined);
      setMissing(false);
    }
    onOpenChange(next);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    if (!reason) {
      setMissing(true);
      firstRadio.current?.focus();
      return;
    }
    setPending(true);
    try {
      await submit(reason);
    } catch (error) {
      setPending(false);
      const code = appCodeOf(error);
      if (code === "UNAUTHORIZED" && onSignInNeeded) {
        changeOpen(false);
        onSignInNeeded();
        return;
      }
      let description: string = t.failedBody();
      if (code === "NOT_FOUND" && notFound !== undefined) description = notFound;
      if (code === "RATE_LIMITED") description = errorMessage(LL, error);
      toast.error(t.failedTitle(), { description });
      return;
    }
    setPending(false);
    changeOpen(false);
    toast.success(t.submittedTitle(), { description: t.submittedBody() });
  };

  const legendId = `${id}-legend`;
  const errorId = `${id}-error`;

  return (
    <Dialog.Root open={open} onOpenChange={changeOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog report-dialog"
          onCloseAutoFocus={focusOnClose(returnFocus)}
        >
          <div className="dialog__icon dialog__icon--danger" aria-hidden="true">
            <Flag />
          </div>
          <Dialog.Title className="dialog__title">{title}</Dialog.Title>
          <Dialog.Description className="dialog__body">{lead}</Dialog.Description>
          <form noValidate onSubmit={onSubmit} aria-busy={pending}>
            <p id={legendId} className="report-dialog__legend">
              {t.reason()}
            </p>
            <RadioGroup.Root
              className="report-reasons"
              aria-labelledby={legendId}
              aria-describedby={missing ? errorId : undefined}
              aria-invalid={missing ? true : undefined}
              aria-required="true"
              value={reason ?? ""}
              onValueChange={(value) => {
                const chosen = reasons.find((r) => r === value);
                if (chosen === undefined) return;
                setReason(chosen);
                setMissing(false);
              }}
              disabled={pending}
            >
              {reasons.map((value, index) => (
                <div key={value} className="report-reason">
                  <RadioGroup.Item
                    id={`${id}-${value}`}
                    value={value}
                    className="report-reason__radio"
                    ref={index === 0 ? firstRadio : undefined}
                  >
                    <RadioGroup.Indicator className="report-reason__dot" />
                  </RadioGroup.Item>
                  <label htmlFor={`${id}-${value}`} className="report-reason__label">
                    {reasonLabel(value)}
                  </label>
                </div>
              ))}
            </RadioGroup.Root>
            {missing && (
              <p id={errorId} className="field__error report-dialog__error">
                {t.choose()}
              </p>
            )}
            <div className="dialog__actions">
              <Dialog.Close className="button button--ghost" disabled={pending}>
                {t.cancel()}
              </Dialog.Close>
              <button type="submit" className="button report-dialog__submit" disabled={pending}>
                {pending ? (
                  <LoaderCircle aria-hidden="true" className="spinner" />
                ) : (
                  <Flag aria-hidden="true" />
                )}
                {pending ? t.submitting() : t.submit()}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
