import { useRef } from "react";
import { BackHome } from "../components/chat/BackHome.tsx";
import { ChatPanel } from "../components/chat/ChatPanel.tsx";
import { ChatReportDialog } from "../components/chat/ChatReportDialog.tsx";
import { END_REPORT_BUTTON_ID } from "../components/chat/ChatSafetyBar.tsx";
import { ChatStart, START_BUTTON_ID } from "../components/chat/ChatStart.tsx";
import { useChatSound } from "../components/chat/chime.ts";
import { useLeaveWarning } from "../components/chat/useLeaveWarning.ts";
import { useRandomChat } from "../components/chat/useRandomChat.ts";
import { useTabTitle } from "../components/chat/useTabTitle.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { useI18n } from "../lib/i18n.tsx";
import "./random-chat.css";

/** Random chat: the start card, or the open chat with a stranger. */
export function RandomChatPage() {
  const { LL } = useI18n();
  const t = LL.randomChat;
  const chat = useRandomChat();
  const sound = useChatSound();
  useTabTitle(chat, sound.on);
  // A chat another tab of the visitor's holds is shown there, not here (useChatHolder.ts).
  const partner = chat.phase === "chatting" && !chat.away ? chat.partner : null;
  useLeaveWarning(partner !== null && chat.ended === null);
  // Whether a chat was on screen before: the start card that takes its place takes the focus.
  const hadChat = useRef(false);
  const afterChat = hadChat.current;
  if (partner) hadChat.current = true;
  return (
    <div
      className={partner ? "container random-chat random-chat--chatting" : "container random-chat"}
    >
      {/* In an open chat the way home sits in the chat's own bar, which stays on screen. */}
      {!partner && <BackHome />}
      <PageIntro title={t.title()}>{t.description()}</PageIntro>
      {partner ? (
        <ChatPanel chat={chat} partner={partner} sound={sound} />
      ) : (
        <ChatStart chat={chat} afterChat={afterChat} sound={sound} />
      )}
      {/*
        End & report: the chat is over by now (gone from the screen, or still there read-only),
        so its report lives beside it, not in it.
      */}
      <ChatReportDialog
        message={chat.endReport}
        onClose={chat.closeEndReport}
        report={chat.report}
        ended
        returnFocus={() =>
          document.getElementById(partner ? END_REPORT_BUTTON_ID : START_BUTTON_ID)
        }
      />
    </div>
  );
}
