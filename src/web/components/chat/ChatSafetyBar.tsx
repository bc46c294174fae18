import { type ReactNode, useEffect, useId, useState } from "react";
import { Ban, Flag, VolumeX } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { LONGEST_TIMER_MS } from "./useChatBan.ts";
import "./safety.css";

/** The End & report button's id, where focus goes back after its report of an ended chat. */
export const END_REPORT_BUTTON_ID = "chat-end-report";

/**
 * Block and End & report, one tap each, under the chat's banner. Both keep working once the
 * chat has ended (then it is just Report): the partner is known by their messages, which the
 * server keeps a while. So both need a message from the partner then; in an open chat, only
 * the report does.
 */
export function ChatSafetyBar({
  ended,
  canReport,
  onBlock,
  onEndReport,
  children,
}: {
  ended: boolean;
  canReport: boolean;
  onBlock: () => void;
  onEndReport: () => void;
  /** More of the chat's own tools, at the end of the row. */
  children?: ReactNode;
}) {
  const t = useI18n().LL;
  const blockHintId = useId();
  const reportHintId = useId();
  const canBlock = !ended || canReport;
  return (
    <div className="chat-safety">
      <button
        type="button"
        className="chat-safety__button"
        onClick={onBlock}
        disabled={!canBlock}
        aria-describedby={canBlock ? undefined : blockHintId}
      >
        <Ban aria-hidden="true" />
        {t.randomChat.block()}
      </button>
      <button
        id={END_REPORT_BUTTON_ID}
        type="button"
        className="chat-safety__button"
        onClick={onEndReport}
        disabled={!canReport}
        aria-describedby={canReport ? undefined : reportHintId}
      >
        <Flag aria-hidden="true" />
        {ended ? t.report.report() : t.randomChat.endReport()}
      </button>
      {!canBlock && (
        <span id={blockHintId} className="visually-hidden">
          {t.randomChat.blockNothing()}
        </span>
      )}
      {!canReport && (
        <span id={reportHintId} className="visually-hidden">
          {ended ? t.randomChat.reportNothing() : t.randomChat.endReportNothing()}
        </span>
      )}
      {children}
    </div>
  );
}

/** "until 14:05", or with the day when it is not today. */
function clockOf(until: number, locale: string): string {
  const sameDay = new Date(until).toDateString() === new Date().toDateString();
  const options: Intl.DateTimeFormatOptions = sameDay
    ? { hour: "numeric", minute: "2-digit" }
    : { weekday: "short", hour: "numeric", minute: "2-digit" };
  return new Intl.DateTimeFormat(locale, options).format(until);
}

/** Said calmly in the open chat while the visitor's messages reach no one; gone when it ends. */
export function MutedNotice({ until }: { until: number | null }) {
  const { LL, locale } = useI18n();
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (until === null) return;
    const wait = Math.min(Math.max(0, until - Date.now()) + 500, LONGEST_TIMER_MS);
    const timer = setTimeout(() => setNow(Date.now()), wait);
    return () => clearTimeout(timer);
  }, [until]);
  if (until === null || until <= now) return null;
  return (
    <p className="chat-panel__notice chat-muted" role="status">
      <VolumeX aria-hidden="true" />
      <span>{LL.randomChat.muted({ time: clockOf(until, locale) })}</span>
    </p>
  );
}
