import { useI18n } from "../../lib/i18n.tsx";

/** When a chat line was sent, in the reader's clock format. */
export function MessageTime({ timestamp }: { timestamp: number }) {
  const { locale } = useI18n();
  const date = new Date(timestamp);
  return (
    <time className="chat-msg__time" dateTime={date.toISOString()}>
      {new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit" }).format(date)}
    </time>
  );
}
