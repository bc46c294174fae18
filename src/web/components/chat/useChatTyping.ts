import { useCallback, useEffect, useRef } from "react";
import { trpc } from "../../lib/trpc.ts";

/** The visitor counts as typing until this long after their last keystroke. */
const TYPING_IDLE_MS = 3000;
/** While the visitor keeps typing, "typing" is said again at most this often. */
const TYPING_REPEAT_MS = 2000;

/**
 * Tells the partner when the visitor types, while `active` (an open chat): "typing" at most
 * every 2 s, "stopped" after 3 s of quiet, an empty box, or a sent message.
 */
export function useChatTyping(active: boolean) {
  const client = trpc.useUtils().client;
  const sent = useRef({ typing: false, at: 0 });
  const idle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const stopTyping = useCallback(() => {
    clearTimeout(idle.current);
    if (!sent.current.typing) return;
    sent.current = { typing: false, at: 0 };
    client.chat.typing.mutate({ isTyping: false }).catch(() => {});
  }, [client]);

  // A chat that closes forgets what was said about typing; the server forgets it too.
  useEffect(() => {
    if (active) return;
    clearTimeout(idle.current);
    sent.current = { typing: false, at: 0 };
  }, [active]);
  useEffect(() => () => clearTimeout(idle.current), []);

  /** Called on every change of the text box. */
  const noteTyping = useCallback(
    (text: string) => {
      if (!active) return;
      if (text.trim() === "") {
        stopTyping();
        return;
      }
      const now = Date.now();
      if (!sent.current.typing || now - sent.current.at >= TYPING_REPEAT_MS) {
        sent.current = { typing: true, at: now };
        client.chat.typing.mutate({ isTyping: true }).catch(() => {});
      }
      clearTimeout(idle.current);
      idle.current = setTimeout(stopTyping, TYPING_IDLE_MS);
    },
    [active, client, stopTyping],
  );

  return { noteTyping, stopTyping };
}
