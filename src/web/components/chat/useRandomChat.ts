import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { toast } from "sonner";
import {
  CHAT_LIMITS,
  type ChatEvent,
  type ChatMessage,
  type ChatReportOutcome,
  type ChatReportReason,
} from "../../../common/chat.ts";
import { type MatchPreferencesInput, matchStages } from "../../../common/chat-preferences.ts";
import { CHAT_PASS } from "../../../common/pow.ts";
import { appCodeOf, errorMessage, fieldIssuesOf } from "../../lib/errors.ts";
import { useMarkResting, useSetResting } from "../../lib/features.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { usePow } from "../../lib/pow.ts";
import { trpc } from "../../lib/trpc.ts";
import {
  type ChatAction,
  type ChatState,
  chatReducer,
  idleChat,
  lastPartnerMessage,
} from "./chatReducer.ts";
import { type ChatPreferences, startInput, usePreferences } from "./matchPreferences.ts";
import {
  banEndOf,
  MUTE_STORAGE_KEY,
  readStored,
  readStoredBan,
  store,
  useChatBan,
} from "./useChatBan.ts";
import { useChatHolder } from "./useChatHolder.ts";
import { useChatStream } from "./useChatStream.ts";
import { useChatTimers } from "./useChatTimers.ts";
import { useChatTyping } from "./useChatTyping.ts";

/** Within this of a start sent with a solution, the next go without one (the server's pass). */
const CHAT_PASS_MS = CHAT_PASS.ttlMs - 60_000;

const prefersFinePointer = () =>
  typeof matchMedia === "function" && matchMedia("(pointer: fine)").matches;

/**
 * The random chat: the reducer's state (chatReducer.ts) over the visitor's chat stream, with
 * the ban, the typing signals and the timers in hooks of their own. The page draws what this
 * answers and calls start, end, next and send.
 */
