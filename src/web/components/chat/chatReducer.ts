// The random chat as a pure state machine: idle → connecting → searching → chatting → (partner
// left: a red line, the chat read-only but still on screen, so its messages can be reported and
// its partner blocked) → Next, Close or leaving. Every server event and every answer to the
// visitor's own calls goes through `chatReducer`; timers, toasts and calls live in the hooks.
import type { ChatEvent, ChatMessage, ChatStatus } from "../../../common/chat.ts";
import type { SharedGround } from "../../../common/chat-preferences.ts";
import type { Country } from "../../../common/country.ts";

export type ChatPhase = "idle" | "connecting" | "searching" | "chatting";

/**
 * The red lines the chat itself writes: the partner left, the chat ended elsewhere, or was lost;
 * or it ended after the visitor's own report ("reported": they will not be matched again).
 */
export type SystemText = "partnerLeft" | "chatEnded" | "chatLost" | "reported";

export type ChatEntry =
  | { kind: "message"; message: ChatMessage }
  | { kind: "system"; id: string; text: SystemText };

/** A match that arrives this soon after the visitor ended a search was already on its way. */
export const LATE_MATCH_MS = 5000;

export interface ChatState {
  phase: ChatPhase;
  chatId: string | null;
  partner: Country | null;
  /** What the two share (languages, interests), when either asked for something. */
  shared: SharedGround | null;
  entries: ChatEntry[];
  partnerTyping: boolean;
  /** Counts "partner is typing" signals, so each one restarts the indicator's own timeout. */
  typingSignals: number;
  /** "Match successful" shows over a new chat for 3 s. */
  matchOverlay: boolean;
  /** Why the open chat ended; it stays on screen, read-only, until Next, Close or leaving. */
  ended: SystemText | null;
  /** The visitor reported a message in this chat (or a report is on its way). */
  reported: boolean;
  /** When the visitor last ended a search or a chat. */
  endedByUsAt: number | null;
  /**
   * When the visitor's last chat ended, by either side, with a partner they may meet again
   * (not one they blocked or reported).
   */
  partedAt: number | null;
  /** Until when the visitor's messages reach no one (repeated spam); it outlasts the chat. */
  mutedUntil: number | null;
}

export type ChatAction =
  /** "Find Someone" was pressed. */
  | { type: "start" }
  /** No connection came, or the start call failed. */
  | { type: "start-failed" }
  /** The start call's answer: where the server put the visitor. */
  | { type: "started"; status: ChatStatus; at: number }
  /**
   * The visitor ended the search or the chat (End, Cancel, Next, leaving the page); `forGood`
   * when they blocked the partner.
   */
  | { type: "end"; at: number; forGood?: boolean }
  /** The visitor closed the ended chat (`forGood`: having blocked its partner): at the start. */
  | { type: "reset"; forGood?: boolean }
  /** A report of a message in chat `chatId` is on its way... */
  | { type: "reporting"; chatId: string | null }
  /** ...and was refused (it did not happen). */
  | { type: "report-failed"; chatId: string | null }
  | { type: "overlay-done" }
  | { type: "typing-expired" }
  /** The server's answer to the visitor's own message, in the chat it was sent to. */
  | { type: "sent"; chatId: string | null; message: ChatMessage }
  /** A message sent to chat `chatId` was refused because the server has no such chat any more. */
  | { type: "lost"; chatId: string | null; at: number }
  /** An event of the chat stream, and when it arrived. */
  | { type: "server"; event: ChatEvent; at: number }
  /** The visitor is banned (a refused call said so): any chat ends. */
  | { type: "banned" }
  /**
   * The chat as the visitor's other tab had it when this tab took it over: its messages, the
   * visitor's own among them, which only the tab that sent them was told of.
   */
  | { type: "adopt"; state: ChatState };

