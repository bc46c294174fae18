import { type Dispatch, useEffect } from "react";
import { toast } from "sonner";
import { CHAT_TIMINGS } from "../../../common/chat-timings.ts";
import { useI18n } from "../../lib/i18n.tsx";
import type { ChatAction, ChatState } from "./chatReducer.ts";

/** The partner's indicator hides by itself if their "stopped typing" never arrives. */
const TYPING_SHOWN_MS = 6000;

/** Runs `action` after `ms` while `when` holds; a change of `key` starts the wait again. */
function useAfter(
  dispatch: Dispatch<ChatAction>,
  when: boolean,
  ms: number,
  action: ChatAction,
  key: unknown = null,
) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` restarts the wait.
  useEffect(() => {
    if (!when) return;
    const timer = setTimeout(() => dispatch(action), ms);
    return () => clearTimeout(timer);
  }, [when, ms, key, dispatch]);
}

/**
 * What the chat's state sets going with time: the match overlay for 3 s, the partner's
 * typing indicator for at most 6 s; and the "Chat ended" toast when the partner leaves. An
 * ended chat stays on screen (its messages can still be reported) until the visitor moves on.
 */
export function useChatTimers(state: ChatState, dispatch: Dispatch<ChatAction>) {
  const { LL } = useI18n();
  useAfter(dispatch, state.matchOverlay, CHAT_TIMINGS.matchOverlayMs, { type: "overlay-done" });
  useAfter(
    dispatch,
    state.partnerTyping,
    TYPING_SHOWN_MS,
    { type: "typing-expired" },
    state.typingSignals,
  );

  const partnerLeft = state.ended === "partnerLeft";
  useEffect(() => {
    if (partnerLeft) {
      toast(LL.randomChat.chatEndedTitle(), { description: LL.randomChat.partnerLeft() });
    }
  }, [partnerLeft, LL]);
}
