import { useId, useRef } from "react";
import { type Country, countryName, flagOf } from "../../../common/country.ts";
import { CircleCheck, LogOut, SkipForward, WifiOff, X } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { around } from "../../lib/placeholder.ts";
import { BackHome } from "./BackHome.tsx";
import { ChatComposer } from "./ChatComposer.tsx";
import { ChatMessages } from "./ChatMessages.tsx";
import { ChatSafetyBar, MutedNotice } from "./ChatSafetyBar.tsx";
import { lastPartnerMessage } from "./chatReducer.ts";
import type { ChatSound } from "./chime.ts";
import { SharedLine } from "./MatchPreferences.tsx";
import { SoundSwitch } from "./SoundSwitch.tsx";
import { useOnScreenWhenShown } from "./useOnScreenWhenShown.ts";
import type { RandomChat } from "./useRandomChat.ts";

/**
 * "Chatting with a stranger from Japan", with the way home, End chat and Next beside it; once
 * the chat has ended, Close takes End's place.
 */
function ChatBanner({
  partner,
  headingId,
  ended,
  onEnd,
  onClose,
  onNext,
}: {
  partner: Country;
  headingId: string;
  ended: boolean;
  onEnd: () => void;
  onClose: () => void;
  onNext: () => void;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const country = countryName(partner.code, locale);
  const [before, after] = around((marker) => t.chattingWith({ country: marker }));
  return (
    <header className="chat-panel__banner">
      <span className="flag-badge chat-panel__flag" aria-hidden="true">
        {flagOf(partner.code)}
      </span>
      <div className="chat-panel__who">
        <h2 id={headingId} className="chat-panel__heading">
          {/* Read as one sentence (Chinese puts no space before the country); shown in two lines. */}
          <span className="visually-hidden">{t.chattingWith({ country })}</span>
          <span className="chat-panel__label" aria-hidden="true">
            {before}
          </span>
          <span className="chat-panel__country" aria-hidden="true">
            {country}
          </span>
          {after && (
            <span className="chat-panel__label" aria-hidden="true">
              {after}
            </span>
          )}
        </h2>
      </div>
      <div className="chat-panel__tools">
        <BackHome className="button button--ghost chat-panel__tool chat-panel__home" />
        <button
          type="button"
          className="button button--ghost chat-panel__tool chat-panel__end"
          onClick={ended ? onClose : onEnd}
        >
          {ended ? <X aria-hidden="true" /> : <LogOut aria-hidden="true" />}
          {ended ? t.close() : t.end()}
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
  );
}

/** "Match successful" over a new chat, for its first 3 s. */
function MatchOverlay({ partner }: { partner: Country }) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const country = countryName(partner.code, locale);
  return (
    <div className="chat-match" role="status">
      <div className="chat-match__card">
        <CircleCheck aria-hidden="true" className="chat-match__icon" />
        <p className="chat-match__title">{t.matched()}</p>
        <p className="chat-match__partner">
          <span className="chat-match__flag" aria-hidden="true">
            {flagOf(partner.code)}
          </span>
          {country}
        </p>
        <p className="chat-match__body">{t.matchedBody({ country })}</p>
      </div>
    </div>
  );
}

/** An open chat: the banner, the conversation, the partner's typing and the text box. */
export function ChatPanel({
  chat,
  partner,
  sound,
}: {
  chat: RandomChat;
  partner: Country;
  sound: ChatSound;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const headingId = useId();
  const ended = chat.ended !== null;
  const panelRef = useRef<HTMLElement>(null);

  // A new chat brings the whole panel on screen, text box included.
  useOnScreenWhenShown(panelRef);

  return (
    <section ref={panelRef} className="chat-panel" aria-labelledby={headingId}>
      <ChatBanner
        partner={partner}
        headingId={headingId}
        ended={ended}
        onEnd={chat.end}
        onClose={chat.close}
        onNext={() => void chat.next()}
      />
      <ChatSafetyBar
        ended={ended}
        canReport={lastPartnerMessage(chat) !== null}
        onBlock={chat.block}
        onEndReport={chat.endAndReport}
      >
        <SoundSwitch sound={sound} className="chat-safety__sound" />
      </ChatSafetyBar>
      <SharedLine shared={chat.shared} />
      <MutedNotice until={chat.mutedUntil} />
      {chat.reconnecting && !ended && (
        <p className="chat-panel__notice" role="status">
          <WifiOff aria-hidden="true" />
          {t.reconnecting()}
        </p>
      )}
      <div className="chat-panel__body">
        <ChatMessages entries={chat.entries} report={chat.report} />
        {chat.matchOverlay && <MatchOverlay partner={partner} />}
      </div>
      <p className="chat-typing" aria-live="polite">
        {chat.partnerTyping && !ended ? (
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
      <ChatComposer
        disabled={ended}
        composerRef={chat.composerRef}
        onSend={chat.send}
        onTyping={chat.noteTyping}
      />
    </section>
  );
}
