import { Dialog } from "radix-ui";
import { useRef, useState } from "react";
import { toast } from "sonner";
import type { MyBottle } from "../../../common/bottles.ts";
import { Anchor, LoaderCircle, TriangleAlert } from "../../icons.ts";
import { appCodeOf, errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { Modal } from "../Modal.tsx";
import { myBottleHeadingId } from "./MyBottleCard.tsx";

/**
 * "Sink this bottle?": the writer confirms, the server sinks it, then the dialog closes and the
 * card shows it sunk. A refusal is said in the dialog, which stays open to try again or cancel.
 */
export function SinkDialog({
  bottle,
  onClose,
  sink,
}: {
  /** The bottle asked about; null when the dialog is closed. */
  bottle: MyBottle | null;
  onClose: () => void;
  sink: (bottleId: number) => Promise<unknown>;
}) {
  const { LL } = useI18n();
  const t = LL.myBottles;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  // The bottle whose card takes focus back: its Sink button is gone once it has sunk.
  const last = useRef<number | null>(null);
  if (bottle) last.current = bottle.id;

  const close = () => {
    if (busy) return; // A sinking on its way is not abandoned halfway.
    setProblem(undefined);
    onClose();
  };

  const confirm = async () => {
    if (!bottle || busy) return;
    setBusy(true);
    setProblem(undefined);
    try {
      await sink(bottle.id);
      setBusy(false);
      onClose();
      toast.success(t.sunkToast());
    } catch (error) {
      setBusy(false);
      setProblem(appCodeOf(error) === "NOT_FOUND" ? t.sinkGone() : errorMessage(LL, error));
    }
  };

  return (
    <Modal
      open={bottle !== null}
      onOpenChange={(open) => {
        if (!open) close();
      }}
      className="dialog sink-dialog"
      // Its card, or the page when the card has left the list.
      returnFocus={() =>
        (last.current === null ? null : document.getElementById(myBottleHeadingId(last.current))) ??
        document.getElementById("main")
      }
    >
      <div className="dialog__icon dialog__icon--danger" aria-hidden="true">
        <Anchor />
      </div>
      <Dialog.Title className="dialog__title">{t.sinkTitle()}</Dialog.Title>
      <Dialog.Description className="dialog__body">{t.sinkBody()}</Dialog.Description>
      {/* Which bottle: the cards look alike but for their words. */}
      {bottle && <blockquote className="sink-dialog__quote">{bottle.message}</blockquote>}
      <div role="alert" className="form-alert-region">
        {problem && (
          <p className="form-alert">
            <TriangleAlert aria-hidden="true" />
            <span className="sink-problem">
              <strong>{t.sinkFailed()}</strong>
              <span>{problem}</span>
            </span>
          </p>
        )}
      </div>
      <div className="dialog__actions">
        <Dialog.Close className="button button--ghost" disabled={busy}>
          {LL.common.cancel()}
        </Dialog.Close>
        <button
          type="button"
          className="button dialog__submit"
          disabled={busy}
          onClick={() => void confirm()}
        >
          {busy ? (
            <LoaderCircle aria-hidden="true" className="spinner" />
          ) : (
            <Anchor aria-hidden="true" />
          )}
          {busy ? t.sinking() : t.sink()}
        </button>
      </div>
    </Modal>
  );
}
