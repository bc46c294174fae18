import { Dialog } from "radix-ui";
import type { ReactNode } from "react";
import { focusOnClose } from "../lib/focus.ts";
import "./dialog.css";

/**
 * A dialog over the dimmed page (Radix's), opened by state rather than by a trigger, so
 * `returnFocus` names what takes focus when it closes. A dialog without a Dialog.Description
 * says so with `undescribed`; one without a Dialog.Title names its heading in `labelledBy`.
 */
export function Modal({
  open,
  onOpenChange,
  className,
  labelledBy,
  undescribed = false,
  returnFocus,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  className: string;
  labelledBy?: string;
  undescribed?: boolean;
  returnFocus?: () => HTMLElement | null | undefined;
  children: ReactNode;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className={className}
          // Given only when set: Radix names the dialog by its Title and Description otherwise.
          {...(labelledBy ? { "aria-labelledby": labelledBy } : {})}
          {...(undescribed ? { "aria-describedby": undefined } : {})}
          onCloseAutoFocus={focusOnClose(returnFocus)}
        >
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