export const idleChat: ChatState = {
  phase: "idle",
  chatId: null,
  partner: null,
  shared: null,
  entries: [],
  partnerTyping: false,
  typingSignals: 0,
  matchOverlay: false,
  ended: null,
  reported: false,
  endedByUsAt: null,
  partedAt: null,
  mutedUntil: null,
};

/**
 * Back at the start, remembering only when the visitor last ended something or parted from a
 * partner, and any mute.
 */
function reset(state: ChatState): ChatState {
  return {
    ...idleChat,
    endedByUsAt: state.endedByUsAt,
    partedAt: state.partedAt,
    mutedUntil: state.mutedUntil,
  };
}

function enter(
  state: ChatState,
  chatId: string,
  partner: Country,
  announce: boolean,
  shared: SharedGround | null = null,
): ChatState {
  if (state.chatId === chatId) {
    // The same chat again (a resumed stream, or the start call answered before the event that
    // says what the two share).
    return shared && !state.shared ? { ...state, shared } : state;
  }
  return {
    ...reset(state),
    phase: "chatting",
    chatId,
    partner,
    shared,
    matchOverlay: announce,
  };
}

function close(state: ChatState, text: SystemText, at: number): ChatState {
  if (state.ended) return state;
  return {
    ...state,
    ended: text,
    partedAt: state.reported ? state.partedAt : at,
    partnerTyping: false,
    matchOverlay: false,
    entries: [...state.entries, { kind: "system", id: `system-${at}`, text }],
  };
}

function add(state: ChatState, chatId: string | null, message: ChatMessage): ChatState {
  if (chatId !== null && chatId !== state.chatId) return state;
  // A message is shown once, though it comes twice: the call's answer and the stream's copy
  // share its id.
  if (state.entries.some((e) => e.kind === "message" && e.message.id === message.id)) return state;
  return {
    ...state,
    entries: [...state.entries, { kind: "message", message }],
    partnerTyping: message.from === "partner" ? false : state.partnerTyping,
  };
}

const chatting = (state: ChatState) => state.phase === "chatting" && state.ended === null;

/** Where the server says the visitor is: in a chat, waiting, or nowhere. */
function applyStatus(state: ChatState, status: ChatStatus, announce: boolean, at: number) {
  if (status.state === "chatting") return enter(state, status.chatId, status.partner, announce);
  if (status.state === "waiting") {
    if (chatting(state)) return state;
    return { ...reset(state), phase: "searching" as const };
  }
  if (chatting(state)) return close(state, "chatLost", at);
  if (state.phase === "searching") return reset(state);
  return state;
}

function onServer(state: ChatState, event: ChatEvent, at: number): ChatState {
  switch (event.type) {
    case "status":
      // While "Find Someone" is on its way, the start call's answer decides.
      if (state.phase === "connecting" && event.status.state === "idle") return state;
      return applyStatus(state, event.status, false, at);
    case "waiting":
      return state.phase === "chatting" ? state : { ...state, phase: "searching" };
    case "matched": {
      // Cancelled just as the pairing happened: our end ends this chat too (idle follows).
      const late = state.endedByUsAt !== null && at - state.endedByUsAt < LATE_MATCH_MS;
      if (state.phase === "idle" && late) return state;
      return enter(state, event.chatId, event.partner, true, event.shared ?? null);
    }
    case "message":
      return add(state, event.chatId, event.message);
    case "typing":
      if (event.chatId !== state.chatId || state.ended) return state;
      return {
        ...state,
        partnerTyping: event.isTyping,
        typingSignals: state.typingSignals + (event.isTyping ? 1 : 0),
      };
    case "partner-left":
      if (event.chatId !== state.chatId) return state;
      // After the visitor's own report (a child-safety report ends the chat at once), what
      // matters is that the two are kept apart from now on.
      return close(state, state.reported ? "reported" : "partnerLeft", at);
    case "idle":
      // Our own end was drawn already. Otherwise the chat ended elsewhere: another tab of
      // ours, a ban (which follows), or the server shutting down (partner-left follows).
      if (state.phase === "searching") return reset(state);
      return chatting(state) ? close(state, "chatEnded", at) : state;
    case "banned":
      return state.phase === "idle" ? state : reset(state);
    case "muted":
      // The chat goes on, but what the visitor sends reaches no one until then (a later mute
      // wins; an older copy of the event changes nothing).
      if (state.mutedUntil !== null && state.mutedUntil >= event.until) return state;
      return { ...state, mutedUntil: event.until };
    case "resting":
      // Chat is switched off: the page shows the resting notice in the chat's place.
      return reset(state);
  }
}

