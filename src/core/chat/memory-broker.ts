import { randomBytes } from "node:crypto";
import {
  CHAT_LIMITS,
  type ChatEvent,
  type ChatMessage,
  type ChatStatus,
} from "../../common/chat.ts";
import { CHAT_TIMINGS } from "../../common/chat-timings.ts";
import { systemTime, type Time, type TimerHandle } from "../clock.ts";
import { DomainError } from "../errors.ts";
import type { KeyBan } from "./bans.ts";
import type {
  BrokerCounts,
  BrokerOptions,
  ChatBroker,
  ChatVisitor,
  HeldMessage,
} from "./broker.ts";
import { eventStream } from "./events.ts";
import { holdKeys, latestHold } from "./holds.ts";
import { RandomIds } from "./ids.ts";
import { Mailbox, type MailboxListener, type Numbered } from "./mailbox.ts";
import { anyoneFrom, bestTierOf, type Seeker, sharedGround, tierOf } from "./preferences.ts";
import { TypingWindows } from "./typing.ts";

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
  graceTimer?: TimerHandle;
}

interface Waiting extends Seeker {
  visitor: ChatVisitor;
  since: number;
  /** Looks again once their fallback delay ends, or a recent partner may be met again. */
  timer?: TimerHandle;
}

export class InMemoryChatBroker implements ChatBroker {
  readonly #time: Time;
  readonly #now: () => number;
  readonly #isBanned: (visitorId: string, ipKey: string) => boolean;
  readonly #resumeGraceMs: number;
  readonly #skipPartnerMs: number;
  readonly #meetAgainAfterMs: number;
  readonly #keepEndedMs: number;
  readonly #epoch = randomBytes(4).toString("hex");
  /** Mailboxes made so far: each gets an epoch of its own, so a visitor who comes back after
   * their grace period cannot resume from a number in the mailbox they had before. */
  #mailboxes = 0;
  readonly #messageIds = new RandomIds();
  readonly #typing: TypingWindows;

  /** Waiting visitors, longest-waiting first (a Map keeps insertion order). */
  readonly #pool = new Map<string, Waiting>();
  readonly #presence = new Map<string, Presence>();
  readonly #chats = new Map<string, Chat>();
  /** "a|b" → when a and b last parted. */
  readonly #parted = new Map<string, number>();
  /** "a|b" → until when one of them blocked the other; "<blocker>|ip:<hash>" likewise. */
  readonly #blocks = new Map<string, number>();
  /** "visitor:<id>" or "ip:<hash>" → until when their messages reach no one. */
  readonly #muted = new Map<string, number>();
  readonly #sweeper: TimerHandle;

