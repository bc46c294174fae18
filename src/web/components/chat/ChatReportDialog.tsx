import { type ChatMessage, chatReportReasons } from "../../../common/chat.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { ReportDialog } from "../ReportDialog.tsx";

/**
 * Reports a partner's message: from its own Report button in an open chat, or by "End & report"
 * once the chat has ended (the server keeps the chat's messages a while, so it still can).
 */
export function ChatReportDialog({
  message,
  onClose,
  ended = false,
  returnFocus,
}: {
  /** The message reported; the dialog is open while there is one. */
  message: ChatMessage | null;
  onClose: () => void;
  /** The chat is over: the lead says so and the message is quoted, as it is no longer shown. */
  ended?: boolean;
  returnFocus?: () => HTMLElement | null | undefined;
}) {
  const t = useI18n().LL.randomChat;
  const report = trpc.chat.report.useMutation();
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
      submit={async (reason) => {
        if (message) await report.mutateAsync({ messageId: message.id, reason });
      }}
      returnFocus={returnFocus}
    />
  );
}
