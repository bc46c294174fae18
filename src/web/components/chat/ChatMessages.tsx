import { useCallback, useLayoutEffect, useRef, useState } from "react";
import type { ChatMessage, ChatReportOutcome, ChatReportReason } from "../../../common/chat.ts";
import { CircleX, MessagesSquare } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { ChatReportDialog } from "./ChatReportDialog.tsx";
import { ContactWarning } from "./ContactWarning.tsx";
import type { ChatEntry } from "./chatReducer.ts";
import { MessageTime } from "./MessageTime.tsx";
import { PartnerMessage } from "./PartnerMessage.tsx";

/** How close to the bottom (px) still counts as "reading the latest", so new lines scroll in. */
const STICK_TO_BOTTOM_PX = 120;

/**
 * The conversation: own messages on the right, the partner's on the left (with country, flag,
 * time, report and translate), system lines centred in red; "no messages yet" when empty.
 */
export function ChatMessages({
  entries,
  report,
}: {
  entries: ChatEntry[];
  report: (messageId: string, reason: ChatReportReason) => Promise<ChatReportOutcome>;
}) {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const scroller = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [translatingId, setTranslatingId] = useState<string | null>(null);
  const [reporting, setReporting] = useState<ChatMessage | null>(null);
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

  const onTranslating = useCallback((id: string, busy: boolean) => {
    setTranslatingId((current) => (busy ? id : current === id ? null : current));
  }, []);

  return (
    // The scrolling box is the log (an <ol> may not take that role and stay a list).
    <div
      className="chat-messages"
      ref={scroller}
      onScroll={onScroll}
      role="log"
      aria-label={t.messages()}
    >
      {entries.length === 0 ? (
        <div className="chat-empty">
          <MessagesSquare aria-hidden="true" />
          <p className="chat-empty__title">{t.empty()}</p>
          <p className="chat-empty__hint">{t.emptyHint()}</p>
        </div>
      ) : null}
      <ol className="chat-list">
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
          if (message.from === "me") {
            return (
              <li key={message.id} className="chat-msg chat-msg--me">
                <span className="visually-hidden">{t.you()}: </span>
                <p className="chat-msg__bubble">{message.content}</p>
                {message.contact && <ContactWarning own />}
                <MessageTime timestamp={message.timestamp} />
              </li>
            );
          }
          return (
            <PartnerMessage
              key={message.id}
              message={message}
              locked={translatingId !== null}
              onTranslating={onTranslating}
              onReport={() => {
                lastReported.current = message.id;
                setReporting(message);
              }}
              reportButtonRef={(element) => {
                if (element) reportButtons.current.set(message.id, element);
                else reportButtons.current.delete(message.id);
              }}
            />
          );
        })}
      </ol>
      <ChatReportDialog
        message={reporting}
        onClose={() => setReporting(null)}
        report={report}
        returnFocus={() =>
          lastReported.current ? reportButtons.current.get(lastReported.current) : undefined
        }
      />
    </div>
  );
}
