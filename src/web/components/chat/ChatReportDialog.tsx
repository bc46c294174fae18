import {
  type ChatMessage,
  type ChatReportOutcome,
  type ChatReportReason,
  chatReportReasons,
} from "../../../common/chat.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { ReportDialog } from "../LazyReportDialog.tsx";

/**
 * Reports a partner's message: from its own Report button (in an open chat, or one that has
 * ended and is still on screen), or by "End & report" (the server keeps the chat's messages a
 * while after it ends, so it still can). The toast says what really happened: recorded (and
 * the two are kept apart from now on), or the same report was made before.
 */
export function ChatReportDialog({
  message,
  onClose,
  report,
  ended = false,
  returnFocus,
}: {
  /** The message reported; the dialog is open while there is one. */
  message: ChatMessage | null;
  onClose: () => void;
  /** Sends the report (the chat's own call), answering what came of it. */
  report: (messageId: string, reason: ChatReportReason) => Promise<ChatReportOutcome>;
  /** The chat is over: the lead says so and the message is quoted, as it is no longer shown. */
  ended?: boolean;
  returnFocus?: () => HTMLElement | null | undefined;
}) {
  const t = useI18n().LL.randomChat;
  return (
    <ReportDialog
      open={message !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      reasons={chatReportReasons}
      reasonLabel={(reason) => t.reasons[reason]()}
      title={t.reportTitle()}
      lead={ended ? t.reportEndedLead() : t.reportLead()}
      quote={ended ? message?.content : undefined}
      submit={async (reason) => (message ? report(message.id, reason) : "recorded")}
      thanks={(outcome) =>
        outcome === "alreadyReported"
          ? { title: t.alreadyReportedTitle(), description: t.alreadyReportedBody() }
          : { title: t.reportedTitle(), description: t.reportedBody() }
      }
      returnFocus={returnFocus}
    />
  );
}
