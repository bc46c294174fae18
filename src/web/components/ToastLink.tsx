import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { toast } from "sonner";
import { requestHeadingFocus } from "../lib/focus.ts";

/**
 * A link in a toast. Followed, the toast has said what it had to: it leaves rather than lie over
 * the new page's own buttons, and the new page's heading takes the focus the link had.
 */
export function ToastLink({
  to,
  toastId,
  children,
}: {
  to: string;
  /** The toast it sits in (its id), dismissed when the link is followed. */
  toastId: string;
  children: ReactNode;
}) {
  return (
    <Link
      to={to}
      className="toast-link"
      onClick={() => {
        requestHeadingFocus(true);
        toast.dismiss(toastId);
      }}
    >
      {children}
    </Link>
  );
}
