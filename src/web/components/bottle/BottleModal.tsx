import { Dialog } from "radix-ui";
import type { ReactNode } from "react";
import { X } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { Modal } from "../Modal.tsx";
import "./BottleModal.css";

/**
 * The dialog a bottle's card opens in, over a dimmed sea (Public Bottles, the home page's
 * floating bottles). It is named by the heading whose id is `labelledBy`; `returnFocus` names
 * what takes focus when it closes (there is no Dialog.Trigger).
 */
export function BottleModal({
  open,
  onOpenChange,
  labelledBy,
  returnFocus,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  labelledBy: string;
  returnFocus?: () => HTMLElement | null | undefined;
  children: ReactNode;
}) {
  const { LL } = useI18n();
  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      className="dialog bottle-modal"
      labelledBy={labelledBy}
      undescribed
      returnFocus={returnFocus}
    >
      {/* First in order, so it takes focus when the dialog opens. */}
      <Dialog.Close className="bottle-modal__close">
        <X aria-hidden="true" />
        <span className="visually-hidden">{LL.common.close()}</span>
      </Dialog.Close>
      {children}
    </Modal>
  );
}
