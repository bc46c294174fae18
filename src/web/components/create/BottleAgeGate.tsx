import { Dialog } from "radix-ui";
import { HeartHandshake, LifeBuoy } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { AgeAnswers } from "../AgeAnswers.tsx";
import { Modal } from "../Modal.tsx";
import type { BottleAge } from "./useBottleAge.ts";
import "./age.css";

/**
 * The bottles' age gate on the create page: the question, asked once in a dialog before the
 * first throw, and the kind answer to "under 13" above the form, which keeps what was written.
 */
export function BottleAgeGate({ gate }: { gate: BottleAge }) {
  const t = useI18n().LL.create.age;
  return (
    <>
      {gate.refused && (
        <div
          className="page-notice create__age-refused"
          role="status"
          tabIndex={-1}
          ref={gate.refusal}
        >
          <HeartHandshake aria-hidden="true" />
          <div>
            <p className="page-notice__title">{t.refusedTitle()}</p>
            <p>{t.refusedBody()}</p>
          </div>
        </div>
      )}
      <Modal
        open={gate.asking}
        onOpenChange={(open) => {
          if (!open && !gate.busy) gate.answer(null);
        }}
        className="dialog"
        // "Under 13": the refusal above the form takes the focus; otherwise Radix's default.
        returnFocus={() => gate.refusal.current}
      >
        <div className="dialog__icon" aria-hidden="true">
          <LifeBuoy />
        </div>
        <Dialog.Title className="dialog__title">{t.title()}</Dialog.Title>
        <Dialog.Description className="dialog__body">{t.body()}</Dialog.Description>
        {/* The likely answer first: it takes the focus. */}
        <AgeAnswers
          className="dialog__actions"
          busy={gate.busy}
          older={t.atLeast13()}
          younger={t.under13()}
          onAnswer={gate.answer}
        />
      </Modal>
    </>
  );
}
