import { useEffect, useId, useRef, useState } from "react";
import { INTEREST_WINDOW_MS, MATCH_FALLBACK_MS } from "../../../common/chat-preferences.ts";
import { CHAT_TIMINGS } from "../../../common/chat-timings.ts";
import { type Country, countryName, flagOf } from "../../../common/country.ts";
import { localizedPath } from "../../../common/locales.ts";
import {
  AppWindow,
  ArrowDownToLine,
  Info,
  LoaderCircle,
  MessagesSquare,
  PenLine,
  Search,
  ShieldBan,
  Users,
  WifiOff,
  X,
} from "../../icons.ts";
import { useCookiesBlocked } from "../../lib/cookies.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { CookiesBlockedNotice } from "../CookiesBlockedNotice.tsx";
import type { ChatSound } from "./chime.ts";
import { languageName, listOf, MatchPreferencesEditor } from "./MatchPreferences.tsx";
import type { ChatPreferences } from "./matchPreferences.ts";
import { ChatRefused, SafetyGate } from "./SafetyGate.tsx";
import { SoundSwitch } from "./SoundSwitch.tsx";
import { timeLeftText } from "./time-left.ts";
import { useOnScreenWhenShown } from "./useOnScreenWhenShown.ts";
import type { RandomChat } from "./useRandomChat.ts";

/** The start button's id, where focus goes back after a report of an ended chat. */
export const START_BUTTON_ID = "chat-start-button";

const MATCH_FALLBACK_S = MATCH_FALLBACK_MS / 1000;
const INTEREST_WINDOW_S = INTEREST_WINDOW_MS / 1000;

/** A search this long unanswered offers something to do meanwhile. */
const ALONE_AFTER_MS = 8000;

/** The online count is asked for again this often. */
const ONLINE_REFRESH_MS = 15_000;

/**
 * Other visitors waiting or chatting now: never the visitor themselves, whom "1 online" would
 * have counted as someone else.
 */
