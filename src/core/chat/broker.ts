import { randomBytes } from "node:crypto";
import {
  CHAT_LIMITS,
  type ChatMessage,
  type ChatPartner,
  type ChatStatus,
} from "../../common/chat.ts";
import { CHAT_TIMINGS } from "../../common/chat-timings.ts";
import { DomainError, RateLimitedError } from "../errors.ts";
import { FloodGate } from "./flood.ts";
import { Mailbox, type MailboxListener } from "./mailbox.ts";

/** A visitor as the chat knows them: the cookie id, the address hash, and the country shown. */
export interface ChatVisitor {
  visitorId: string;
  ipKey: string;
  country: ChatPartner;
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
 * Pairing and relay behind one seam: in memory in one process today; a Redis-backed broker
 * can take its place when several processes serve one site.
 */
export interface ChatBroker {
  status(visitorId: string): ChatStatus;
  /**
   * Gives `onEvent` the visitor's events after `lastEventId` (a fresh stream starts with a
   * status event), each as it happens, until the returned function is called. While no one
   * listens, the visitor has a grace period to come back before they leave.
   */
  listen(
    visitorId: string,
    lastEventId: string | null | undefined,
    onEvent: MailboxListener,
  ): () => void;
  start(visitor: ChatVisitor): ChatStatus;
  send(visitorId: string, content: string): ChatMessage;
  typing(visitorId: string, isTyping: boolean): void;
  end(visitorId: string): void;
  /** A message the visitor's partner sent in their current or a recently ended chat. */
  partnerMessage(visitorId: string, messageId: string): HeldMessage | undefined;
  /** Ends whatever the visitor is doing and tells them they are banned until `until`. */
  ban(visitorId: string, until: number): void;
  /** Visitors waiting or chatting now. */
  online(): number;
  /** Chats running now. */
  activeChats(): number;
  /** Ends every chat, telling both sides (the server is stopping). */
  endAll(): void;
  close(): void;
}

export interface BrokerOptions {
  now?: () => number;
  /** Whether a visitor may chat now (bans); checked when starting and matching. */
  isBanned?: (visitorId: string, ipKey: string) => boolean;
  resumeGraceMs?: number;
  /** A visitor is not paired again with a partner they left within this long. */
  skipPartnerMs?: number;
  /** Ended chats keep their messages this long, for reports sent after a partner left. */
  keepEndedMs?: number;
  flood?: { ratePerSecond: number; burst: number };
}

interface Chat {
  id: string;
  a: ChatVisitor;
  b: ChatVisitor;
  messages: HeldMessage[];
  endedAt?: number;
}

interface Presence {
  visitor: ChatVisitor | undefined;
  mailbox: Mailbox;
  chatId?: string;
  /** Set while the visitor has no open stream; leaving happens when it fires. */
  graceTimer?: ReturnType<typeof setTimeout>;
}

export class InMemoryChatBroker implements ChatBroker {
  readonly #now: () => number;
  readonly #isBanned: (visitorId: string, ipKey: string) => boolean;
  readonly #resumeGraceMs: number;
  readonly #skipPartnerMs: number;
  readonly #keepEndedMs: number;
  readonly #flood: FloodGate;
  readonly #epoch = randomBytes(4).toString("hex");
  /** Mailboxes made so far: each gets an epoch of its own, so a visitor who comes back after
   * their grace period cannot resume from a number in the mailbox they had before. */
  #mailboxes = 0;
  readonly #messageIds = new RandomIds();

  /** Waiting visitors, longest-waiting first (a Map keeps insertion order). */
  readonly #pool = new Map<string, ChatVisitor>();
  readonly #presence = new Map<string, Presence>();
  readonly #chats = new Map<string, Chat>();
  /** "a|b" → when a and b last parted. */
  readonly #parted = new Map<string, number>();
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(options: BrokerOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#isBanned = options.isBanned ?? (() => false);
    this.#resumeGraceMs = options.resumeGraceMs ?? CHAT_TIMINGS.resumeGraceMs;
    this.#skipPartnerMs = options.skipPartnerMs ?? 10 * 60 * 1000;
    this.#keepEndedMs = options.keepEndedMs ?? 10 * 60 * 1000;
    const flood = options.flood ?? { ratePerSecond: 5, burst: 10 };
    this.#flood = new FloodGate(flood.ratePerSecond, flood.burst, this.#now);
    this.#sweeper = setInterval(() => this.#sweep(), 60_000);
    this.#sweeper.unref?.();
  }

  #presenceOf(visitorId: string): Presence {
    let presence = this.#presence.get(visitorId);
    if (!presence) {
      const epoch = `${this.#epoch}.${(this.#mailboxes++).toString(36)}`;
      presence = { visitor: undefined, mailbox: new Mailbox(epoch) };
      this.#presence.set(visitorId, presence);
    }
    return presence;
  }