/** The report turned out not to be recorded: the line says what really happened. */
function unreport(state: ChatState): ChatState {
  if (!state.reported) return state;
  const text = (t: SystemText): SystemText => (t === "reported" ? "partnerLeft" : t);
  return {
    ...state,
    reported: false,
    ended: state.ended && text(state.ended),
    entries: state.entries.map((e) => (e.kind === "system" ? { ...e, text: text(e.text) } : e)),
  };
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "start":
      return state.phase === "idle" ? { ...state, phase: "connecting" } : state;
    case "start-failed":
      return state.phase === "connecting" ? reset(state) : state;
    case "started":
      // Cancelled meanwhile: the search was already ended.
      if (state.phase === "idle") return state;
      if (state.phase === "connecting" && action.status.state === "idle") return reset(state);
      return applyStatus(state, action.status, true, action.at);
    case "end": {
      const leftOpenChat = state.phase === "chatting" && !state.ended;
      let { partedAt } = state;
      if (action.forGood || state.reported) partedAt = null;
      else if (leftOpenChat) partedAt = action.at;
      return { ...reset(state), endedByUsAt: action.at, partedAt };
    }
    case "reset":
      if (!state.ended) return state;
      return action.forGood ? { ...reset(state), partedAt: null } : reset(state);
    case "reporting":
      return action.chatId === state.chatId && state.chatId !== null
        ? { ...state, reported: true }
        : state;
    case "report-failed":
      return action.chatId === state.chatId ? unreport(state) : state;
    case "overlay-done":
      return { ...state, matchOverlay: false };
    case "typing-expired":
      return { ...state, partnerTyping: false };
    case "sent":
      return add(state, action.chatId, action.message);
    case "lost":
      // The stream says so too, when it can; the visitor's own answer does not wait for it.
      return action.chatId === state.chatId && chatting(state)
        ? close(state, "chatLost", action.at)
        : state;
    case "server":
      return onServer(state, action.event, action.at);
    case "banned":
      return state.phase === "idle" ? state : reset(state);
    case "adopt":
      return adopt(state, action.state);
  }
}

/**
 * The other tab's chat, with what only this tab heard since (both tabs hear the partner, and
 * each writes its own red line when the chat ends).
 */
function adopt(state: ChatState, from: ChatState): ChatState {
  if (state.chatId === null || from.chatId !== state.chatId) return state;
  const heard = (entry: ChatEntry) =>
    from.entries.some((known) =>
      entry.kind === "message"
        ? known.kind === "message" && known.message.id === entry.message.id
        : known.kind === "system" && known.text === entry.text,
    );
  return {
    ...state,
    shared: state.shared ?? from.shared,
    entries: [...from.entries, ...state.entries.filter((entry) => !heard(entry))],
    reported: state.reported || from.reported,
    mutedUntil: Math.max(state.mutedUntil ?? 0, from.mutedUntil ?? 0) || null,
  };
}

/** The partner's latest message in the open or just-ended chat, the one "End & report" reports. */
export function lastPartnerMessage(state: ChatState): ChatMessage | null {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const entry = state.entries[i];
    if (entry?.kind === "message" && entry.message.from === "partner") return entry.message;
  }
  return null;
}

/** Whether the visitor's messages reach no one at `now`. */
export function isMuted(state: Pick<ChatState, "mutedUntil">, now: number): boolean {
  return state.mutedUntil !== null && state.mutedUntil > now;
}
