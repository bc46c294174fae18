import type { ChatMessage, ChatStatus } from "../../common/chat.ts";
import type { TimerHandle } from "../clock.ts";
import type { KeyBan } from "./bans.ts";
import type {
  BrokerCounts,
  BrokerOptions,
  ChatBroker,
  ChatVisitor,
  HeldMessage,
} from "./broker.ts";
import { eventStream } from "./events.ts";
import type { MailboxListener, Numbered } from "./mailbox.ts";
import { Holds } from "./memory/holds.ts";
import { Pairing } from "./memory/pairing.ts";
import { Presences } from "./memory/presence.ts";
import { Relay } from "./memory/relay.ts";
import { MemoryChat } from "./memory/state.ts";

/**
 * The chat in one process, in parts a reader can take one at a time (as the Redis one, see
 * redis/broker.ts):
 * - MemoryChat (memory/state.ts): the clock, the timings and every map the parts share;
 * - Presences (memory/presence.ts): visitors' mailboxes, streams and grace periods;
 * - Pairing (memory/pairing.ts): the pool and the matching rule;
 * - Relay (memory/relay.ts): messages and typing, and how a chat ends;
 * - Holds (memory/holds.ts): blocks, mutes, and bans that end chats.
 */
export class InMemoryChatBroker implements ChatBroker {
  readonly #chat: MemoryChat;
  readonly #presences: Presences;
  readonly #pairing: Pairing;
  readonly #relay: Relay;
  readonly #holds: Holds;
  readonly #sweeper: TimerHandle;

  constructor(options: BrokerOptions = {}) {
    const chat = new MemoryChat(options);
    this.#chat = chat;
    // The parts call on each other (ending a chat leaves the pool, a grace period ends the
    // chat): each is handed the others through these functions, once all are made.
    this.#relay = new Relay(chat, {
      leavePool: (visitorId) => this.#pairing.leavePool(visitorId),
      mutedUntil: (visitorId, ipKey) => this.#holds.mutedUntil(visitorId, ipKey),
    });
    this.#holds = new Holds(chat, (visitorId) => this.#relay.end(visitorId));
    this.#presences = new Presences(chat, {
      leavePool: (visitorId) => this.#pairing.leavePool(visitorId),
      match: (visitorId) => this.#pairing.match(visitorId),
      end: (visitorId) => this.#relay.end(visitorId),
      forgetTyping: (visitorId) => this.#relay.forgetTyping(visitorId),
    });
    this.#pairing = new Pairing(chat, this.#presences, this.#holds);
    this.#sweeper = chat.time.setInterval(() => chat.sweep(), 60_000);
    this.#sweeper.unref();
  }

  async status(visitorId: string): Promise<ChatStatus> {
    return this.#chat.status(visitorId);
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
    return this.#presences.listen(visitorId, lastEventId, onEvent);
  }

  async start(visitor: ChatVisitor): Promise<ChatStatus> {
    return this.#pairing.start(visitor);
  }

  async widen(visitorId: string): Promise<void> {
    this.#pairing.widen(visitorId);
  }

  async send(
    visitorId: string,
    content: string,
    options: { contact?: boolean } = {},
  ): Promise<ChatMessage> {
    return this.#relay.send(visitorId, content, options);
  }

  /** Tells the partner whether the visitor is typing (coalesced: see TypingWindows). */
  typing(visitorId: string, isTyping: boolean): Promise<void> {
    return this.#relay.typing(visitorId, isTyping);
  }

  // One instance: every stream of the visitor's is here, where the caller can see them.
  async end(visitorId: string, _options?: { ifGone?: boolean }): Promise<void> {
    this.#relay.end(visitorId);
  }

  async partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined> {
    return this.#relay.partnerMessage(visitorId, messageId);
  }

  async ban(bans: readonly KeyBan[]): Promise<void> {
    this.#holds.ban(bans);
  }

  block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    return this.#holds.block(visitorId, until);
  }

  rememberBlock(
    blocker: string,
    blocked: { visitorId: string; ipKey: string },
    until: number,
  ): Promise<void> {
    return this.#holds.rememberBlock(blocker, blocked, until);
  }

  async mute(visitorId: string, ipKey: string, until: number): Promise<void> {
    this.#holds.mute(visitorId, ipKey, until);
  }

  async chatOf(visitorId: string): Promise<string | undefined> {
    return this.#chat.currentChat(visitorId)?.id;
  }

  async mutedUntil(visitorId: string, ipKey: string): Promise<number | null> {
    return this.#holds.mutedUntil(visitorId, ipKey);
  }

  async online(): Promise<number> {
    let chatting = 0;
    for (const chat of this.#chat.chats.values()) if (!chat.endedAt) chatting += 2;
    return this.#chat.pool.size + chatting;
  }

  async endAll(): Promise<void> {
    this.#relay.endAll();
  }

  async counts(): Promise<BrokerCounts> {
    let chatting = 0;
    for (const chat of this.#chat.chats.values()) if (!chat.endedAt) chatting += 1;
    // Waiting: those in the pool who can hear of a match (a start with no stream open waits
    // for one before it counts, as on Redis).
    let waiting = 0;
    for (const id of this.#chat.pool.keys()) if (this.#chat.listening(id)) waiting += 1;
    return {
      waiting,
      present: this.#chat.presence.size,
      chatting,
      ended: this.#chat.chats.size - chatting,
    };
  }

  async close(): Promise<void> {
    this.#chat.time.clearInterval(this.#sweeper);
    this.#presences.close();
    this.#relay.close();
    this.#pairing.close();
  }
}
