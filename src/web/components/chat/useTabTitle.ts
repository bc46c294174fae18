import { useEffect, useRef, useSyncExternalStore } from "react";
import { useI18n } from "../../lib/i18n.tsx";
import type { ChatState } from "./chatReducer.ts";

function subscribe(changed: () => void): () => void {
  document.addEventListener("visibilitychange", changed);
  return () => document.removeEventListener("visibilitychange", changed);
}

const isHidden = () => document.visibilityState === "hidden";

/** The title this hook set, and the one it replaced. */
interface Shown {
  ours: string;
  before: string;
}

/** Puts back the title that was replaced, unless something else has set one since. */
function putBack(shown: { current: Shown | null }): void {
  if (shown.current && document.title === shown.current.ours) document.title = shown.current.before;
  shown.current = null;
}

/**
 * While the tab is in the background, its title says what happened since it was left: a partner
 * found, then how many messages they sent. A visitor waiting for a match in another tab sees it
 * in the tab strip instead of leaving their partner waiting. The page's own title comes back
 * when the tab is looked at again (or the page goes).
 */
export function useTabTitle(chat: Pick<ChatState, "chatId" | "entries">): void {
  const { LL } = useI18n();
  const hidden = useSyncExternalStore(subscribe, isHidden, () => false);
  const partnerMessages = chat.entries.filter(
    (entry) => entry.kind === "message" && entry.message.from === "partner",
  ).length;
  /** Where the chat stood when the tab was left. */
  const left = useRef<{ chatId: string | null; messages: number } | null>(null);
  const shown = useRef<Shown | null>(null);

  useEffect(() => {
    if (!hidden) {
      left.current = null;
      return putBack(shown);
    }
    left.current ??= { chatId: chat.chatId, messages: partnerMessages };
    const newChat = chat.chatId !== null && chat.chatId !== left.current.chatId;
    const unread = newChat ? partnerMessages : partnerMessages - left.current.messages;
    let title: string | null = null;
    if (unread > 0) title = LL.randomChat.tabTitle.unread({ count: unread });
    else if (newChat) title = LL.randomChat.tabTitle.matched();
    if (title === null) return putBack(shown);
    shown.current = { ours: title, before: shown.current?.before ?? document.title };
    document.title = title;
  }, [hidden, chat.chatId, partnerMessages, LL]);

  // The page going (the chat switched off meanwhile, say) takes its title along.
  useEffect(() => () => putBack(shown), []);
}
