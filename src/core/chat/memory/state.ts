import { randomBytes } from "node:crypto";
import type { ChatStatus } from "../../../common/chat.ts";
import { CHAT_TIMINGS } from "../../../common/chat-timings.ts";
import { systemTime, type Time, type TimerHandle } from "../../clock.ts";
import type { BrokerOptions, ChatVisitor, HeldMessage } from "../broker.ts";
import { Mailbox } from "../mailbox.ts";
import type { Seeker } from "../preferences.ts";

export interface Chat {
  id: string;
  a: ChatVisitor;
  b: ChatVisitor;
  messages: HeldMessage[];
  endedAt?: number;
}

export interface Presence {
  visitor: ChatVisitor | undefined;
  mailbox: Mailbox;
  chatId?: string;
  /** Set while the visitor has no open stream; leaving happens when it fires. */
  graceTimer?: TimerHandle;
}

export interface Waiting extends Seeker {
  visitor: ChatVisitor;
  since: number;
  /** Looks again once their fallback delay ends, or a recent partner may be met again. */
  timer?: TimerHandle;
}

/**
 * What the parts of the chat in one process share: the clock, the timings, and every map of
 * who waits, who is present, which chats there are and what holds two visitors apart.
 */
export class MemoryChat {
  readonly time: Time;
  readonly now: () => number;
  readonly isBanned: (visitorId: string, ipKey: string) => boolean;
  readonly resumeGraceMs: number;
  readonly skipPartnerMs: number;
  readonly meetAgainAfterMs: number;
  readonly keepEndedMs: number;
  readonly #epoch = randomBytes(4).toString("hex");
  /** Mailboxes made so far: each gets an epoch of its own, so a visitor who comes back after
   * their grace period cannot resume from a number in the mailbox they had before. */
  #mailboxes = 0;

  /** Waiting visitors, longest-waiting first (a Map keeps insertion order). */
  readonly pool = new Map<string, Waiting>();
  readonly presence = new Map<string, Presence>();
  readonly chats = new Map<string, Chat>();
  /** "a|b" → when a and b last parted. */
  readonly parted = new Map<string, number>();
  /** "a|b" → until when one of them blocked the other; "<blocker>|ip:<hash>" likewise. */
  readonly blocks = new Map<string, number>();
  /** "visitor:<id>" or "ip:<hash>" → until when their messages reach no one. */
  readonly muted = new Map<string, number>();

  constructor(options: BrokerOptions) {
    this.time = options.time ?? systemTime;
    this.now = () => this.time.now();
    this.isBanned = options.isBanned ?? (() => false);
    this.resumeGraceMs = options.resumeGraceMs ?? CHAT_TIMINGS.resumeGraceMs;
    this.skipPartnerMs = options.skipPartnerMs ?? CHAT_TIMINGS.partedKeptApartMs;
    this.meetAgainAfterMs = options.meetAgainAfterMs ?? CHAT_TIMINGS.meetAgainAfterMs;
    this.keepEndedMs = options.keepEndedMs ?? CHAT_TIMINGS.endedChatKeptMs;
  }

  /** A new visitor's mailbox, numbered in an epoch of its own. */
  newMailbox(): Mailbox {
    const epoch = `${this.#epoch}.${(this.#mailboxes++).toString(36)}`;
    return new Mailbox(epoch);
  }

  /** Whether the visitor has a chat stream open now: only they can be paired. */
  listening(visitorId: string): boolean {
    return (this.presence.get(visitorId)?.mailbox.readers ?? 0) > 0;
  }

  status(visitorId: string): ChatStatus {
    const presence = this.presence.get(visitorId);
    if (!presence) return { state: "idle" };
    const chat = presence.chatId ? this.chats.get(presence.chatId) : undefined;
    if (chat && !chat.endedAt) {
      const partner = chat.a.visitorId === visitorId ? chat.b : chat.a;
      return { state: "chatting", chatId: chat.id, partner: partner.country };
    }
    return this.pool.has(visitorId) ? { state: "waiting" } : { state: "idle" };
  }

  currentChat(visitorId: string): Chat | undefined {
    const chatId = this.presence.get(visitorId)?.chatId;
    const chat = chatId ? this.chats.get(chatId) : undefined;
    return chat && !chat.endedAt ? chat : undefined;
  }

  pairKey(a: string, b: string): string {
    return a < b ? `${a}|${b}` : `${b}|${a}`;
  }

  /** Forgets ended chats and partings past their keeping time. */
  sweep(): void {
    const now = this.now();
    for (const [id, chat] of this.chats) {
      if (chat.endedAt && now - chat.endedAt > this.keepEndedMs) this.chats.delete(id);
    }
    for (const [key, at] of this.parted) if (now - at > this.skipPartnerMs) this.parted.delete(key);
    for (const map of [this.blocks, this.muted]) {
      for (const [key, until] of map) if (until <= now) map.delete(key);
    }
  }
}
