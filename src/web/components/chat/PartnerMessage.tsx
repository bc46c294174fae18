import { useEffect } from "react";
import type { ChatMessage } from "../../../common/chat.ts";
import { countryName, flagOf } from "../../../common/country.ts";
import { Flag } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { TranslateMenu } from "../translate/TranslateMenu.tsx";
import { TranslationNote } from "../translate/TranslationNote.tsx";
import { useTextTranslation } from "../translate/useTextTranslation.ts";
import { ContactWarning } from "./ContactWarning.tsx";
import { MessageTime } from "./MessageTime.tsx";

/**
 * One line from the partner: their country and flag, the time, the text (or its translation),
 * and translate and report. `locked` is set while another line is being translated.
 */
export function PartnerMessage({
  message,
  locked,
  onTranslating,
  onReport,
  reportButtonRef,
}: {
  message: ChatMessage;
  locked: boolean;
  /** Tells the list when this line's translation starts and ends: one translates at a time. */
  onTranslating: (id: string, busy: boolean) => void;
  onReport: () => void;
  reportButtonRef: (element: HTMLButtonElement | null) => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const translate = trpc.chat.translate.useMutation();
  const utils = trpc.useUtils();
  const translation = useTextTranslation(
    message.content,
    () => utils.chat.translateTargets.fetch({ messageId: message.id }, { staleTime: Infinity }),
    (target) => translate.mutateAsync({ messageId: message.id, target }),
    locked,
  );
  const { busy } = translation;
  useEffect(() => onTranslating(message.id, busy), [busy, message.id, onTranslating]);

  const country = countryName(message.country.code, locale);
  return (
    <li className="chat-msg chat-msg--partner">
      <p className="chat-msg__meta">
        <span className="chat-msg__flag" aria-hidden="true">
          {flagOf(message.country.code)}
        </span>
        <span className="chat-msg__country">
          <span className="visually-hidden">{t.partnerSaid({ country })}</span>
          <span aria-hidden="true">{country}</span>
        </span>
        <MessageTime timestamp={message.timestamp} />
      </p>
      <p className="chat-msg__bubble" lang={translation.shownLanguage}>
        {translation.shownText}
      </p>
      {/* Shown as plain text, never a link: the warning says why. */}
      {message.contact && <ContactWarning />}
      <TranslationNote
        of={translation}
        className="chat-msg__translated"
        buttonClassName="chat-msg__link"
      />
      <div className="chat-msg__actions">
        <TranslateMenu
          of={translation}
          locked={locked}
          label={t.translateLabel()}
          triggerClassName="chat-action"
          contentClassName="chat-translate-menu"
          align="start"
          sideOffset={6}
        />
        <button
          type="button"
          className="chat-action"
          aria-label={t.reportLabel()}
          ref={reportButtonRef}
          onClick={onReport}
        >
          <Flag aria-hidden="true" />
          <span aria-hidden="true">{LL.report.report()}</span>
        </button>
      </div>
    </li>
  );
}
