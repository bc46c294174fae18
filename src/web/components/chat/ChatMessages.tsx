import {
  Check,
  ChevronDown,
  CircleX,
  Flag,
  Languages,
  LoaderCircle,
  MessagesSquare,
  Redo2,
  Undo2,
} from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { useLayoutEffect, useRef, useState } from "react";
import { toast } from "sonner";
import type { TranslationFunctions } from "../../../../i18n/i18n-types";
import type { ChatMessage } from "../../../common/chat.ts";
import { countryName, flagOf } from "../../../common/country.ts";
import type { Locale } from "../../../common/locales.ts";
import { type TargetLanguage, targetLanguages } from "../../../common/translation.ts";
import { appCodeOf, errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { ChatReportDialog } from "./ChatReportDialog.tsx";
import type { ChatEntry } from "./useRandomChat.ts";

type LanguageKey = keyof TranslationFunctions["randomChat"]["languages"];

/** The translate menu's languages (spec 9), each in its own name and under its dictionary key. */
const languages: Record<TargetLanguage, { autonym: string; key: LanguageKey }> = {
  en: { autonym: "English", key: "en" },
  "zh-TW": { autonym: "繁體中文", key: "zhTW" },
  "zh-CN": { autonym: "简体中文", key: "zhCN" },
  ja: { autonym: "日本語", key: "ja" },
  ko: { autonym: "한국어", key: "ko" },
  es: { autonym: "Español", key: "es" },
  fr: { autonym: "Français", key: "fr" },
  de: { autonym: "Deutsch", key: "de" },
};

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
  const available = trpc.translate.languages.useQuery(undefined, {
    staleTime: Number.POSITIVE_INFINITY,
  });
  // Until the server has said (or if it cannot say), every language is offered: it decides.
  const offered = available.data ? new Set<TargetLanguage>(available.data.targets) : undefined;

  const [menuFor, setMenuFor] = useState<string | null>(null);
  const [reporting, setReporting] = useState<string | null>(null);
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
    const language = t.languages[languages[target].key]();
    setTranslatingId(message.id);
    try {
      const result = await translate.mutateAsync({ messageId: message.id, target });
      setTranslations((all) => ({ ...all, [message.id]: result }));
      setOriginals((all) => ({ ...all, [message.id]: false }));
      toast.success(t.translatedTitle(), { description: t.translatedBody({ language }) });
    } catch (error) {
      const code = appCodeOf(error);
      let description: string = t.translateFailedBody();
      if (code === "TRANSLATION_UNSUPPORTED") description = t.translateUnsupported({ language });
      if (code === "RATE_LIMITED") description = errorMessage(LL, error);
      toast.error(t.translateFailedTitle(), { description });
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
          const busy = translatingId === message.id;
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
                <p className="chat-msg__translated">
                  <Languages aria-hidden="true" />
                  <span>
                    {showing
                      ? t.translatedTo({
                          language: t.languages[languages[translation.target].key](),
                        })
                      : t.original()}
                  </span>
                  <button
                    type="button"
                    className="chat-msg__link"
                    onClick={() =>
                      setOriginals((all) => ({ ...all, [message.id]: !all[message.id] }))
                    }
                  >
                    {showing ? <Undo2 aria-hidden="true" /> : <Redo2 aria-hidden="true" />}
                    {showing ? t.showOriginal() : t.showTranslation()}
                  </button>
                </p>
              )}
              <div className="chat-msg__actions">
                <DropdownMenu.Root
                  open={menuFor === message.id}
                  onOpenChange={(open) =>
                    setMenuFor(open && translatingId === null ? message.id : null)
                  }
                >
                  {/* Not disabled while translating: focus returns here when the menu closes. */}
                  <DropdownMenu.Trigger
                    className="chat-action"
                    aria-label={busy ? t.translating() : t.translateLabel()}
                    aria-disabled={translatingId !== null || undefined}
                    aria-busy={busy || undefined}
                  >
                    {busy ? (
                      <LoaderCircle aria-hidden="true" className="chat-spin" />
                    ) : (
                      <Languages aria-hidden="true" />
                    )}
                    <span aria-hidden="true">{busy ? t.translating() : t.translate()}</span>
                    <ChevronDown aria-hidden="true" className="chat-action__chevron" />
                  </DropdownMenu.Trigger>
                  <DropdownMenu.Portal>
                    <DropdownMenu.Content
                      className="menu chat-translate-menu"
                      align="start"
                      sideOffset={6}
                      collisionPadding={12}
                    >
                      <DropdownMenu.Label className="chat-translate-menu__label">
                        {t.translateMenu()}
                      </DropdownMenu.Label>
                      {targetLanguages.map((target) => {
                        const unavailable = offered !== undefined && !offered.has(target);
                        return (
                          <DropdownMenu.Item
                            key={target}
                            className="menu__item chat-translate-menu__item"
                            disabled={unavailable || translatingId !== null}
                            onSelect={() => void onTranslate(message, target)}
                          >
                            <span className="chat-translate-menu__text">
                              <span lang={target}>{languages[target].autonym}</span>
                              {unavailable && (
                                <span className="chat-translate-menu__note">{t.unavailable()}</span>
                              )}
                            </span>
                            {showing?.target === target && (
                              <Check aria-hidden="true" className="menu__check" />
                            )}
                          </DropdownMenu.Item>
                        );
                      })}
                    </DropdownMenu.Content>
                  </DropdownMenu.Portal>
                </DropdownMenu.Root>
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
                  <span aria-hidden="true">{t.report()}</span>
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <ChatReportDialog
        messageId={reporting}
        onClose={() => setReporting(null)}
        returnFocus={() =>
          lastReported.current ? reportButtons.current.get(lastReported.current) : undefined
        }
      />
    </div>
  );
}
