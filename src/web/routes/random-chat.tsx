import { Link } from "@tanstack/react-router";
import {
  ArrowLeft,
  CircleCheck,
  Info,
  LoaderCircle,
  LogOut,
  MessagesSquare,
  SendHorizontal,
  ShieldBan,
  SkipForward,
  WifiOff,
  X,
} from "lucide-react";
import {
  type ChangeEvent,
  type FormEvent,
  type KeyboardEvent,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { CHAT_LIMITS, type ChatPartner } from "../../common/chat.ts";
import { countryName, flagOf } from "../../common/country.ts";
import { localizedPath } from "../../common/locales.ts";
import { ChatMessages } from "../components/chat/ChatMessages.tsx";
import {
  type ChatEntry,
  hoursLeft,
  ONLINE_REFRESH_MS,
  useRandomChat,
} from "../components/chat/useRandomChat.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { useI18n } from "../lib/i18n.tsx";
import { around } from "../lib/placeholder.ts";
import { trpc } from "../lib/trpc.ts";
import "./random-chat.css";

/** The length counter shows once a message gets this close to the limit. */
const COUNTER_FROM = CHAT_LIMITS.message - 200;

export function RandomChatPage() {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const chat = useRandomChat();
  const inChat = chat.phase === "chatting" && chat.partner !== null;
  // Back at the start after a search or a chat, focus goes to the start button again.
  const [cameBack, setCameBack] = useState(false);
  const lastPhase = useRef(chat.phase);
  useEffect(() => {
    if (lastPhase.current !== chat.phase) setCameBack(chat.phase === "idle");
    lastPhase.current = chat.phase;
  }, [chat.phase]);

  return (
    <div
      className={inChat ? "container random-chat random-chat--chatting" : "container random-chat"}
    >
      {/* In an open chat the way home sits in the chat's own bar, which stays on screen. */}
      {!inChat && <BackHome />}
      <PageIntro title={t.title()}>{t.description()}</PageIntro>

      {inChat && chat.partner ? (
        <ChatPanel
          partner={chat.partner}
          entries={chat.entries}
          partnerTyping={chat.partnerTyping}
          matchOverlay={chat.matchOverlay}
          ended={chat.ended}
          reconnecting={chat.reconnecting}
          composerRef={chat.composerRef}
          onSend={chat.send}
          onTyping={chat.noteTyping}
          onEnd={chat.end}
          onNext={() => void chat.next()}
        />
      ) : (
        <section
          className="card chat-start"
          aria-labelledby="chat-start-heading"
          aria-busy={chat.phase === "connecting"}
        >
          <h2 id="chat-start-heading" className="visually-hidden">
            {t.start()}
          </h2>
          <OnlineCount />
          {chat.phase === "connecting" && (
            <div className="chat-start__state" role="status">
              <LoaderCircle aria-hidden="true" className="spinner chat-start__spinner" />
              <p className="chat-start__state-title">{t.connecting()}</p>
            </div>
          )}
          {chat.phase === "searching" && (
            <Searching
              countryCode={chat.me?.countryCode ?? null}
              reconnecting={chat.reconnecting}
              onCancel={chat.end}
            />
          )}
          {chat.phase === "idle" && (
            <IdleStart
              focusOnMount={cameBack}
              me={chat.me}
              bannedUntil={chat.bannedUntil}
              now={chat.now}
              onStart={() => void chat.start()}
            />
          )}
        </section>
      )}
    </div>
  );
}

/** The spec's back link to the home page of the current language. */
function BackHome({ className = "random-chat__back" }: { className?: string }) {
  const { LL, prefix } = useI18n();
  return (
    <Link to={localizedPath(prefix, "")} className={className}>
      <ArrowLeft aria-hidden="true" />
      {LL.randomChat.back()}
    </Link>
  );
}

/** Visitors waiting or chatting now. */
function OnlineCount() {
  const { LL } = useI18n();
  const online = trpc.chat.online.useQuery(undefined, {
    refetchInterval: ONLINE_REFRESH_MS,
    staleTime: 0,
  });
  if (!online.data) return null;
  const { count } = online.data;
  return (
    <p className="chat-online">
      <span className="chat-online__dot" aria-hidden="true" />
      <span aria-hidden="true">{LL.randomChat.online({ count })}</span>
      <span className="visually-hidden">{LL.randomChat.onlineLabel({ count })}</span>
    </p>
  );
}

/** The visitor's own country (shown to the partner), and the button that starts matching. */
function IdleStart({
  focusOnMount,
  me,
  bannedUntil,
  now,
  onStart,
}: {
  focusOnMount: boolean;
  me: { countryCode: string | null; country: string } | undefined;
  bannedUntil: number | null;
  now: number;
  onStart: () => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const noteId = useId();
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!focusOnMount) return;
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (lost) button.current?.focus();
  }, [focusOnMount]);
  return (
    <div className="chat-start__idle">
      <div className="chat-identity">
        <span className="flag-badge chat-identity__flag" aria-hidden="true">
          {me ? flagOf(me.countryCode) : "🌐"}
        </span>
        <div className="chat-identity__text">
          <p className="chat-identity__label">{t.youAppearAs()}</p>
          <p className="chat-identity__country">
            {me ? countryName(me.countryCode, locale) : t.countryLoading()}
          </p>
        </div>
      </div>
      <p id={noteId} className="chat-identity__note">
        <Info aria-hidden="true" />
        <span>{t.countryNote()}</span>
      </p>
      {bannedUntil !== null && (
        <div className="chat-restricted" role="status">
          <ShieldBan aria-hidden="true" />
          <div>
            <p className="chat-restricted__title">{t.restrictedTitle()}</p>
            <p>{t.restrictedHours({ hours: hoursLeft(bannedUntil, now) })}</p>
            <p className="chat-restricted__reason">{t.restrictedReason()}</p>
          </div>
        </div>
      )}
      <button
        ref={button}
        type="button"
        className="button button--primary button--large chat-start__button"
        onClick={onStart}
        disabled={bannedUntil !== null}
        aria-describedby={noteId}
      >
        <MessagesSquare aria-hidden="true" />
        {t.start()}
      </button>
    </div>
  );
}