  status(visitorId: string): ChatStatus {
    const presence = this.#presence.get(visitorId);
    if (!presence) return { state: "idle" };
    const chat = presence.chatId ? this.#chats.get(presence.chatId) : undefined;
    if (chat && !chat.endedAt) {
      const partner = chat.a.visitorId === visitorId ? chat.b : chat.a;
      return { state: "chatting", chatId: chat.id, partner: partner.country };
    }
    return this.#pool.has(visitorId) ? { state: "waiting" } : { state: "idle" };
  }

  listen(
    visitorId: string,
    lastEventId: string | null | undefined,
    onEvent: MailboxListener,
  ): () => void {
    const presence = this.#presenceOf(visitorId);
    if (presence.graceTimer) {
      clearTimeout(presence.graceTimer);
      presence.graceTimer = undefined;
    }
    const { mailbox } = presence;
    let stop: () => void;
    try {
      // A fresh stream starts with where things stand; a resumed one only gets what it missed.
      if (!mailbox.knows(lastEventId)) {
        lastEventId = mailbox.currentId();
        onEvent({ id: lastEventId, event: { type: "status", status: this.status(visitorId) } });
      }
      stop = mailbox.listen(lastEventId, onEvent);
    } catch (error) {
      if (mailbox.readers === 0) this.#startGrace(visitorId, presence);
      throw error;
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stop();
      if (mailbox.readers === 0) this.#startGrace(visitorId, presence);
    };
  }

  /** With no stream open, the visitor gets a grace period to come back before they leave. */
  #startGrace(visitorId: string, presence: Presence): void {
    if (presence.graceTimer) clearTimeout(presence.graceTimer);
    presence.graceTimer = setTimeout(() => {
      presence.graceTimer = undefined;
      if (presence.mailbox.readers === 0) {
        this.end(visitorId);
        this.#presence.delete(visitorId);
      }
    }, this.#resumeGraceMs);
    presence.graceTimer.unref?.();
  }

