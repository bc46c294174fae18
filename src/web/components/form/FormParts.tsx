import type { ComponentType, ReactNode } from "react";
import { LoaderCircle, type LucideIcon, TriangleAlert } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useFormState } from "./context.ts";

/**
 * The form's send button: its words and icon, or a spinner and its busy words (`labels`' second)
 * while the form is sending.
 */
export function SubmitButton({
  labels: [label, busyLabel],
  icon: Icon,
  className,
}: {
  labels: readonly [string, string];
  icon: LucideIcon;
  className: string;
}) {
  const form = useFormState();
  return (
    <button type="submit" ref={form.register("submit")} className={className} disabled={form.busy}>
      {form.busy ? (
        <LoaderCircle aria-hidden="true" className="spinner" />
      ) : (
        <Icon aria-hidden="true" />
      )}
      {form.busy ? busyLabel : label}
    </button>
  );
}

/** The send button in its row at the end of the form; `large` for a page's main form. */
export function SubmitRow({
  labels,
  icon,
  large = false,
}: {
  labels: readonly [string, string];
  icon: LucideIcon;
  large?: boolean;
}) {
  const className = large ? "button button--primary button--large" : "button button--primary";
  return (
    <div className="form-actions">
      <SubmitButton labels={labels} icon={icon} className={className} />
    </div>
  );
}

/** A dialog's closing control (Dialog.Close, AlertDialog.Cancel), drawn as a button. */
type CloseControl = ComponentType<{ className: string; disabled: boolean; children: ReactNode }>;

/** A dialog form's Cancel (with the dialog's own `close` control) and send button. */
export function DialogActions({
  close: Close,
  labels,
  icon,
}: {
  close: CloseControl;
  labels: readonly [string, string];
  icon: LucideIcon;
}) {
  const { LL } = useI18n();
  const form = useFormState();
  return (
    <div className="dialog__actions">
      <Close className="button button--ghost" disabled={form.busy}>
        {LL.common.cancel()}
      </Close>
      <SubmitButton labels={labels} icon={icon} className="button dialog__submit" />
    </div>
  );
}

/** The form-wide problem (wrong credentials, too many attempts, no connection). */
export function FormAlert() {
  const form = useFormState();
  return (
    <div role="alert" className="form-alert-region">
      {form.alert && (
        <p id={form.alertId} className="form-alert">
          <TriangleAlert aria-hidden="true" />
          <span>{form.alert}</span>
        </p>
      )}
    </div>
  );
}
