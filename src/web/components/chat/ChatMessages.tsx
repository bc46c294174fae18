import { CircleX, Flag, MessagesSquare } from "lucide-react";
import { useLayoutEffect, useRef, useState } from "react";
import { type ChatMessage, chatReportReasons } from "../../../common/chat.ts";
import { countryName, flagOf } from "../../../common/country.ts";
import type { Locale } from "../../../common/locales.ts";
import type { TargetLanguage } from "../../../common/translation.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { ReportDialog } from "../ReportDialog.tsx";
import {
  TranslateMenu,
  TranslationNote,
  translateWithToasts,
  useOfferedLanguages,
} from "../TranslateMenu.tsx";
import type { ChatEntry } from "./useRandomChat.ts";

/** How close to the bottom (px) still counts as "reading the latest", so new lines scroll in. */
const STICK_TO_BOTTOM_PX = 120;

interface Translated {
  text: string;
  target: TargetLanguage;
}

function timeOf(timestamp: number, locale: Locale): { text: string; iso: string } {
  const date = new Date(timestamp);
  return {
    text: new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit" }).format(date),
    iso: date.toISOString(),
  };
}

/**
 * The conversation: own messages on the right, the partner's on the left (with country, flag,
 * time, report and translate), system lines centred in red; "no messages yet" when empty.
 */
export function ChatMessages({ entries }: { entries: ChatEntry[] }) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const scroller = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);

  const [translations, setTranslations] = useState<Record<string, Translated>>({});
  const [originals, setOriginals] = useState<Record<string, boolean>>({});
  const [translatingId, setTranslatingId] = useState<string | null>(null);
  const translate = trpc.chat.translate.useMutation();
  const offered = useOfferedLanguages();

  const [reporting, setReporting] = useState<string | null>(null);
  const report = trpc.chat.report.useMutation();
  const lastReported = useRef<string | null>(null);
  const reportButtons = useRef(new Map<string, HTMLButtonElement>());

  const last = entries.at(-1);
  const lastKey = last ? (last.kind === "message" ? last.message.id : last.id) : "";
  const lastIsMine = last?.kind === "message" && last.message.from === "me";

  // Follow the conversation while the reader is at the bottom, and always after their own line.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a line is added.
  useLayoutEffect(() => {
    const box = scroller.current;
    if (!box) return;
    if (stuck.current || lastIsMine) box.scrollTop = box.scrollHeight;
  }, [lastKey]);

  const onScroll = () => {
    const box = scroller.current;
    if (!box) return;
    stuck.current = box.scrollHeight - box.scrollTop - box.clientHeight < STICK_TO_BOTTOM_PX;
  };

  const onTranslate = async (message: ChatMessage, target: TargetLanguage) => {
    // One translation at a time (spec 5).
    if (translatingId !== null) return;
    setTranslatingId(message.id);
    try {
      await translateWithToasts(
        LL,
        target,
        () => translate.mutateAsync({ messageId: message.id, target }),
        (result) => {
          setTranslations((all) => ({ ...all, [message.id]: result }));
          setOriginals((all) => ({ ...all, [message.id]: false }));
        },
      );
    } finally {
      setTranslatingId(null);
    }
  };

  return (
    <div className="chat-messages" ref={scroller} onScroll={onScroll}>
      {entries.length === 0 ? (
        <div className="chat-empty">
          <MessagesSquare aria-hidden="true" />
          <p className="chat-empty__title">{t.empty()}</p>
          <p className="chat-empty__hint">{t.emptyHint()}</p>
        </div>
      ) : null}
      <ol className="chat-list" role="log" aria-label={t.messages()}>
        {entries.map((entry) => {
          if (entry.kind === "system") {
            return (
              <li key={entry.id} className="chat-msg chat-msg--system">
                <CircleX aria-hidden="true" />
                <span>{t[entry.text]()}</span>
              </li>
            );
          }
          const { message } = entry;
          const time = timeOf(message.timestamp, locale);
          if (message.from === "me") {
            return (
              <li key={message.id} className="chat-msg chat-msg--me">
                <span className="visually-hidden">{t.you()}: </span>
                <p className="chat-msg__bubble">{message.content}</p>
                <time className="chat-msg__time" dateTime={time.iso}>
                  {time.text}
                </time>
              </li>
            );
          }
          const country = countryName(message.countryCode, locale);
          const translation = translations[message.id];
          const showing = translation && !originals[message.id] ? translation : undefined;
          return (
            <li key={message.id} className="chat-msg chat-msg--partner">
              <p className="chat-msg__meta">
                <span className="chat-msg__flag" aria-hidden="true">
                  {flagOf(message.countryCode)}
                </span>
                <span className="chat-msg__country">
                  <span className="visually-hidden">{t.partnerSaid({ country })}</span>
                  <span aria-hidden="true">{country}</span>
                </span>
                <time className="chat-msg__time" dateTime={time.iso}>
                  {time.text}
                </time>
              </p>
              <p className="chat-msg__bubble" lang={showing?.target}>
                {showing ? showing.text : message.content}
              </p>
              {translation && (
                <TranslationNote
                  target={translation.target}
                  showingOriginal={!showing}
                  onToggle={() =>
                    setOriginals((all) => ({ ...all, [message.id]: !all[message.id] }))
                  }
                  className="chat-msg__translated"
                  buttonClassName="chat-msg__link"
                />
              )}
              <div className="chat-msg__actions">
                <TranslateMenu
                  onTranslate={(target) => void onTranslate(message, target)}
                  busy={translatingId === message.id}
                  locked={translatingId !== null}
                  current={showing?.target}
                  offered={offered}
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
                  ref={(element) => {
                    if (element) reportButtons.current.set(message.id, element);
                    else reportButtons.current.delete(message.id);
                  }}
                  onClick={() => {
                    lastReported.current = message.id;
                    setReporting(message.id);
                  }}
                >
                  <Flag aria-hidden="true" />
                  <span aria-hidden="true">{LL.report.report()}</span>
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <ReportDialog
        open={reporting !== null}
        onOpenChange={(open) => {
          if (!open) setReporting(null);
        }}
        reasons={chatReportReasons}
        reasonLabel={(reason) => t.reasons[reason]()}
        title={t.reportTitle()}
        lead={t.reportLead()}
        submit={async (reason) => {
          if (reporting !== null) await report.mutateAsync({ messageId: reporting, reason });
        }}
        returnFocus={() =>
          lastReported.current ? reportButtons.current.get(lastReported.current) : undefined
        }
      />
    </div>
  );
}
