import { Link, useLocation } from "@tanstack/react-router";
import { Dialog } from "radix-ui";
import type { BottleCard } from "../../common/bottles.ts";
import { LogIn } from "../icons.ts";
import { signInSearch } from "../lib/account.ts";
import { useI18n } from "../lib/i18n.tsx";
import { keepBottleForReturn } from "../lib/returning-bottle.ts";
import { Modal } from "./Modal.tsx";

export interface SignInRequiredDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Why an account is needed here; a general explanation when absent. */
  reason?: string;
  /** What takes focus back when the dialog closes: it is opened without a Radix trigger. */
  returnFocus?: () => HTMLElement | null | undefined;
  /** The bottle the visitor was reading: this page shows it again when they come back. */
  bottle?: BottleCard;
}

/**
 * Shown when a signed-out visitor tries something that needs an account (like, report).
 * Its button leads to /auth, which brings the visitor back to this page afterwards, and to the
 * bottle they were reading.
 */
export function SignInRequiredDialog({
  open,
  onOpenChange,
  reason,
  returnFocus,
  bottle,
}: SignInRequiredDialogProps) {
  const { LL } = useI18n();
  const { pathname, searchStr } = useLocation();
  return (
    <Modal open={open} onOpenChange={onOpenChange} className="dialog" returnFocus={returnFocus}>
      <div className="dialog__icon" aria-hidden="true">
        <LogIn />
      </div>
      <Dialog.Title className="dialog__title">{LL.auth.requiredTitle()}</Dialog.Title>
      <Dialog.Description className="dialog__body">
        {reason ?? LL.auth.requiredBody()}
      </Dialog.Description>
      <div className="dialog__actions">
        <Dialog.Close className="button button--ghost">{LL.auth.requiredCancel()}</Dialog.Close>
        <Link
          to="/auth"
          search={signInSearch(pathname, searchStr)}
          className="button button--primary"
          onClick={() => {
            if (bottle) keepBottleForReturn(pathname, bottle);
            onOpenChange(false);
          }}
        >
          <LogIn aria-hidden="true" />
          {LL.auth.requiredAction()}
        </Link>
      </div>
    </Modal>
  );
}
