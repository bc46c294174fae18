import { LoaderCircle, TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import { useFormState } from "./context.ts";

/** The form's send button: a spinner and its busy words while the form is sending. */
export function SubmitButton({
  label,
  busyLabel,
  icon,
  className,
}: {
  label: string;
  busyLabel: string;
  icon: ReactNode;
  className: string;
}) {
  const form = useFormState();
  return (
    <button type="submit" ref={form.register("submit")} className={className} disabled={form.busy}>
      {form.busy ? <LoaderCircle aria-hidden="true" className="spinner" /> : icon}
      {form.busy ? busyLabel : label}
    </button>
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
