import { LoaderCircle, type LucideIcon, TriangleAlert } from "lucide-react";
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