  #pairKey(a: string, b: string): string {
    return a < b ? `${a}|${b}` : `${b}|${a}`;
  }

  #recentlyParted(a: string, b: string): boolean {
    const at = this.#parted.get(this.#pairKey(a, b));
    return at !== undefined && this.#now() - at < this.#skipPartnerMs;
  }

  start(visitor: ChatVisitor): ChatStatus {
    if (this.#isBanned(visitor.visitorId, visitor.ipKey)) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
    const presence = this.#presenceOf(visitor.visitorId);
    presence.visitor = visitor;
    const current = this.status(visitor.visitorId);
    // Another tab of the same visitor shares the one chat; starting again changes nothing.
    if (current.state !== "idle") return current;

    // The longest-waiting visitor who is someone else, allowed to chat, and not just left.
    for (const [id, waiting] of this.#pool) {
      if (id === visitor.visitorId) continue;
      if (this.#recentlyParted(id, visitor.visitorId)) continue;
      if (this.#isBanned(id, waiting.ipKey)) {
        this.#pool.delete(id);
        continue;
      }
      this.#pool.delete(id);
      return this.#pair(waiting, visitor);
    }
    this.#pool.set(visitor.visitorId, visitor);
    presence.mailbox.push({ type: "waiting" });
    // Someone who starts without listening is not left waiting forever.
    if (presence.mailbox.readers === 0) this.#startGrace(visitor.visitorId, presence);
    return { state: "waiting" };
  }

  #pair(first: ChatVisitor, second: ChatVisitor): ChatStatus {
    const chat: Chat = {
      id: randomBytes(9).toString("base64url"),
      a: first,
      b: second,
      messages: [],
    };
    this.#chats.set(chat.id, chat);
    const pa = this.#presenceOf(first.visitorId);
    const pb = this.#presenceOf(second.visitorId);
    pa.chatId = chat.id;
    pb.chatId = chat.id;
    pa.mailbox.push({ type: "matched", chatId: chat.id, partner: second.country });
    pb.mailbox.push({ type: "matched", chatId: chat.id, partner: first.country });
    return { state: "chatting", chatId: chat.id, partner: first.country };
  }

  #currentChat(visitorId: string): Chat | undefined {
    const chatId = this.#presence.get(visitorId)?.chatId;
    const chat = chatId ? this.#chats.get(chatId) : undefined;
    return chat && !chat.endedAt ? chat : undefined;
  }

  send(visitorId: string, content: string): ChatMessage {
    const presence = this.#presence.get(visitorId);
    const chat = presence?.chatId ? this.#chats.get(presence.chatId) : undefined;
    if (!presence || !chat || chat.endedAt) throw new DomainError("NOT_FOUND", "not in a chat");
    const sender = chat.a.visitorId === visitorId ? chat.a : chat.b;
    const receiver = sender === chat.a ? chat.b : chat.a;
    if (this.#isBanned(sender.visitorId, sender.ipKey)) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
    if (!this.#flood.allow(visitorId)) throw new RateLimitedError(1);
    const held: HeldMessage = {
      id: this.#messageIds.next(),
      senderVisitorId: visitorId,
      senderIpKey: sender.ipKey,
      content: content.slice(0, CHAT_LIMITS.message),
      timestamp: this.#now(),
    };
    chat.messages.push(held);
    if (chat.messages.length > CHAT_LIMITS.buffer) chat.messages.shift();
    const { id, timestamp } = held;
    const { countryCode, country } = sender.country;
    this.#presenceOf(receiver.visitorId).mailbox.push({
      type: "message",
      chatId: chat.id,
      message: { id, content: held.content, timestamp, countryCode, country, from: "partner" },
    });
    const mine: ChatMessage = {
      id,
      content: held.content,
      timestamp,
      countryCode,
      country,
      from: "me",
    };
    presence.mailbox.push({ type: "message", chatId: chat.id, message: mine });
    return mine;
  }

  typing(visitorId: string, isTyping: boolean): void {
    const chat = this.#currentChat(visitorId);
    if (!chat) return;
    const receiver = chat.a.visitorId === visitorId ? chat.b : chat.a;
    this.#presenceOf(receiver.visitorId).mailbox.push({
      type: "typing",
      chatId: chat.id,
      isTyping,
    });
  }

  end(visitorId: string): void {
    if (this.#pool.delete(visitorId)) {
      this.#presence.get(visitorId)?.mailbox.push({ type: "idle" });
      return;
    }
    const chat = this.#currentChat(visitorId);
    if (!chat) return;
    const partner = chat.a.visitorId === visitorId ? chat.b : chat.a;
    this.#finish(chat, [partner.visitorId]);
    this.#presence.get(visitorId)?.mailbox.push({ type: "idle" });
  }

  /** Ends a chat; those named in `tellLeft` hear that their partner left. */
  #finish(chat: Chat, tellLeft: string[]): void {
    chat.endedAt = this.#now();
    this.#parted.set(this.#pairKey(chat.a.visitorId, chat.b.visitorId), chat.endedAt);
    for (const side of [chat.a, chat.b]) {
      const presence = this.#presence.get(side.visitorId);
      if (!presence) continue;
      presence.chatId = undefined;
      if (tellLeft.includes(side.visitorId)) {
        presence.mailbox.push({ type: "typing", chatId: chat.id, isTyping: false });
        presence.mailbox.push({ type: "partner-left", chatId: chat.id });
      }
    }
  }

  partnerMessage(visitorId: string, messageId: string): HeldMessage | undefined {
    for (const chat of this.#chats.values()) {
      if (chat.a.visitorId !== visitorId && chat.b.visitorId !== visitorId) continue;
      const found = chat.messages.find((m) => m.id === messageId);
      if (found) return found.senderVisitorId === visitorId ? undefined : found;
    }
    return undefined;
  }

  ban(visitorId: string, until: number): void {
    this.end(visitorId);
    this.#presence.get(visitorId)?.mailbox.push({ type: "banned", until });
  }

  online(): number {
    let chatting = 0;
    for (const chat of this.#chats.values()) if (!chat.endedAt) chatting += 2;
    return this.#pool.size + chatting;
  }

  activeChats(): number {
    let running = 0;
    for (const chat of this.#chats.values()) if (!chat.endedAt) running += 1;
    return running;
  }

  endAll(): void {
    for (const chat of [...this.#chats.values()]) {
      if (!chat.endedAt) this.#finish(chat, [chat.a.visitorId, chat.b.visitorId]);
    }
    for (const id of [...this.#pool.keys()]) this.end(id);
  }

  /** Forgets ended chats and partings past their keeping time. */
  #sweep(): void {
    const now = this.#now();
    for (const [id, chat] of this.#chats) {
      if (chat.endedAt && now - chat.endedAt > this.#keepEndedMs) this.#chats.delete(id);
    }
    for (const [key, at] of this.#parted)
      if (now - at > this.#skipPartnerMs) this.#parted.delete(key);
  }

  close(): void {
    clearInterval(this.#sweeper);
    for (const presence of this.#presence.values())
      if (presence.graceTimer) clearTimeout(presence.graceTimer);
  }
}

/**
 * Random ids of 12 base64url characters (72 random bits, as randomBytes(9) gives), cut from one
 * larger draw: asking the system for random bytes once per chat message costs more than the
 * rest of relaying it.
 */
export class RandomIds {
  static readonly BYTES_PER_ID = 9;
  static readonly CHARS_PER_ID = 12;
  #pool = "";
  #at = 0;

  constructor(private readonly perDraw = 256) {}

  next(): string {
    if (this.#at >= this.#pool.length) {
      this.#pool = randomBytes(RandomIds.BYTES_PER_ID * this.perDraw).toString("base64url");
      this.#at = 0;
    }
    const id = this.#pool.slice(this.#at, this.#at + RandomIds.CHARS_PER_ID);
    this.#at += RandomIds.CHARS_PER_ID;
    return id;
  }
}
