import type { ChatMessage, ChatStatus } from "../../common/chat.ts";
import type { Country } from "../../common/country.ts";
import type { Time } from "../clock.ts";
import type { Muter } from "../moderation/repeats.ts";
import type { VisitorKeys } from "../requester.ts";
import type { KeyBan } from "./bans.ts";
import type { Numbered } from "./mailbox.ts";
import type { MatchPreferences } from "./preferences.ts";

/** A visitor as the chat knows them: the cookie id, the address hash, and the country shown. */
export interface ChatVisitor extends VisitorKeys {
  country: Country;
  /** What they asked of a match (languages, interests), held only while they wait. */
  preferences?: MatchPreferences;
}

/** A message as the server keeps it (in memory only) for reports. */
export interface HeldMessage {
  id: string;
  senderVisitorId: string;
  senderIpKey: string;
  content: string;
  timestamp: number;
}

/**
 * The pool: who is waiting, who is paired with whom, and where a visitor stands. Both brokers
 * keep the same rules: only visitors with an open stream are paired, longest-waiting first,
 * never with themselves, a banned visitor or a recent partner (unless both waited
 * `meetAgainAfterMs` alone).
 */
export interface ChatPool {
  status(visitorId: string): Promise<ChatStatus>;
  /**
   * Joins the pool (or answers the chat already running), paired by the matching rule (see
   * preferences.ts: a shared language and interest first, then a language, then anyone once the
   * fallback delay has passed); the "matched" event tells each side what they share.
   */
  start(visitor: ChatVisitor): Promise<ChatStatus>;
  /** A waiting visitor will take anyone now, without waiting out their fallback delay. */
  widen(visitorId: string): Promise<void>;
  /**
   * Ends the visitor's search or chat. `ifGone`: only when no other instance holds a stream of
   * theirs (their page went away here, while another tab of theirs may be open elsewhere).
   */
  end(visitorId: string, options?: { ifGone?: boolean }): Promise<void>;
  /**
   * The chat the visitor is in, as this process knows it (a pairing made on another instance a
   * moment ago may not have reached it yet), or undefined when they are in none.
   */
  chatOf(visitorId: string): Promise<string | undefined>;
  /** Visitors waiting or chatting now (on every instance). */
  online(): Promise<number>;
  counts(): Promise<BrokerCounts>;
}

/** The relay: a visitor's events, and what they say and type to their partner. */
export interface ChatRelay {
  /**
   * The visitor's events after `lastEventId` (a fresh stream starts with a status event), as
   * they happen, until `signal` aborts or the consumer stops: each step yields every event
   * waiting, in order (at least one), so several events leave in one frame; the last one's id
   * is where a stream resumes. While no stream is open, the visitor has a grace period to come
   * back before they leave.
   */
  events(
    visitorId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered[], void, undefined>;
  /**
   * Relays a message to the partner (the sender has it as the answer); `contact` marks one
   * holding contact details. A muted sender's message reaches no one.
   */
  send(visitorId: string, content: string, options?: { contact?: boolean }): Promise<ChatMessage>;
  typing(visitorId: string, isTyping: boolean): Promise<void>;
  /** A message the visitor's partner sent in their current or a recently ended chat. */
  partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined>;
}

/**
 * The holds on visitors: bans, blocks and mutes (the repeat rule's port, Muter, which bottles
 * use too; a muted visitor is told so).
 */
export interface ChatHolds extends Muter {
  /** When the mute on this visitor or their address ends, or null when there is none. */
  mutedUntil(visitorId: string, ipKey: string): Promise<number | null>;
  /**
   * Ends whatever the visitors the ban keys cover ("visitor:<id>", or "ip:<hash>" for everyone
   * from that address) are doing, and tells each of them once that they are banned, until the
   * latest end among the keys covering them.
   */
  ban(bans: readonly KeyBan[]): Promise<void>;
  /**
   * Ends the visitor's chat (the partner hears they left) and keeps the two from being paired
   * again until `until`, by the partner's visitor id and by their address. Answers who was
   * blocked, or undefined when there was no chat.
   */
  block(visitorId: string, until: number): Promise<ChatVisitor | undefined>;
  /** A block recorded earlier (the in-memory broker is told of them again at start). */
  rememberBlock(blocker: string, blocked: VisitorKeys, until: number): Promise<void>;
}

/**
 * The chat behind its seams (pool, relay, holds): in memory in one process (InMemoryChatBroker),
 * or on Redis when several processes serve one site (redis/broker.ts, RedisChatBroker). The
 * contract suite (tests/helpers/broker-contract.ts) runs on both.
 */
export interface ChatBroker extends ChatPool, ChatRelay, ChatHolds {
  /** Ends every chat this process serves, telling both sides (the server is stopping). */
  endAll(): Promise<void>;
  close(): Promise<void>;
}

export interface BrokerOptions {
  /** The clock and timers (grace periods, rematches, sweeps, typing windows); the system's by default. */
  time?: Time;
  /** Whether a visitor may chat now (bans); checked when starting and matching. */
  isBanned?: (visitorId: string, ipKey: string) => boolean;
  resumeGraceMs?: number;
  /** A visitor is not paired again with a partner they left within this long... */
  skipPartnerMs?: number;
  /** ...unless both have waited this long and nobody else is there to meet. */
  meetAgainAfterMs?: number;
  /** Ended chats keep their messages this long, for reports sent after a partner left. */
  keepEndedMs?: number;
}

/** At most this many typing events a second reach a partner; the latest state always does. */
export const TYPING_EVENTS_PER_SECOND = 2;

/** How many visitors, chats and timers the broker holds (for tests and health). */
export interface BrokerCounts {
  waiting: number;
  present: number;
  chatting: number;
  /** Ended chats kept for reports. */
  ended: number;
}