function OnlineCount() {
  const { LL } = useI18n();
  const online = trpc.chat.online.useQuery(undefined, {
    refetchInterval: ONLINE_REFRESH_MS,
    staleTime: 0,
  });
  if (!online.data) return null;
  const { others } = online.data;
  return (
    <p className={others > 0 ? "chat-online" : "chat-online chat-online--alone"}>
      <span className="chat-online__dot" aria-hidden="true" />
      <span>{LL.randomChat.others({ others })}</span>
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
  preferences,
  onPreferences,
  interestRefused,
}: {
  focusOnMount: boolean;
  me: { country: Country } | undefined;
  bannedUntil: number | null;
  now: number;
  onStart: () => void;
  preferences: ChatPreferences;
  onPreferences: (next: ChatPreferences) => void;
  interestRefused: readonly string[] | null;
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
          {me ? flagOf(me.country.code) : "🌐"}
        </span>
        <div className="chat-identity__text">
          <p className="chat-identity__label">{t.youAppearAs()}</p>
          <p className="chat-identity__country">
            {me ? countryName(me.country.code, locale) : t.countryLoading()}
          </p>
        </div>
      </div>
      <p id={noteId} className="chat-identity__note">
        <Info aria-hidden="true" />
        <span>{t.countryNote()}</span>
      </p>
      {bannedUntil !== null && (
        <div className="page-notice is-danger chat-restricted" role="status">
          <ShieldBan aria-hidden="true" />
          <div>
            <p className="page-notice__title">{t.restrictedTitle()}</p>
            <p>{t.restrictedLeft({ time: timeLeftText(LL, bannedUntil, now) })}</p>
            <p className="chat-restricted__reason">{t.restrictedReason()}</p>
          </div>
        </div>
      )}
      <MatchPreferencesEditor
        preferences={preferences}
        onChange={onPreferences}
        refused={interestRefused}
      />
      <button
        ref={button}
        id={START_BUTTON_ID}
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

/** Whole seconds until `at`, brought up to date four times a second. */
function useSecondsUntil(at: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === null) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [at]);
  return at === null ? 0 : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The time now, brought up to date every second. */
function useNowEverySecond(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** "1:05": minutes and seconds. */
function clockText(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * Something to do while the search goes on: write a bottle or find one, in a new tab. This tab
 * keeps the place in the queue (leaving the chat page would end the search), and tells of a
 * match by its title, its icon and, when asked, a sound.
 */
function WhileYouWait() {
  const { LL, prefix } = useI18n();
  const t = LL.randomChat.whileWaiting;
  const headingId = useId();
  return (
    <section className="chat-wait" aria-labelledby={headingId}>
      <h3 id={headingId} className="chat-wait__title">
        {t.title()}
      </h3>
      <p className="chat-wait__body">{t.body()}</p>
      <div className="chat-wait__actions">
        {(
          [
            ["create", PenLine, t.write()],
            ["discover", Search, t.find()],
          ] as const
        ).map(([page, Icon, label]) => (
          <a
            key={page}
            href={localizedPath(prefix, page)}
            target="_blank"
            rel="noopener"
            className="button button--secondary"
          >
            <Icon aria-hidden="true" />
            {label}
            <span className="visually-hidden"> {t.newTab()}</span>
          </a>
        ))}
      </div>
    </section>
  );
}

/**
 * The stage of the search, as the server keeps to it: "Looking for someone who likes …", then
 * "… who speaks …", with the seconds until the next stage, and the button that widens the
 * search at once.
 */
function LookingFor({
  search,
  onWiden,
}: {
  search: NonNullable<RandomChat["search"]>;
  onWiden: () => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat.prefs;
  const toLanguage = useSecondsUntil(search.languageAt);
  const toAnyone = useSecondsUntil(search.anyoneAt);
  const { languages, interests } = search.asked;
  // Both Chinese scripts are one spoken language.
  const spoken = [...new Set(languages.map((tag) => (tag.startsWith("zh") ? "zh" : tag)))];
  const speaks = listOf(
    locale,
    spoken.map((tag) => languageName(LL, tag)),
  );
  const likes = listOf(locale, interests);
  const onInterests = interests.length > 0 && (languages.length > 0 ? toLanguage : toAnyone) > 0;
  let what: string;
  let next: string;
  if (onInterests && languages.length > 0) {
    what = t.stageLikes({ interests: likes });
    next = t.thenSpeaks({ languages: speaks, seconds: toLanguage });
  } else if (onInterests) {
    what = t.stageLikes({ interests: likes });
    next = t.thenAnyone({ seconds: toAnyone });
  } else {
    what = t.lookingSpeaks({ languages: speaks });
    next = t.anyoneIn({ seconds: toAnyone });
  }
  return (
    <div className="chat-looking">
      {toAnyone > 0 ? (
        <>
          <p className="chat-looking__what">{what}</p>
          <p className="chat-looking__countdown" aria-hidden="true">
            {next}
          </p>
          <p className="visually-hidden">
            {languages.length > 0
              ? t.anyoneInLabel({ seconds: MATCH_FALLBACK_S })
              : t.anyoneInLabel({ seconds: INTEREST_WINDOW_S })}
          </p>
          <button
            type="button"
            className="button button--ghost chat-looking__widen"
            onClick={onWiden}
          >
            <Users aria-hidden="true" />
            {t.widen()}
          </button>
        </>
      ) : (
        <p className="chat-looking__countdown">{t.anyoneNow()}</p>
      )}
    </div>
  );
}

/**
 * Sonar rings around the visitor's flag while the pool is searched. Just after a chat, it says
 * why the last partner does not come straight back, and for how long.
 */
function Searching({
  country,
  reconnecting,
  justParted,
  onCancel,
  search,
  onWiden,
  sound,
}: {
  /** The visitor's own, once known. */
  country: Country | undefined;
  reconnecting: boolean;
  justParted: boolean;
  onCancel: () => void;
  search: RandomChat["search"];
  onWiden: () => void;
  sound: ChatSound;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const cancelRef = useRef<HTMLButtonElement>(null);
  const [since] = useState(() => Date.now());
  const waited = Math.max(0, useNowEverySecond() - since);
  useEffect(() => {
    // The start button is gone; keep keyboard focus in the card.
    if (document.activeElement === document.body) cancelRef.current?.focus();
  }, []);
  return (
    <div className="chat-search">
      <div className="chat-start__state" role="status">
        <div className="chat-search__sonar" aria-hidden="true">
          <span className="chat-search__ring" />
          <span className="chat-search__ring" />
          <span className="chat-search__ring" />
          <span className="flag-badge chat-search__flag">{flagOf(country?.code ?? null)}</span>
        </div>
        <p className="chat-start__state-title">{t.searching()}</p>
        {/* A timer: read when asked, not announced every second. */}
        <p className="chat-search__waited" role="timer">
          {t.waited({ time: clockText(waited) })}
        </p>
        {search ? (
          <LookingFor search={search} onWiden={onWiden} />
        ) : (
          <>
            <p className="chat-start__state-hint">{t.searchingHint()}</p>
            <p className="chat-start__state-hint chat-search__others">
              {t.prefs.othersFirst({ seconds: MATCH_FALLBACK_S })}
            </p>
          </>
        )}
        {justParted && (
          <p className="chat-start__state-hint chat-search__rematch">
            {t.rematchHint({ seconds: CHAT_TIMINGS.meetAgainAfterMs / 1000 })}
          </p>
        )}
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
      {waited >= ALONE_AFTER_MS && <WhileYouWait />}
      <SoundSwitch sound={sound} className="chat-search__sound" />
    </div>
  );
}

/**
 * The visitor's search or chat is held by another of their tabs: it goes on there, and can be
 * taken over here.
 */
function OpenElsewhere({ onTakeOver }: { onTakeOver: () => void }) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  return (
    <div className="chat-start__state" role="status">
      <span className="flag-badge chat-elsewhere__icon" aria-hidden="true">
        <AppWindow />
      </span>
      <p className="chat-start__state-title">{t.elsewhereTitle()}</p>
      <p className="chat-start__state-hint">{t.elsewhereBody()}</p>
      <button type="button" className="button button--primary" onClick={onTakeOver}>
        <ArrowDownToLine aria-hidden="true" />
        {t.continueHere()}
      </button>
    </div>
  );
}

/**
 * The start card: who is online, then the visitor's country and the start button, the
 * connecting spinner, or the search. `afterChat`: it takes the place of a chat just left.
 */
export function ChatStart({
  chat,
  afterChat,
  sound,
}: {
  chat: RandomChat;
  afterChat: boolean;
  sound: ChatSound;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  // Back at the start after a search or a chat, focus goes to the start button again.
  const [cameBack, setCameBack] = useState(false);
  // Without the visitor cookie the server forgets the age answer and the chat at once: the card
  // says so instead of offering either.
  const cookiesBlocked = useCookiesBlocked() && chat.phase === "idle";
  // Pressed below a long list of preferences on a phone, the search replaces a longer card:
  // the whole card comes on screen, the online count at its top clear of the header.
  const cardRef = useRef<HTMLElement>(null);
  useOnScreenWhenShown(cardRef, chat.phase === "searching");
  const lastPhase = useRef(chat.phase);
  useEffect(() => {
    if (lastPhase.current !== chat.phase) setCameBack(chat.phase === "idle");
    lastPhase.current = chat.phase;
  }, [chat.phase]);
  return (
    <section
      ref={cardRef}
      className="card chat-start"
      aria-labelledby="chat-start-heading"
      aria-busy={chat.phase === "connecting"}
    >
      <h2 id="chat-start-heading" className="visually-hidden">
        {t.start()}
      </h2>
      {cookiesBlocked ? (
        <CookiesBlockedNotice body={LL.common.cookies.chat()} reload />
      ) : (
        <ChatStartStates chat={chat} afterChat={afterChat} cameBack={cameBack} sound={sound} />
      )}
    </section>
  );
}

/** What the start card holds where cookies are kept: see ChatStart. */
function ChatStartStates({
  chat,
  afterChat,
  cameBack,
  sound,
}: {
  chat: RandomChat;
  afterChat: boolean;
  cameBack: boolean;
  sound: ChatSound;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  // Answered the gate just now: focus goes to what takes its place (the start button, or the
  // refusal).
  const [answered, setAnswered] = useState(false);
  const age = chat.me?.age;
  return (
    <>
      {/*
        Nothing is offered before the answer to the age question is known, nor a search or chat
        before it is known whether this tab or another of the visitor's shows it.
      */}
      {((age === undefined && !chat.meFailed) || chat.away === "unknown") && (
        <div className="chat-start__state" role="status">
          <LoaderCircle aria-hidden="true" className="spinner chat-start__spinner" />
          <p className="chat-start__state-title">{LL.common.loading()}</p>
        </div>
      )}
      {(age === "unanswered" || age === "confirmed") && <OnlineCount />}
      {chat.away === "elsewhere" && <OpenElsewhere onTakeOver={chat.takeOver} />}
      {!chat.away && chat.phase === "connecting" && (
        <div className="chat-start__state" role="status">
          <LoaderCircle aria-hidden="true" className="spinner chat-start__spinner" />
          <p className="chat-start__state-title">
            {chat.powWorking ? LL.pow.working() : t.connecting()}
          </p>
        </div>
      )}
      {!chat.away && chat.phase === "searching" && (
        <Searching
          country={chat.me?.country}
          reconnecting={chat.reconnecting}
          justParted={
            chat.partedAt !== null && Date.now() - chat.partedAt < CHAT_TIMINGS.partedKeptApartMs
          }
          onCancel={chat.end}
          search={chat.search}
          onWiden={chat.widen}
          sound={sound}
        />
      )}
      {!chat.away && chat.phase === "idle" && age === "unanswered" && (
        <SafetyGate me={chat.me} onAnswered={() => setAnswered(true)} />
      )}
      {!chat.away && chat.phase === "idle" && age === "refused" && (
        <ChatRefused focusOnMount={answered} />
      )}
      {/* Without an answer from the server (it failed), the start call itself asks. */}
      {!chat.away &&
        chat.phase === "idle" &&
        (age === "confirmed" || (age === undefined && chat.meFailed)) && (
          <IdleStart
            // Back from a chat (closed, ended, blocked), the start button takes the lost focus.
            focusOnMount={cameBack || answered || afterChat}
            me={chat.me}
            bannedUntil={chat.bannedUntil}
            now={chat.now}
            onStart={() => void chat.start()}
            preferences={chat.preferences}
            onPreferences={chat.setPreferences}
            interestRefused={chat.interestRefused}
          />
        )}
    </>
  );
}