export function useRandomChat() {
  const { LL, locale } = useI18n();
  const t = LL.randomChat;
  const utils = trpc.useUtils();
  const client = utils.client;
  // The first start of a visit carries a solution (solved while the page shows); it grants a
  // pass for the next starts (Next), which go without one while it lasts.
  const pow = usePow("chat");
  const passFrom = useRef<number | null>(null);
  // A mute outlasts a reload: the server sends it once, when it starts.
  const [state, dispatch] = useReducer(chatReducer, idleChat, (idle) => ({
    ...idle,
    mutedUntil: readStored(MUTE_STORAGE_KEY),
  }));
  // The state after every action so far, for calls that finish before the next render; every
  // action goes through `act`, which keeps it (the reducer is pure, so running it twice is safe).
  const current = useRef(state);
  // Starts under way (a Next's end, then its start): the tab keeps its hold on the chat through
  // them, so another tab of the visitor's cannot take the search it is about to start.
  const keep = useRef(0);
  const handover = useRef<BroadcastChannel | null>(null);
  const searchNow = useRef<RandomChatSearch | null>(null);
  const holder = useChatHolder(
    () => keep.current > 0 || holdsOn(current.current),
    // Taken over by another tab: it gets the chat as this tab has it, own messages included.
    () => handover.current?.postMessage({ state: current.current, search: searchNow.current }),
  );
  // Nothing going on here any more, and no start under way: another tab may hold the next one.
  const letGoWhenDone = useCallback(() => {
    if (keep.current === 0 && !holdsOn(current.current)) holder.letGo();
  }, [holder.letGo]);
  const act = useCallback(
    (action: ChatAction) => {
      current.current = chatReducer(current.current, action);
      dispatch(action);
      letGoWhenDone();
    },
    [letGoWhenDone],
  );
  const phaseNow = () => current.current.phase;
  const mounted = useRef(true);
  const composerRef = useRef<HTMLTextAreaElement | null>(null);
  const open = state.phase === "chatting" && state.ended === null;

  const markResting = useMarkResting();
  const setResting = useSetResting();
  // The partner's message "End & report" reports, once the chat is over.
  const [endReport, setEndReport] = useState<ChatMessage | null>(null);
  useEffect(() => store(MUTE_STORAGE_KEY, state.mutedUntil), [state.mutedUntil]);

  // What the visitor asks of a match, kept on the device; Next asks the same again.
  const [preferences, storePreferences] = usePreferences(locale);
  const asking = useRef(preferences);
  asking.current = preferences;
  // The interests the server refused: marked and named beside them; all stay as typed.
  const [interestRefused, setInterestRefused] = useState<readonly string[] | null>(null);
  const setPreferences = useCallback(
    (next: ChatPreferences) => {
      storePreferences(next);
      // Those still listed stay marked until removed.
      setInterestRefused((refused) => {
        const left = refused?.filter((interest) => next.interests.includes(interest)) ?? [];
        return left.length > 0 ? left : null;
      });
    },
    [storePreferences],
  );
  // What the current search asks for, as the page counts it down.
  const [search, setSearch] = useState<RandomChatSearch | null>(null);
  searchNow.current = search;

  const ban = useChatBan();
  const banned = useCallback(
    (until: number, announce: boolean) => {
      ban.apply(until, announce);
      act({ type: "banned" });
    },
    [ban.apply, act],
  );
  const onEvent = useCallback(
    (event: ChatEvent) => {
      act({ type: "server", event, at: Date.now() });
      if (event.type === "banned") banned(event.until, true);
      // The operator switched chat off: the resting notice takes the chat's place.
      if (event.type === "resting") setResting("chat");
    },
    [banned, act, setResting],
  );
  const stream = useChatStream(
    !ban.isBanned,
    onEvent,
    (until) => banned(until, false),
    (error) => markResting(error, "chat"),
  );
  const typing = useChatTyping(open);
  useChatTimers(state, act);

  // Told of a search or chat (this tab's, or one another tab of the visitor's holds): which tab
  // shows it is settled before it is shown.
  const going = holdsOn(state);
  useEffect(() => {
    if (going) void holder.claim();
  }, [going, holder.claim]);
  // The chat handed over by the tab this one took it from.
  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(HANDOVER_CHANNEL);
    handover.current = channel;
    channel.onmessage = ({ data }: MessageEvent<Handover>) => {
      if (!holder.holdsIt()) return;
      act({ type: "adopt", state: data.state });
      if (data.search && current.current.phase === "searching") setSearch(data.search);
    };
    return () => {
      channel.close();
      handover.current = null;
    };
  }, [act, holder.holdsIt]);

  // Who is online changes with every step; a new chat puts the cursor in the text box (on a
  // phone that would throw the keyboard over the match, so only with a mouse).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the phase is the trigger.
  useEffect(() => void utils.chat.online.invalidate(), [state.phase, utils]);
  useEffect(() => {
    if (state.chatId && prefersFinePointer()) composerRef.current?.focus({ preventScroll: true });
  }, [state.chatId]);

  /**
   * A refused call: banned (said in a toast), the safety gate still to answer (or answered
   * "under 18"), the chat resting; or else the toast titled `title`.
   */
  const refused = (error: unknown, title: string, rateLimited: string) => {
    const code = appCodeOf(error);
    if (code === "CHAT_BANNED") return banned(banEndOf(error), true);
    if (markResting(error, "chat")) return;
    if (code === "AGE_CONFIRMATION_REQUIRED" || code === "AGE_REFUSED") {
      const age = code === "AGE_REFUSED" ? "refused" : "unanswered";
      utils.chat.me.setData(undefined, (me) => (me ? { ...me, age } : me));
      return void utils.chat.me.invalidate();
    }
    let description: string = t.tryLater();
    if (code === "RATE_LIMITED") description = rateLimited;
    if (code === "SPAM_REPEATED") description = errorMessage(LL, error);
    toast.error(title, { description });
  };

  const start = async () => {
    const stored = readStoredBan();
    if (stored !== null) return banned(stored, true);
    if (phaseNow() !== "idle") return;
    keep.current += 1;
    try {
      // Another tab of the visitor's holds a search or chat: this one says so instead.
      if (!(await holder.claim()) || phaseNow() !== "idle") return;
      act({ type: "start" });
    } finally {
      keep.current -= 1;
    }
    const connected = await stream.waitForConnection();
    // Read through a call: the phase may have moved while we waited.
    if (!mounted.current || phaseNow() !== "connecting") return;
    if (!connected) {
      act({ type: "start-failed" });
      toast.error(t.connectionErrorTitle(), { description: t.tryLater() });
      return;
    }
    const asked = startInput(asking.current);
    try {
      const passHeld = passFrom.current !== null && Date.now() - passFrom.current < CHAT_PASS_MS;
      const status = await pow.run(
        (solution) =>
          asked || solution
            ? client.chat.startWith.mutate({ ...asked, pow: solution })
            : client.chat.start.mutate(),
        passHeld ? "none" : "prepared",
      );
      if (!passHeld) passFrom.current = Date.now();
      if (!mounted.current) return;
      setInterestRefused(null);
      // The stages the server keeps to: interests first, then a language, then anyone.
      const stages = matchStages(asked);
      const now = Date.now();
      setSearch(
        asked
          ? {
              asked,
              languageAt: stages.language ? now + stages.language : null,
              anyoneAt: stages.anyone > 0 ? now + stages.anyone : null,
            }
          : null,
      );
      act({ type: "started", status, at: Date.now() });
    } catch (error) {
      if (!mounted.current) return;
      act({ type: "start-failed" });
      if (appCodeOf(error) === "INTEREST_REFUSED") {
        return setInterestRefused(refusedInterests(error, asked?.interests ?? []));
      }
      refused(error, t.matchingErrorTitle(), errorMessage(LL, error));
    }
  };

  /** While waiting for a shared language: anyone will do, at once. */
  const widen = async () => {
    setSearch((current) => current && { ...current, languageAt: null, anyoneAt: null });
    await client.chat.widen.mutate().catch(() => {});
  };

  /** Ends the search or the chat at once; the server tells the partner. */
  const end = async () => {
    const { phase, ended } = current.current;
    act({ type: "end", at: Date.now() });
    if ((phase === "searching" || phase === "chatting") && ended === null) {
      await client.chat.end.mutate().catch(() => {});
    }
  };

  /**
   * Ends the chat at once; the two are never paired again (the server keeps them apart). Once
   * the chat has ended, the partner is named by their last message, which the server still
   * holds for a while.
   */
  const block = async () => {
    const { phase, ended } = current.current;
    if (phase !== "chatting") return;
    if (ended !== null) {
      const message = lastPartnerMessage(current.current);
      if (!message) return;
      try {
        await client.chat.block.mutate({ messageId: message.id });
        if (mounted.current) act({ type: "reset", forGood: true });
        toast.success(t.blockedTitle(), { description: t.blockedBody() });
      } catch (error) {
        toast.error(t.blockFailedTitle(), { description: errorMessage(LL, error) });
      }
      return;
    }
    act({ type: "end", at: Date.now(), forGood: true });
    try {
      await client.chat.block.mutate();
      toast.success(t.blockedTitle(), { description: t.blockedBody() });
    } catch (error) {
      // Ended here all the same; the server is told the plain way.
      await client.chat.end.mutate().catch(() => {});
      toast.error(t.blockFailedTitle(), { description: errorMessage(LL, error) });
    }
  };

  /**
   * One tap: ends the chat and opens the report of the partner's last message. A chat that has
   * ended already stays on screen, and the report opens over it.
   */
  const endAndReport = () => {
    const message = lastPartnerMessage(current.current);
    if (!message) return;
    if (current.current.ended === null) void end();
    setEndReport(message);
  };

  /**
   * Reports a partner's message (in the open chat, or one that has ended: the server keeps its
   * messages a while). Answers what came of it; a refusal throws, for the dialog to say.
   */
  const report = async (
    messageId: string,
    reason: ChatReportReason,
  ): Promise<ChatReportOutcome> => {
    const { chatId } = current.current;
    act({ type: "reporting", chatId });
    try {
      return (await client.chat.report.mutate({ messageId, reason })).outcome;
    } catch (error) {
      if (mounted.current) act({ type: "report-failed", chatId });
      throw error;
    }
  };

  /** Ends this chat and looks for the next stranger; the end reaches the server first. */
  const next = async () => {
    keep.current += 1;
    try {
      await end();
      if (mounted.current) await start();
    } finally {
      keep.current -= 1;
      letGoWhenDone();
    }
  };

  /** Sends one message; false when it was not sent (the text stays in the box). */
  const send = async (text: string): Promise<boolean> => {
    const content = text.trim();
    const { chatId } = current.current;
    if (content === "" || content.length > CHAT_LIMITS.message || !open) return false;
    typing.stopTyping();
    try {
      const message = await client.chat.send.mutate({ content });
      if (mounted.current) act({ type: "sent", chatId, message });
      return true;
    } catch (error) {
      if (!mounted.current) return false;
      // No such chat on the server any more (Redis lost it, say): the chat ends here at once,
      // with what was typed kept in the box.
      if (appCodeOf(error) === "NOT_FOUND") act({ type: "lost", chatId, at: Date.now() });
      else refused(error, t.sendFailedTitle(), t.tooFast());
      return false;
    }
  };

  // Leaving the page (another route, or the tab) while searching or chatting ends the search or
  // the chat: nobody is left talking to a visitor who has gone.
  useEffect(() => {
    mounted.current = true;
    holder.attach();
    // Only the tab that holds it: another tab of the visitor's leaves it running.
    const held = () => isActive(current.current) && holder.holdsIt();
    const onPageHide = () => {
      // The socket dies with the tab; a beacon still reaches the server, so the partner is
      // told at once instead of after the resume grace period.
      if (held())
        navigator.sendBeacon?.("/trpc/chat.end", new Blob(["{}"], { type: "application/json" }));
    };
    addEventListener("pagehide", onPageHide);
    return () => {
      mounted.current = false;
      removeEventListener("pagehide", onPageHide);
      if (held()) client.chat.end.mutate().catch(() => {});
      holder.dispose();
    };
  }, [client, holder.attach, holder.holdsIt, holder.dispose]);

  return {
    ...state,
    reconnecting: stream.reconnecting,
    bannedUntil: ban.bannedUntil,
    now: ban.now,
    me: ban.me,
    meFailed: ban.meFailed,
    composerRef,
    start,
    end: () => void end(),
    block: () => void block(),
    endAndReport,
    /** Back at the start from a chat that has ended. */
    close: () => act({ type: "reset" }),
    report,
    endReport,
    closeEndReport: () => setEndReport(null),
    next,
    send,
    noteTyping: typing.noteTyping,
    preferences,
    setPreferences,
    interestRefused,
    search,
    widen: () => void widen(),
    /** The first start waits for the browser's proof of work (past half a second). */
    powWorking: pow.working,
    /**
     * A search or open chat this tab does not show: another tab of the visitor's holds it
     * ("elsewhere"), or which one does is not known yet (useChatHolder.ts).
     */
    away:
      holder.placement === "elsewhere" || (going && holder.placement === "unknown")
        ? holder.placement
        : null,
    takeOver: () => void holder.takeOver(),
  };
}

