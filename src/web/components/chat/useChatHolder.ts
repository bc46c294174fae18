import { useRef, useState } from "react";

/**
 * Which of the visitor's tabs holds their search or chat. The server knows one visitor (the
 * cookie every tab shares), so every tab on the chat page is told of the same chat; one tab at a
 * time shows it, sends in it, and ends it when it is closed. Another tab says where the chat is
 * and can take it over; closing that tab leaves the chat running. The tab holding it keeps a Web
 * Lock, which the browser lets go of when the tab is closed or crashes. Without Web Locks (an
 * older browser, or a page not served over HTTPS) every tab holds it, as before.
 */
export type Placement = "here" | "elsewhere" | "unknown";

const LOCK = "tidings-chat";
const supported = () => typeof navigator !== "undefined" && "locks" in navigator;

interface HolderHandlers {
  /** Whether this tab has a search or chat going, or one starting. */
  wanted: () => boolean;
  /** Another tab took this tab's chat over. */
  onTakenAway: () => void;
}

function chatHolder(show: (placement: Placement) => void, handlers: { current: HolderHandlers }) {
  let placement: Placement = supported() ? "unknown" : "here";
  let release: (() => void) | null = null;
  let waiting: AbortController | null = null;
  // The page has gone: a lock granted now is let go of at once.
  let gone = false;
  // Read through a call where TypeScript would keep a narrowing from before an await.
  const where = (): Placement => placement;
  const place = (next: Placement) => {
    placement = next;
    show(next);
  };

  /** Holds the lock from when the browser grants it until `letGo`, or until it is stolen. */
  const hold = (options: LockOptions): Promise<boolean> =>
    new Promise((granted) => {
      navigator.locks
        .request(LOCK, options, (lock) => {
          if (!lock || gone) return granted(false);
          granted(true);
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        })
        .catch(() => {
          granted(false);
          // A wait this tab called off, or a lock stolen by another tab's "Continue here".
          if (options.signal?.aborted || placement !== "here") return;
          release = null;
          place("elsewhere");
          handlers.current.onTakenAway();
          void waitForTurn();
        });
    });

  /** The search or chat is over here: another tab may hold the next one. */
  const letGo = () => {
    if (!supported() || placement === "unknown") return;
    release?.();
    release = null;
    waiting?.abort();
    waiting = null;
    place("unknown");
  };

  /**
   * Waits, in a tab told of a chat held elsewhere, until that tab lets go (its chat is over, or
   * it was closed); then this one holds whatever is still going on here.
   */
  const waitForTurn = async () => {
    waiting?.abort();
    const controller = new AbortController();
    waiting = controller;
    const got = await hold({ signal: controller.signal });
    if (waiting === controller) waiting = null;
    if (!got) return;
    place("here");
    if (!handlers.current.wanted()) letGo();
  };

  return {
    initial: placement,
    /** Whether this tab holds the search or chat (now, not at the last render). */
    holdsIt: () => placement === "here",
    /** Takes the search or chat for this tab unless another tab holds it; answers which. */
    async claim(): Promise<boolean> {
      if (placement !== "unknown") return placement === "here";
      const got = await hold({ ifAvailable: true });
      // A steal meanwhile settled it already.
      if (where() === "unknown") {
        place(got ? "here" : "elsewhere");
        if (!got) void waitForTurn();
        // Over before the lock came (a start that failed): let go of it again.
        else if (!handlers.current.wanted()) letGo();
      }
      return where() === "here";
    },
    /** Takes the chat from the tab holding it ("Continue here"). */
    async takeOver(): Promise<void> {
      if (placement !== "elsewhere") return;
      waiting?.abort();
      waiting = null;
      // Here from now: the other tab's handover can arrive before the browser's word that the
      // lock is this tab's.
      place("here");
      await hold({ steal: true });
    },
    letGo,
    /** The page is showing the chat (again, after `dispose`). */
    attach() {
      gone = false;
    },
    /** The page is going: lets go of the lock, without drawing anything. */
    dispose() {
      gone = true;
      release?.();
      release = null;
      waiting?.abort();
      waiting = null;
      if (supported()) placement = "unknown";
    },
  };
}

/**
 * The holder of this tab, and where its chat is now (see chatHolder); the page calls `attach`
 * when it shows, and `dispose` when it goes, once it has read `holdsIt`.
 */
export function useChatHolder(wanted: () => boolean, onTakenAway: () => void) {
  const handlers = useRef<HolderHandlers>({ wanted, onTakenAway });
  handlers.current = { wanted, onTakenAway };
  const [holder] = useState(() => chatHolder((next) => show(next), handlers));
  const [shown, show] = useState<Placement>(holder.initial);
  return { ...holder, placement: shown };
}
