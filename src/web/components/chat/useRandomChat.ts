import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import {
  CHAT_LIMITS,
  type ChatEvent,
  type ChatMessage,
  type ChatPartner,
  type ChatStatus,
} from "../../../common/chat.ts";
import { CHAT_TIMINGS } from "../../../common/chat-timings.ts";
import { appCodeOf, errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";

/** Where the ban expiry is kept between visits (spec 3: local storage, ban-expiry timestamp). */
export const BAN_STORAGE_KEY = "chat-ban-until";

/** How long "Find Someone" waits for the chat stream before it gives up with a connection error. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The visitor counts as typing until this long after their last keystroke. */
const TYPING_IDLE_MS = 3000;
/** While the visitor keeps typing, "typing" is said again at most this often. */
const TYPING_REPEAT_MS = 2000;
/** The partner's indicator hides by itself if their "stopped typing" never arrives. */
const TYPING_SHOWN_MS = 6000;
/** A stream the server ended with an error (not a dropped socket) is opened again after this. */
const RESUBSCRIBE_MS = 5000;
/** The online count is asked for again this often. */
export const ONLINE_REFRESH_MS = 15_000;

export type ChatPhase = "idle" | "connecting" | "searching" | "chatting";

export type ChatEntry =
  | { kind: "message"; message: ChatMessage }
  | { kind: "system"; id: string; text: SystemText };

/** The red lines the chat itself writes: the partner left, the chat ended elsewhere, or was lost. */
export type SystemText = "partnerLeft" | "chatEnded" | "chatLost";

export function readStoredBan(now = Date.now()): number | null {
  try {
    const until = Number(localStorage.getItem(BAN_STORAGE_KEY));
    if (Number.isFinite(until) && until > now) return until;
    // Expired (or unreadable) bans are cleared (spec 5).
    localStorage.removeItem(BAN_STORAGE_KEY);
  } catch {
    // Storage may be refused; the server still knows.
  }
  return null;
}

function storeBan(until: number | null): void {
  try {
    if (until === null) localStorage.removeItem(BAN_STORAGE_KEY);
    else localStorage.setItem(BAN_STORAGE_KEY, String(until));
  } catch {
    // The server is the source of truth; storage only saves a round trip.
  }
}

/** Hours left, rounded, at least 1: the "about N hours" of the "Chat restricted" notice. */
export function hoursLeft(until: number, now = Date.now()): number {
  return Math.max(1, Math.round((until - now) / 3_600_000));
}

/** When the server says a ban ends: now plus its retry-after seconds (a day if it did not say). */
function banEndOf(error: unknown): number {
  const data = (error as { data?: { retryAfter?: unknown } } | null)?.data;
  const seconds = typeof data?.retryAfter === "number" ? data.retryAfter : 24 * 60 * 60;
  return Date.now() + seconds * 1000;
}

const prefersFinePointer = () =>
  typeof matchMedia === "function" && matchMedia("(pointer: fine)").matches;

/**
 * The random chat as one state machine over the chat stream: idle → connecting → searching →
 * chatting → (partner left, 3 s) → idle. Every server event and every call goes through here;
 * the page only draws what it answers.
 */
export function useRandomChat() {
  const { LL } = useI18n();
  const utils = trpc.useUtils();
  const client = utils.client;

  const [phase, setPhaseState] = useState<ChatPhase>("idle");
  const [partner, setPartner] = useState<ChatPartner | null>(null);
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const [partnerTyping, setPartnerTyping] = useState(false);
  const [matchOverlay, setMatchOverlay] = useState(false);
  /** The partner left (or the chat was lost): the view stays 3 s, read-only, then goes idle. */
  const [ended, setEndedState] = useState(false);
  const [reconnecting, setReconnecting] = useState(false);
  const [bannedUntil, setBannedUntil] = useState<number | null>(() => readStoredBan());
  const [subscriptionRun, setSubscriptionRun] = useState(0);

  const phaseRef = useRef<ChatPhase>("idle");
  const endedRef = useRef(false);
  const chatIdRef = useRef<string | null>(null);
  const seenIds = useRef(new Set<string>());
  const connectedRef = useRef(false);
  const connectionWaiters = useRef(new Set<(ok: boolean) => void>());
  const mounted = useRef(true);
  const timers = useRef({
    overlay: undefined as ReturnType<typeof setTimeout> | undefined,
    reset: undefined as ReturnType<typeof setTimeout> | undefined,
    partnerTyping: undefined as ReturnType<typeof setTimeout> | undefined,
    typingIdle: undefined as ReturnType<typeof setTimeout> | undefined,
  });
  const typingSent = useRef<{ active: boolean; at: number }>({ active: false, at: 0 });
  const composerRef = useRef<HTMLTextAreaElement | null>(null);
  /** When the visitor last ended a search or chat: a match already on its way is not shown. */
  const endedByUsAt = useRef(0);

  const currentPhase = useCallback((): ChatPhase => phaseRef.current, []);
  const setPhase = useCallback((next: ChatPhase) => {
    phaseRef.current = next;
    setPhaseState(next);
  }, []);
  const setEnded = useCallback((next: boolean) => {
    endedRef.current = next;
    setEndedState(next);
  }, []);

  const clearTimer = useCallback((name: keyof typeof timers.current) => {
    const timer = timers.current[name];
    if (timer !== undefined) clearTimeout(timer);
    timers.current[name] = undefined;
  }, []);

  const refreshOnline = useCallback(() => {
    void utils.chat.online.invalidate();
  }, [utils]);

  // ---- typing (our side) ----

  const stopTyping = useCallback(() => {
    clearTimer("typingIdle");
    if (!typingSent.current.active) return;
    typingSent.current = { active: false, at: 0 };
    client.chat.typing.mutate({ isTyping: false }).catch(() => {});
  }, [client, clearTimer]);

  /** Called on every change of the text box: "typing" at most every 2 s, "stopped" after 3 s. */
  const noteTyping = useCallback(
    (text: string) => {
      if (phaseRef.current !== "chatting" || endedRef.current) return;
      if (text.trim() === "") {
        stopTyping();
        return;
      }
      const now = Date.now();
      if (!typingSent.current.active || now - typingSent.current.at >= TYPING_REPEAT_MS) {
        typingSent.current = { active: true, at: now };
        client.chat.typing.mutate({ isTyping: true }).catch(() => {});
      }
      clearTimer("typingIdle");
      timers.current.typingIdle = setTimeout(stopTyping, TYPING_IDLE_MS);
    },
    [client, clearTimer, stopTyping],
  );

  // ---- state changes ----

  const hidePartnerTyping = useCallback(() => {
    clearTimer("partnerTyping");
    setPartnerTyping(false);
  }, [clearTimer]);

  const resetToIdle = useCallback(() => {
    for (const name of ["overlay", "reset", "partnerTyping", "typingIdle"] as const) {
      clearTimer(name);
    }
    typingSent.current = { active: false, at: 0 };
    chatIdRef.current = null;
    seenIds.current = new Set();
    setPhase("idle");
    setEnded(false);
    setPartner(null);
    setEntries([]);
    setPartnerTyping(false);
    setMatchOverlay(false);
    refreshOnline();
  }, [clearTimer, refreshOnline, setEnded, setPhase]);

  const enterChat = useCallback(
    (chatId: string, who: ChatPartner, announce: boolean) => {
      if (chatIdRef.current === chatId) return;
      for (const name of ["overlay", "reset", "partnerTyping", "typingIdle"] as const) {
        clearTimer(name);
      }
      typingSent.current = { active: false, at: 0 };
      chatIdRef.current = chatId;
      seenIds.current = new Set();
      setEntries([]);
      setPartner(who);
      setPartnerTyping(false);
      setEnded(false);
      setPhase("chatting");
      refreshOnline();
      if (announce) {
        setMatchOverlay(true);
        timers.current.overlay = setTimeout(
          () => setMatchOverlay(false),
          CHAT_TIMINGS.matchOverlayMs,
        );
      }
      // On a phone, focusing would throw the keyboard over the match; with a mouse it helps.
      if (prefersFinePointer())
        setTimeout(() => composerRef.current?.focus({ preventScroll: true }), 0);
    },
    [clearTimer, refreshOnline, setEnded, setPhase],
  );

  /** The partner left, or the chat ended or was lost: a red line, then idle 3 s later. */
  const closeChat = useCallback(
    (text: SystemText) => {
      if (endedRef.current) return;
      clearTimer("typingIdle");
      typingSent.current = { active: false, at: 0 };
      hidePartnerTyping();
      setMatchOverlay(false);
      clearTimer("overlay");
      setEnded(true);
      setEntries((list) => [...list, { kind: "system", id: `system-${Date.now()}`, text }]);
      if (text === "partnerLeft") {
        toast(LL.randomChat.chatEndedTitle(), { description: LL.randomChat.partnerLeft() });
      }
      clearTimer("reset");
      timers.current.reset = setTimeout(resetToIdle, CHAT_TIMINGS.partnerLeftResetMs);
    },
    [LL, clearTimer, hidePartnerTyping, resetToIdle, setEnded],
  );

  const addMessage = useCallback(
    (chatId: string | null, message: ChatMessage) => {
      if (chatId !== null && chatId !== chatIdRef.current) return;
      if (seenIds.current.has(message.id)) return; // the same message twice (spec 5)
      seenIds.current.add(message.id);
      setEntries((list) => [...list, { kind: "message", message }]);
      if (message.from === "partner") hidePartnerTyping();
    },
    [hidePartnerTyping],
  );

  const applyBan = useCallback(
    (until: number, announce: boolean) => {
      storeBan(until);
      setBannedUntil(until);
      if (phaseRef.current !== "idle") resetToIdle();
      if (announce) {
        toast.error(LL.randomChat.restrictedTitle(), {
          description: LL.randomChat.restrictedToast({ hours: hoursLeft(until) }),
        });
      }
    },
    [LL, resetToIdle],
  );

  const applyStatus = useCallback(
    (status: ChatStatus, announceMatch: boolean) => {
      if (status.state === "chatting") {
        enterChat(status.chatId, status.partner, announceMatch);
      } else if (status.state === "waiting") {
        if (phaseRef.current !== "chatting" || endedRef.current) {
          if (endedRef.current) resetToIdle();
          setPhase("searching");
          refreshOnline();
        }
      } else if (phaseRef.current === "chatting" && !endedRef.current) {
        closeChat("chatLost");
      } else if (phaseRef.current === "searching") {
        resetToIdle();
      }
    },
    [closeChat, enterChat, refreshOnline, resetToIdle, setPhase],
  );

  const onEvent = useCallback(
    (event: ChatEvent) => {
      switch (event.type) {
        case "status":
          // While "Find Someone" is on its way, the start call's answer decides.
          if (phaseRef.current === "connecting" && event.status.state === "idle") return;
          applyStatus(event.status, false);
          return;
        case "waiting":
          if (phaseRef.current !== "chatting") {
            setPhase("searching");
            refreshOnline();
          }
          return;
        case "matched":
          // Cancelled just as the pairing happened: our end ends this chat too (idle follows).
          if (phaseRef.current === "idle" && Date.now() - endedByUsAt.current < 5000) return;
          enterChat(event.chatId, event.partner, true);
          return;
        case "message":
          addMessage(event.chatId, event.message);
          return;
        case "typing":
          if (event.chatId !== chatIdRef.current || endedRef.current) return;
          clearTimer("partnerTyping");
          setPartnerTyping(event.isTyping);
          if (event.isTyping) {
            timers.current.partnerTyping = setTimeout(
              () => setPartnerTyping(false),
              TYPING_SHOWN_MS,
            );
          }
          return;
        case "partner-left":
          if (event.chatId === chatIdRef.current) closeChat("partnerLeft");
          return;
        case "idle":
          // Our own end was drawn already. Otherwise the chat ended elsewhere: another tab of
          // ours, a ban (which follows), or the server shutting down (partner-left follows).
          if (phaseRef.current === "searching") resetToIdle();
          else if (phaseRef.current === "chatting" && !endedRef.current) closeChat("chatEnded");
          return;
        case "banned":
          applyBan(event.until, true);
          return;
      }
    },
    [
      addMessage,
      applyBan,
      applyStatus,
      clearTimer,
      closeChat,
      enterChat,
      refreshOnline,
      resetToIdle,
      setPhase,
    ],
  );

  // The latest handlers, so the stream is opened once and never re-subscribed for a new closure.
  const handlers = useRef({ onEvent, applyBan, LL });
  handlers.current = { onEvent, applyBan, LL };

  const isBanned = bannedUntil !== null;

  // ---- the chat stream ----

  // biome-ignore lint/correctness/useExhaustiveDependencies: `subscriptionRun` reopens the stream.
  useEffect(() => {
    if (isBanned) return;
    const settle = (ok: boolean) => {
      for (const wake of connectionWaiters.current) wake(ok);
      connectionWaiters.current.clear();
    };
    let retry: ReturnType<typeof setTimeout> | undefined;
    const subscription = client.chat.events.subscribe(undefined, {
      onStarted() {
        connectedRef.current = true;
        setReconnecting(false);
        settle(true);
      },
      onData(tracked) {
        connectedRef.current = true;
        setReconnecting(false);
        settle(true);
        handlers.current.onEvent(tracked.data);
      },
      onConnectionStateChange(state) {
        if (state.state === "connecting" && state.error) {
          connectedRef.current = false;
          setReconnecting(true);
          settle(false);
        }
      },
      onError(error) {
        connectedRef.current = false;
        settle(false);
        if (appCodeOf(error) === "CHAT_BANNED") {
          handlers.current.applyBan(banEndOf(error), false);
          return;
        }
        setReconnecting(true);
        retry = setTimeout(() => setSubscriptionRun((run) => run + 1), RESUBSCRIBE_MS);
      },
    });
    return () => {
      clearTimeout(retry);
      connectedRef.current = false;
      settle(false);
      subscription.unsubscribe();
    };
  }, [client, isBanned, subscriptionRun]);

  // The server is the source of truth for bans; storage only draws the first frame.
  const me = trpc.chat.me.useQuery(undefined, { staleTime: 0 });
  useEffect(() => {
    if (!me.data) return;
    const until = me.data.bannedUntil;
    if (until !== null && until > Date.now()) {
      storeBan(until);
      setBannedUntil(until);
    } else {
      storeBan(null);
      setBannedUntil(null);
    }
  }, [me.data]);

  // A ban lifts by itself when it ends (timers cannot wait longer than ~24.8 days at once).
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (bannedUntil === null) return;
    setNow(Date.now());
    const tick = setInterval(() => setNow(Date.now()), 60_000);
    const wait = Math.min(Math.max(0, bannedUntil - Date.now()) + 500, 2 ** 31 - 1);
    const lift = setTimeout(() => {
      if (readStoredBan() === null || Date.now() >= bannedUntil) {
        storeBan(null);
        setBannedUntil(null);
        void me.refetch();
      }
    }, wait);
    return () => {
      clearInterval(tick);
      clearTimeout(lift);
    };
  }, [bannedUntil, me.refetch]);

  const waitForConnection = useCallback((): Promise<boolean> => {
    if (connectedRef.current) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        connectionWaiters.current.delete(done);
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), CONNECT_TIMEOUT_MS);
      connectionWaiters.current.add(done);
    });
  }, []);

  // ---- actions ----

  const start = useCallback(async () => {
    const t = handlers.current.LL.randomChat;
    const stored = readStoredBan();
    if (stored !== null) {
      applyBan(stored, true);
      return;
    }
    if (phaseRef.current !== "idle") return;
    setPhase("connecting");
    const connected = await waitForConnection();
    // Read through a call: the phase may have moved while we waited.
    if (!mounted.current || currentPhase() !== "connecting") return;
    if (!connected) {
      setPhase("idle");
      toast.error(t.connectionErrorTitle(), { description: t.tryLater() });
      return;
    }
    try {
      const status = await client.chat.start.mutate();
      const now = currentPhase();
      // Cancelled meanwhile: the search was already ended.
      if (!mounted.current || now === "idle") return;
      if (now === "connecting" && status.state === "idle") setPhase("idle");
      else applyStatus(status, true);
    } catch (error) {
      if (!mounted.current) return;
      if (appCodeOf(error) === "CHAT_BANNED") {
        applyBan(banEndOf(error), true);
        return;
      }
      if (currentPhase() === "connecting") setPhase("idle");
      const description =
        appCodeOf(error) === "RATE_LIMITED"
          ? errorMessage(handlers.current.LL, error)
          : t.tryLater();
      toast.error(t.matchingErrorTitle(), { description });
    }
  }, [applyBan, applyStatus, client, currentPhase, setPhase, waitForConnection]);

  /** Ends the search or the chat at once; the server tells the partner. */
  const end = useCallback(() => {
    const wasActive = phaseRef.current === "searching" || phaseRef.current === "chatting";
    if (wasActive && !endedRef.current) {
      endedByUsAt.current = Date.now();
      client.chat.end.mutate().catch(() => {});
    }
    resetToIdle();
  }, [client, resetToIdle]);

  /** Ends this chat (the partner is told) and looks for the next stranger at once. */
  const next = useCallback(async () => {
    const wasChatting = phaseRef.current === "chatting" && !endedRef.current;
    resetToIdle();
    if (wasChatting) {
      endedByUsAt.current = Date.now();
      // The end reaches the server before the new start, so the pool never pairs us twice.
      await client.chat.end.mutate().catch(() => {});
    }
    if (mounted.current) await start();
  }, [client, resetToIdle, start]);

  /** Sends one message; false when it was not sent (the text stays in the box). */
  const send = useCallback(
    async (text: string): Promise<boolean> => {
      const t = handlers.current.LL.randomChat;
      const content = text.trim();
      if (content === "" || content.length > CHAT_LIMITS.message) return false;
      if (phaseRef.current !== "chatting" || endedRef.current) return false;
      const chatId = chatIdRef.current;
      stopTyping();
      try {
        const message = await client.chat.send.mutate({ content });
        if (mounted.current) addMessage(chatId, message);
        return true;
      } catch (error) {
        if (!mounted.current) return false;
        const code = appCodeOf(error);
        if (code === "CHAT_BANNED") {
          applyBan(banEndOf(error), true);
          return false;
        }
        toast.error(t.sendFailedTitle(), {
          description: code === "RATE_LIMITED" ? t.tooFast() : t.tryLater(),
        });
        return false;
      }
    },
    [addMessage, applyBan, client, stopTyping],
  );

  // ---- leaving ----

  useEffect(() => {
    mounted.current = true;
    const onPageHide = () => {
      const active = phaseRef.current === "searching" || phaseRef.current === "chatting";
      if (!active || endedRef.current) return;
      // The socket dies with the tab; a beacon still reaches the server, so the partner is
      // told at once instead of after the resume grace period.
      navigator.sendBeacon?.("/trpc/chat.end", new Blob(["{}"], { type: "application/json" }));
    };
    addEventListener("pagehide", onPageHide);
    return () => {
      mounted.current = false;
      removeEventListener("pagehide", onPageHide);
      // Leaving the page (another route) while searching or chatting ends it (spec 4).
      const active = phaseRef.current === "searching" || phaseRef.current === "chatting";
      if (active && !endedRef.current) client.chat.end.mutate().catch(() => {});
      for (const timer of Object.values(timers.current)) {
        if (timer !== undefined) clearTimeout(timer);
      }
    };
  }, [client]);

  return {
    phase,
    partner,
    entries,
    partnerTyping,
    matchOverlay,
    ended,
    reconnecting,
    bannedUntil: bannedUntil !== null && bannedUntil > now ? bannedUntil : null,
    now,
    me: me.data,
    composerRef,
    start,
    end,
    next,
    send,
    noteTyping,
  };
}