  constructor(options: BrokerOptions = {}) {
    this.#time = options.time ?? systemTime;
    this.#now = () => this.#time.now();
    this.#typing = new TypingWindows(this.#time, (visitorId, isTyping) =>
      this.#tellTyping(visitorId, isTyping),
    );
    this.#isBanned = options.isBanned ?? (() => false);
    this.#resumeGraceMs = options.resumeGraceMs ?? CHAT_TIMINGS.resumeGraceMs;
    this.#skipPartnerMs = options.skipPartnerMs ?? CHAT_TIMINGS.partedKeptApartMs;
    this.#meetAgainAfterMs = options.meetAgainAfterMs ?? CHAT_TIMINGS.meetAgainAfterMs;
    this.#keepEndedMs = options.keepEndedMs ?? CHAT_TIMINGS.endedChatKeptMs;
    this.#sweeper = this.#time.setInterval(() => this.#sweep(), 60_000);
    this.#sweeper.unref();
  }

  /** A visitor's presence, made on first need; with no stream open it lasts the grace period. */
  #presenceOf(visitorId: string): Presence {
    let presence = this.#presence.get(visitorId);
    if (!presence) {
      const epoch = `${this.#epoch}.${(this.#mailboxes++).toString(36)}`;
      presence = { visitor: undefined, mailbox: new Mailbox(epoch) };
      this.#presence.set(visitorId, presence);
      this.#startGrace(visitorId, presence);
    }
    return presence;
  }

  /** Whether the visitor has a chat stream open now: only they can be paired. */
  #listening(visitorId: string): boolean {
    return (this.#presence.get(visitorId)?.mailbox.readers ?? 0) > 0;
  }

  async status(visitorId: string): Promise<ChatStatus> {
    return this.#status(visitorId);
  }

  #status(visitorId: string): ChatStatus {
    const presence = this.#presence.get(visitorId);
    if (!presence) return { state: "idle" };
    const chat = presence.chatId ? this.#chats.get(presence.chatId) : undefined;
    if (chat && !chat.endedAt) {
      const partner = chat.a.visitorId === visitorId ? chat.b : chat.a;
      return { state: "chatting", chatId: chat.id, partner: partner.country };
    }
    return this.#pool.has(visitorId) ? { state: "waiting" } : { state: "idle" };
  }

  events(
    visitorId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered[], void, undefined> {
    return eventStream((onEvent) => this.listen(visitorId, lastEventId, onEvent), signal);
  }

  /**
   * Gives `onEvent` the visitor's events after `lastEventId` (a fresh stream starts with a
   * status event), each as it happens, inside the call that pushes it, until the returned
   * function is called.
   */
  listen(
    visitorId: string,
    lastEventId: string | null | undefined,
    onEvent: MailboxListener,
  ): () => void {
    const presence = this.#presenceOf(visitorId);
    if (presence.graceTimer) {
      this.#time.clearTimeout(presence.graceTimer);
      presence.graceTimer = undefined;
    }
    const { mailbox } = presence;
    let stop: () => void;
    try {
      // A fresh stream starts with where things stand; a resumed one only gets what it missed.
      if (!mailbox.knows(lastEventId)) {
        lastEventId = mailbox.currentId();
        onEvent({ id: lastEventId, event: { type: "status", status: this.#status(visitorId) } });
      }
      stop = mailbox.listen(lastEventId, onEvent);
    } catch (error) {
      if (mailbox.readers === 0) this.#startGrace(visitorId, presence);
      throw error;
    }
    // A visitor who pressed start before their stream opened can be paired now.
    if (this.#pool.has(visitorId)) this.#match(visitorId);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stop();
      if (mailbox.readers > 0) return;
      // The grace period is for resuming a chat, not for being matched meanwhile.
      if (this.#leavePool(visitorId)) mailbox.push({ type: "idle" });
      this.#startGrace(visitorId, presence);
    };
  }

  /** With no stream open, the visitor gets a grace period to come back before they leave. */
  #startGrace(visitorId: string, presence: Presence): void {
    this.#time.clearTimeout(presence.graceTimer);
    presence.graceTimer = this.#time.setTimeout(() => {
      presence.graceTimer = undefined;
      if (presence.mailbox.readers === 0) {
        this.#end(visitorId);
        this.#typing.forget(visitorId);
        this.#presence.delete(visitorId);
      }
    }, this.#resumeGraceMs);
    presence.graceTimer.unref();
  }

  #pairKey(a: string, b: string): string {
    return a < b ? `${a}|${b}` : `${b}|${a}`;
  }

  /** Whether either of the two blocked the other (by visitor, or by the other's address). */
  #blocked(a: ChatVisitor, b: ChatVisitor): boolean {
    const now = this.#now();
    const holds = (key: string) => (this.#blocks.get(key) ?? 0) > now;
    return (
      holds(this.#pairKey(a.visitorId, b.visitorId)) ||
      holds(`${a.visitorId}|ip:${b.ipKey}`) ||
      holds(`${b.visitorId}|ip:${a.ipKey}`)
    );
  }

  #recentlyParted(a: string, b: string): boolean {
    const at = this.#parted.get(this.#pairKey(a, b));
    return at !== undefined && this.#now() - at < this.#skipPartnerMs;
  }

  async start(visitor: ChatVisitor): Promise<ChatStatus> {
    if (this.#isBanned(visitor.visitorId, visitor.ipKey)) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
    const presence = this.#presenceOf(visitor.visitorId);
    presence.visitor = visitor;
    const current = this.#status(visitor.visitorId);
    // Another tab of the same visitor shares the one chat; starting again changes nothing.
    if (current.state !== "idle") return current;
    const now = this.#now();
    const { preferences, ...withoutPreferences } = visitor;
    // Preferences live in the pool entry only: gone once the visitor is paired or leaves.
    presence.visitor = withoutPreferences;
    this.#pool.set(visitor.visitorId, {
      visitor: withoutPreferences,
      since: now,
      ...(preferences ? { preferences } : {}),
      anyoneFrom: anyoneFrom(preferences, now),
    });
    presence.mailbox.push({ type: "waiting" });
    return this.#match(visitor.visitorId) ?? { state: "waiting" };
  }

  async widen(visitorId: string): Promise<void> {
    const waiting = this.#pool.get(visitorId);
    if (!waiting) return;
    waiting.anyoneFrom = Math.min(waiting.anyoneFrom, this.#now());
    this.#match(visitorId);
  }

  /** Takes a visitor out of the pool; false when they were not in it. */
  #leavePool(visitorId: string): boolean {
    const waiting = this.#pool.get(visitorId);
    if (!waiting) return false;
    this.#time.clearTimeout(waiting.timer);
    this.#pool.delete(visitorId);
    return true;
  }

  /**
   * Pairs a waiting visitor, if they are listening, with another who is listening, allowed to
   * chat, not blocked and not a recent partner, by the matching rule (see tierOf): the
   * longest-waiting of the best tier (a shared language and interest, then a language, then
   * anyone once both accept anyone). A recent partner is met again only when both have waited
   * `meetAgainAfterMs` and nobody else fits. Until someone fits, the pool is looked at again when
   * the visitor's fallback delay ends or a recent partner may be met again.
   */
  #match(visitorId: string): ChatStatus | undefined {
    const me = this.#pool.get(visitorId);
    if (!me || !this.#listening(visitorId)) return undefined;
    const now = this.#now();
    const waitedEnough = (w: Waiting) => now - w.since >= this.#meetAgainAfterMs;
    // The tier is read first: a visitor who could not change the choice costs no more checks,
    // and the first of the best tier this visitor can reach is taken at once.
    const best = bestTierOf(me);
    let language: Waiting | undefined;
    let anyone: Waiting | undefined;
    let again: Waiting | undefined;
    for (const [id, other] of this.#pool) {
      if (id === visitorId) continue;
      const tier = tierOf(me, other, now);
      const worth = tier === 2 || (tier === 1 && !language) || (tier === 0 && !language && !anyone);
      if (!worth || !this.#listening(id)) continue;
      if (this.#isBanned(id, other.visitor.ipKey)) {
        this.#leavePool(id);
        continue;
      }
      if (this.#blocked(other.visitor, me.visitor)) continue;
      if (this.#recentlyParted(id, visitorId)) {
        if (!again && waitedEnough(me) && waitedEnough(other)) again = other;
      } else if (tier === best) {
        return this.#pair(other, me);
      } else if (tier === 1) {
        language = other;
      } else {
        anyone = other;
      }
    }
    const chosen = language ?? anyone ?? again;
    if (chosen) return this.#pair(chosen, me);
    const next = [me.anyoneFrom, me.since + this.#meetAgainAfterMs].filter((at) => at > now);
    if (!me.timer && next.length > 0) {
      me.timer = this.#time.setTimeout(
        () => {
          me.timer = undefined;
          if (this.#pool.get(visitorId) === me) this.#match(visitorId);
        },
        Math.min(...next) - now,
      );
      me.timer.unref();
    }
    return undefined;
  }

  #pair(first: Waiting, second: Waiting): ChatStatus {
    this.#leavePool(first.visitor.visitorId);
    this.#leavePool(second.visitor.visitorId);
    const chat: Chat = {
      id: randomBytes(9).toString("base64url"),
      a: first.visitor,
      b: second.visitor,
      messages: [],
    };
    this.#chats.set(chat.id, chat);
    const pa = this.#presenceOf(first.visitor.visitorId);
    const pb = this.#presenceOf(second.visitor.visitorId);
    pa.chatId = chat.id;
    pb.chatId = chat.id;
    const matched = (to: Waiting, other: Waiting): ChatEvent => {
      const shared = sharedGround(to, other);
      return {
        type: "matched",
        chatId: chat.id,
        partner: other.visitor.country,
        ...(shared ? { shared } : {}),
      };
    };
    pa.mailbox.push(matched(first, second));
    pb.mailbox.push(matched(second, first));
    return { state: "chatting", chatId: chat.id, partner: first.visitor.country };
  }

  #currentChat(visitorId: string): Chat | undefined {
    const chatId = this.#presence.get(visitorId)?.chatId;
    const chat = chatId ? this.#chats.get(chatId) : undefined;
    return chat && !chat.endedAt ? chat : undefined;
  }

  async send(
    visitorId: string,
    content: string,
    options: { contact?: boolean } = {},
  ): Promise<ChatMessage> {
    const presence = this.#presence.get(visitorId);
    const chat = presence?.chatId ? this.#chats.get(presence.chatId) : undefined;
    if (!presence || !chat || chat.endedAt) throw new DomainError("NOT_FOUND", "not in a chat");
    const sender = chat.a.visitorId === visitorId ? chat.a : chat.b;
    const receiver = sender === chat.a ? chat.b : chat.a;
    if (this.#isBanned(sender.visitorId, sender.ipKey)) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
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
    const mine: ChatMessage = {
      id,
      content: held.content,
      timestamp,
      countryCode,
      country,
      from: "me",
      ...(options.contact ? { contact: true as const } : {}),
    };
    // A muted sender's message reaches nobody; the sender has it as the answer.
    if (this.#mutedUntil(visitorId, sender.ipKey) === null) {
      this.#presence.get(receiver.visitorId)?.mailbox.push({
        type: "message",
        chatId: chat.id,
        message: { ...mine, from: "partner" },
      });
    }
    return mine;
  }

  /** Tells the partner whether the visitor is typing (coalesced: see TypingWindows). */
  async typing(visitorId: string, isTyping: boolean): Promise<void> {
    if (this.#currentChat(visitorId)) await this.#typing.note(visitorId, isTyping);
  }

  #tellTyping(visitorId: string, isTyping: boolean): void {
    const chat = this.#currentChat(visitorId);
    if (!chat) return;
    const receiver = chat.a.visitorId === visitorId ? chat.b : chat.a;
    this.#presence.get(receiver.visitorId)?.mailbox.push({
      type: "typing",
      chatId: chat.id,
      isTyping,
    });
  }

  // One instance: every stream of the visitor's is here, where the caller can see them.
  async end(visitorId: string, _options?: { ifGone?: boolean }): Promise<void> {
    this.#end(visitorId);
  }

  #end(visitorId: string): void {
    if (this.#leavePool(visitorId)) {
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
      this.#typing.forget(side.visitorId);
      if (tellLeft.includes(side.visitorId)) {
        presence.mailbox.push({ type: "typing", chatId: chat.id, isTyping: false });
        presence.mailbox.push({ type: "partner-left", chatId: chat.id });
      }
    }
  }

  async partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined> {
    for (const chat of this.#chats.values()) {
      if (chat.a.visitorId !== visitorId && chat.b.visitorId !== visitorId) continue;
      const found = chat.messages.find((m) => m.id === messageId);
      if (found) return found.senderVisitorId === visitorId ? undefined : found;
    }
    return undefined;
  }

  async ban(bans: readonly KeyBan[]): Promise<void> {
    const covered = new Map<string, number>();
    const cover = (visitorId: string, until: number) =>
      covered.set(visitorId, Math.max(covered.get(visitorId) ?? 0, until));
    for (const { key, until } of bans) {
      const id = key.slice(key.indexOf(":") + 1);
      if (key.startsWith("visitor:")) cover(id, until);
      else
        for (const [visitorId, p] of this.#presence)
          if (p.visitor?.ipKey === id) cover(visitorId, until);
    }
    for (const [visitorId, until] of covered) {
      this.#end(visitorId);
      this.#presence.get(visitorId)?.mailbox.push({ type: "banned", until });
    }
  }

  async block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    const chat = this.#currentChat(visitorId);
    if (!chat) return undefined;
    const [me, partner] = chat.a.visitorId === visitorId ? [chat.a, chat.b] : [chat.b, chat.a];
    await this.rememberBlock(me.visitorId, partner, until);
    this.#end(visitorId);
    return partner;
  }

  async rememberBlock(
    blocker: string,
    blocked: { visitorId: string; ipKey: string },
    until: number,
  ): Promise<void> {
    this.#blocks.set(this.#pairKey(blocker, blocked.visitorId), until);
    this.#blocks.set(`${blocker}|ip:${blocked.ipKey}`, until);
  }

  async mute(visitorId: string, ipKey: string, until: number): Promise<void> {
    for (const key of holdKeys(visitorId, ipKey)) {
      this.#muted.set(key, Math.max(this.#muted.get(key) ?? 0, until));
    }
    this.#presence.get(visitorId)?.mailbox.push({ type: "muted", until });
  }

  async chatOf(visitorId: string): Promise<string | undefined> {
    return this.#currentChat(visitorId)?.id;
  }

  async mutedUntil(visitorId: string, ipKey: string): Promise<number | null> {
    return this.#mutedUntil(visitorId, ipKey);
  }

  #mutedUntil(visitorId: string, ipKey: string): number | null {
    if (this.#muted.size === 0) return null;
    return latestHold(this.#muted, holdKeys(visitorId, ipKey), this.#now());
  }

  async online(): Promise<number> {
    let chatting = 0;
    for (const chat of this.#chats.values()) if (!chat.endedAt) chatting += 2;
    return this.#pool.size + chatting;
  }

  async endAll(): Promise<void> {
    for (const chat of [...this.#chats.values()]) {
      if (!chat.endedAt) this.#finish(chat, [chat.a.visitorId, chat.b.visitorId]);
    }
    for (const id of [...this.#pool.keys()]) this.#end(id);
  }

  async counts(): Promise<BrokerCounts> {
    let chatting = 0;
    for (const chat of this.#chats.values()) if (!chat.endedAt) chatting += 1;
    // Waiting: those in the pool who can hear of a match (a start with no stream open waits
    // for one before it counts, as on Redis).
    let waiting = 0;
    for (const id of this.#pool.keys()) if (this.#listening(id)) waiting += 1;
    return {
      waiting,
      present: this.#presence.size,
      chatting,
      ended: this.#chats.size - chatting,
    };
  }

  /** Forgets ended chats and partings past their keeping time. */
  #sweep(): void {
    const now = this.#now();
    for (const [id, chat] of this.#chats) {
      if (chat.endedAt && now - chat.endedAt > this.#keepEndedMs) this.#chats.delete(id);
    }
    for (const [key, at] of this.#parted)
      if (now - at > this.#skipPartnerMs) this.#parted.delete(key);
    for (const map of [this.#blocks, this.#muted]) {
      for (const [key, until] of map) if (until <= now) map.delete(key);
    }
  }

  async close(): Promise<void> {
    this.#time.clearInterval(this.#sweeper);
    for (const presence of this.#presence.values()) this.#time.clearTimeout(presence.graceTimer);
    this.#typing.close();
    for (const waiting of this.#pool.values()) this.#time.clearTimeout(waiting.timer);
  }
}