/** Sonar rings around the visitor's flag while the pool is searched. */
function Searching({
  countryCode,
  reconnecting,
  onCancel,
}: {
  countryCode: string | null;
  reconnecting: boolean;
  onCancel: () => void;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // The start button is gone; keep keyboard focus in the card.
    if (document.activeElement === document.body) cancelRef.current?.focus();
  }, []);
  return (
    <div className="chat-start__state chat-search" role="status">
      <div className="chat-search__sonar" aria-hidden="true">
        <span className="chat-search__ring" />
        <span className="chat-search__ring" />
        <span className="chat-search__ring" />
        <span className="flag-badge chat-search__flag">{flagOf(countryCode)}</span>
      </div>
      <p className="chat-start__state-title">{t.searching()}</p>
      <p className="chat-start__state-hint">{t.searchingHint()}</p>
      {reconnecting && (
        <p className="chat-panel__notice chat-search__notice">
          <WifiOff aria-hidden="true" />
          {t.reconnecting()}
        </p>
      )}
      <button ref={cancelRef} type="button" className="button button--ghost" onClick={onCancel}>
        <X aria-hidden="true" />
        {t.cancel()}
      </button>
    </div>
  );
}

function ChatPanel({
  partner,
  entries,
  partnerTyping,
  matchOverlay,
  ended,
  reconnecting,
  composerRef,
  onSend,
  onTyping,
  onEnd,
  onNext,
}: {
  partner: ChatPartner;
  entries: ChatEntry[];
  partnerTyping: boolean;
  matchOverlay: boolean;
  ended: boolean;
  reconnecting: boolean;
  composerRef: React.RefObject<HTMLTextAreaElement | null>;
  onSend: (text: string) => Promise<boolean>;
  onTyping: (text: string) => void;
  onEnd: () => void;
  onNext: () => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const id = useId();
  const [draft, setDraft] = useState("");
  const country = countryName(partner.countryCode, locale);
  const flag = flagOf(partner.countryCode);
  const [chattingBefore, chattingAfter] = around((marker) => t.chattingWith({ country: marker }));
  const canSend = !ended && draft.trim() !== "";
  const panelRef = useRef<HTMLElement>(null);

  // A new chat brings the whole panel on screen, text box included (once it has its size).
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      panelRef.current?.scrollIntoView({ block: "nearest" });
    });
    return () => cancelAnimationFrame(frame);
  }, []);

  const submit = () => {
    if (!canSend) return;
    const text = draft;
    setDraft("");
    void onSend(text).then((sent) => {
      // A refused message comes back to the box, unless something new was typed meanwhile.
      if (!sent) setDraft((current) => (current === "" ? text : current));
    });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit();
    composerRef.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter breaks the line; never while an input method is composing.
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    if (event.keyCode === 229) return;
    event.preventDefault();
    submit();
  };

  const onChange = (event: ChangeEvent<HTMLTextAreaElement>) => {
    setDraft(event.target.value);
    onTyping(event.target.value);
  };

  return (
    <section ref={panelRef} className="chat-panel" aria-labelledby={`${id}-partner`}>
      <header className="chat-panel__banner">
        <span className="flag-badge chat-panel__flag" aria-hidden="true">
          {flag}
        </span>
        <div className="chat-panel__who">
          <h2 id={`${id}-partner`} className="chat-panel__heading">
            {/* Read as one sentence (Chinese puts no space before the country); shown in two lines. */}
            <span className="visually-hidden">{t.chattingWith({ country })}</span>
            <span className="chat-panel__label" aria-hidden="true">
              {chattingBefore}
            </span>
            <span className="chat-panel__country" aria-hidden="true">
              {country}
            </span>
            {chattingAfter && (
              <span className="chat-panel__label" aria-hidden="true">
                {chattingAfter}
              </span>
            )}
          </h2>
        </div>
        <div className="chat-panel__tools">
          <BackHome className="button button--ghost chat-panel__tool chat-panel__home" />
          <button
            type="button"
            className="button button--ghost chat-panel__tool chat-panel__end"
            onClick={onEnd}
            disabled={ended}
          >
            <LogOut aria-hidden="true" />
            {t.end()}
          </button>
          {/* Also after the partner has left: no need to wait for the start screen. */}
          <button
            type="button"
            className="button button--primary chat-panel__tool chat-panel__next"
            onClick={onNext}
          >
            <SkipForward aria-hidden="true" />
            {t.next()}
          </button>
        </div>
      </header>

      {reconnecting && !ended && (
        <p className="chat-panel__notice" role="status">
          <WifiOff aria-hidden="true" />
          {t.reconnecting()}
        </p>
      )}

      <div className="chat-panel__body">
        <ChatMessages entries={entries} />
        {matchOverlay && (
          <div className="chat-match" role="status">
            <div className="chat-match__card">
              <CircleCheck aria-hidden="true" className="chat-match__icon" />
              <p className="chat-match__title">{t.matched()}</p>
              <p className="chat-match__partner">
                <span className="chat-match__flag" aria-hidden="true">
                  {flag}
                </span>
                {country}
              </p>
              <p className="chat-match__body">{t.matchedBody({ country })}</p>
            </div>
          </div>
        )}
      </div>

      <p className="chat-typing" aria-live="polite">
        {partnerTyping && !ended ? (
          <>
            <span className="chat-typing__dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {t.typing()}
          </>
        ) : null}
      </p>

      <form className="chat-composer" onSubmit={onSubmit}>
        <label htmlFor={`${id}-message`} className="visually-hidden">
          {t.message()}
        </label>
        <textarea
          id={`${id}-message`}
          ref={composerRef}
          className="chat-composer__input"
          rows={2}
          value={draft}
          onChange={onChange}
          onKeyDown={onKeyDown}
          maxLength={CHAT_LIMITS.message}
          placeholder={t.placeholder()}
          enterKeyHint="send"
          autoComplete="off"
          disabled={ended}
          aria-describedby={`${id}-hint`}
        />
        <button
          type="submit"
          className="button button--primary chat-composer__send"
          disabled={!canSend}
          aria-label={t.send()}
        >
          <SendHorizontal aria-hidden="true" />
          <span className="chat-composer__send-text" aria-hidden="true">
            {t.send()}
          </span>
        </button>
      </form>
      <div className="chat-composer__under">
        <p id={`${id}-hint`} className="chat-composer__hint">
          {t.keyboardHint()}
        </p>
        {draft.length >= COUNTER_FROM && (
          <p className="chat-composer__counter">
            {LL.characters.count({ count: draft.length, limit: CHAT_LIMITS.message })}
          </p>
        )}
      </div>
    </section>
  );
}
