import { useEffect, useRef, useSyncExternalStore } from "react";
import { useI18n } from "../../lib/i18n.tsx";
import type { ChatState } from "./chatReducer.ts";
import { chime } from "./chime.ts";

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

/** The site's icon in the tab strip. */
const iconLink = () => document.querySelector<HTMLLinkElement>('link[rel="icon"]');

/** The site's icon with a dot in its corner, drawn once from the icon itself. */
let dotted: Promise<string | null> | null = null;
function dottedIcon(href: string): Promise<string | null> {
  dotted ??= (async () => {
    try {
      const image = new Image();
      image.src = href;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = 64;
      canvas.height = 64;
      const draw = canvas.getContext("2d");
      if (!draw) return null;
      draw.drawImage(image, 0, 0, 64, 64);
      draw.beginPath();
      draw.arc(48, 16, 14, 0, 2 * Math.PI);
      draw.fillStyle = "#f43f5e";
      draw.fill();
      draw.lineWidth = 4;
      draw.strokeStyle = "#ffffff";
      draw.stroke();
      // A data: URL, which the Content-Security-Policy's img-src allows.
      return canvas.toDataURL("image/png");
    } catch {
      return null;
    }
  })();
  return dotted;
}

/**
 * The dot on the tab's icon while `on`: the icon's own address comes back when it goes (or
 * the page does).
 */
function useIconDot(on: boolean): void {
  useEffect(() => {
    const link = iconLink();
    if (!on || !link) return;
    const own = link.href;
    let live = true;
    void dottedIcon(own).then((url) => {
      if (live && url) link.href = url;
    });
    return () => {
      live = false;
      link.href = own;
    };
  }, [on]);
}

/**
 * While the tab is in the background, it says what happened since it was left: its title says
 * a partner was found, then how many messages they sent ("(2) Random Chat · Tidings"), its icon
 * wears a dot, and (when the visitor turned it on) a soft sound plays. A visitor waiting for a
 * match in another tab sees it in the tab strip instead of leaving their partner waiting. The
 * page's own title and icon come back when the tab is looked at again (or the page goes).
 */
export function useTabTitle(chat: Pick<ChatState, "chatId" | "entries">, sound: boolean): void {
  const { LL } = useI18n();
  const hidden = useSyncExternalStore(subscribe, isHidden, () => false);
  const partnerMessages = chat.entries.filter(
    (entry) => entry.kind === "message" && entry.message.from === "partner",
  ).length;
  /** Where the chat stood when the tab was left. */
  const left = useRef<{ chatId: string | null; messages: number } | null>(null);
  const shown = useRef<Shown | null>(null);
  /** What was last told of in the background: each new match or message chimes once. */
  const told = useRef(0);

  let news = 0;
  if (hidden && left.current) {
    const newChat = chat.chatId !== null && chat.chatId !== left.current.chatId;
    news =
      (newChat ? 1 : 0) + (newChat ? partnerMessages : partnerMessages - left.current.messages);
  }

  useEffect(() => {
    if (!hidden) {
      left.current = null;
      told.current = 0;
      return putBack(shown);
    }
    left.current ??= { chatId: chat.chatId, messages: partnerMessages };
    const newChat = chat.chatId !== null && chat.chatId !== left.current.chatId;
    const unread = newChat ? partnerMessages : partnerMessages - left.current.messages;
    const before = shown.current?.before ?? document.title;
    let title: string | null = null;
    if (unread > 0) title = LL.randomChat.tabTitle.unread({ count: unread, title: before });
    else if (newChat) title = LL.randomChat.tabTitle.matched();
    if (title === null) return putBack(shown);
    shown.current = { ours: title, before };
    document.title = title;
  }, [hidden, chat.chatId, partnerMessages, LL]);

  useEffect(() => {
    if (news > told.current && sound) chime();
    told.current = Math.max(told.current, news);
  }, [news, sound]);

  useIconDot(news > 0);

  // The page going (the chat switched off meanwhile, say) takes its title along.
  useEffect(() => () => putBack(shown), []);
}
