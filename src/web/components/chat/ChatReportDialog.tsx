import { Flag, LoaderCircle } from "lucide-react";
import { Dialog, RadioGroup } from "radix-ui";
import { type FormEvent, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { type ChatReportReason, chatReportReasons } from "../../../common/chat.ts";
import { appCodeOf, errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import "../dialog.css";

function isReason(value: string): value is ChatReportReason {
  return (chatReportReasons as ReadonlyArray<string>).includes(value);
}

/** Asks why a partner's message should be looked at, and sends the report. */
export function ChatReportDialog({
  messageId,
  onClose,
  returnFocus,
}: {
  /** The message being reported; null keeps the dialog closed. */
  messageId: string | null;
  onClose: () => void;
  /** What takes focus back when the dialog closes (it is opened without a Radix trigger). */
  returnFocus?: () => HTMLElement | null | undefined;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const id = useId();
  const [reason, setReason] = useState<ChatReportReason>();
  const [missing, setMissing] = useState(false);
  const report = trpc.chat.report.useMutation();
  const firstRadio = useRef<HTMLButtonElement>(null);

  const changeOpen = (next: boolean) => {
    if (next || report.isPending) return;
    setReason(undefined);
    setMissing(false);
    onClose();
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (report.isPending || messageId === null) return;
    if (!reason) {
      setMissing(true);
      firstRadio.current?.focus();
      return;
    }
    try {
      await report.mutateAsync({ messageId, reason });
      changeOpen(false);
      toast.success(t.reportedTitle(), { description: t.reportedBody() });
    } catch (error) {
      const description =
        appCodeOf(error) === "RATE_LIMITED" ? errorMessage(LL, error) : t.reportFailedBody();
      toast.error(t.reportFailedTitle(), { description });
    }
  };

  const legendId = `${id}-legend`;
  const errorId = `${id}-error`;

  return (
    <Dialog.Root open={messageId !== null} onOpenChange={changeOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog chat-report"
          onCloseAutoFocus={(event) => {
            const target = returnFocus?.();
            if (target?.isConnected) {
              event.preventDefault();
              target.focus();
            }
          }}
        >
          <div className="dialog__icon dialog__icon--danger" aria-hidden="true">
            <Flag />
          </div>
          <Dialog.Title className="dialog__title">{t.reportTitle()}</Dialog.Title>
          <Dialog.Description className="dialog__body">{t.reportLead()}</Dialog.Description>
          <form noValidate onSubmit={onSubmit} aria-busy={report.isPending}>
            <p id={legendId} className="chat-report__legend">
              {t.reportReason()}
            </p>
            <RadioGroup.Root
              className="chat-report__reasons"
              aria-labelledby={legendId}
              aria-describedby={missing ? errorId : undefined}
              aria-invalid={missing ? true : undefined}
              aria-required="true"
              value={reason ?? ""}
              onValueChange={(value) => {
                if (!isReason(value)) return;
                setReason(value);
                setMissing(false);
              }}
              disabled={report.isPending}
            >
              {chatReportReasons.map((value, index) => (
                <div key={value} className="chat-report__reason">
                  <RadioGroup.Item
                    id={`${id}-${value}`}
                    value={value}
                    className="chat-report__radio"
                    ref={index === 0 ? firstRadio : undefined}
                  >
                    <RadioGroup.Indicator className="chat-report__dot" />
                  </RadioGroup.Item>
                  <label htmlFor={`${id}-${value}`} className="chat-report__label">
                    {t.reasons[value]()}
                  </label>
                </div>
              ))}
            </RadioGroup.Root>
            {missing && (
              <p id={errorId} className="field__error chat-report__error">
                {t.reportChoose()}
              </p>
            )}
            <div className="dialog__actions">
              <Dialog.Close className="button button--ghost" disabled={report.isPending}>
                {t.reportCancel()}
              </Dialog.Close>
              <button
                type="submit"
                className="button chat-report__submit"
                disabled={report.isPending}
              >
                {report.isPending ? (
                  <LoaderCircle aria-hidden="true" className="chat-spin" />
                ) : (
                  <Flag aria-hidden="true" />
                )}
                {report.isPending ? t.reportSubmitting() : t.reportSubmit()}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