/** A search or an open chat is going on: leaving the page ends it. */
const isActive = ({ phase, ended }: ChatState) =>
  (phase === "searching" || phase === "chatting") && ended === null;

/** A search or an open chat is going on, or one is starting: a tab holds it. */
const holdsOn = ({ phase, ended }: ChatState) => phase !== "idle" && ended === null;

/**
 * What the current search asks for, when a shared language alone will do (null: at once, or
 * no language named) and when anyone will (null: at once).
 */
export interface RandomChatSearch {
  asked: MatchPreferencesInput;
  languageAt: number | null;
  anyoneAt: number | null;
}

/** Between the visitor's tabs: the chat handed to the tab that took it over. */
const HANDOVER_CHANNEL = "tidings-chat-handover";
interface Handover {
  state: ChatState;
  search: RandomChatSearch | null;
}

/** What useRandomChat answers: the chat's state, and start, end, next and send. */
export type RandomChat = ReturnType<typeof useRandomChat>;

/** The interests a refusal names by their place ("interests.1"), as the visitor typed them. */
function refusedInterests(error: unknown, asked: readonly string[]): string[] {
  return fieldIssuesOf(error).flatMap(({ field }) => {
    const interest = asked[Number(/^interests\.(\d+)$/.exec(field)?.[1] ?? Number.NaN)];
    return interest === undefined ? [] : [interest];
  });
}
