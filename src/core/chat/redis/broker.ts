import type { ChatMessage, ChatStatus } from "../../../common/chat.ts";
import type { VisitorKeys } from "../../requester.ts";
import type { KeyBan } from "../bans.ts";
import type { BrokerCounts, ChatBroker, ChatVisitor, HeldMessage } from "../broker.ts";
import type { Numbered } from "../mailbox.ts";
import { Endings } from "./endings.ts";
import { type RedisBrokerOptions, RedisChat } from "./engine.ts";
import { Liveness } from "./liveness.ts";
import { Mutes } from "./mutes.ts";
import { Pairing } from "./pairing.ts";
import { Relay } from "./relay.ts";
import { SideChannels } from "./sides.ts";
import { Streams } from "./streams.ts";

export { KEPT_EVENTS, type RedisBrokerOptions } from "./engine.ts";

/**
 * The chat on Redis, for several instances serving one site, in parts a reader can take one at
 * a time:
 * - Streams (streams.ts): each visitor's event streams on this instance, and what their
 *   channels carry; LocalVisitor (local.ts) is the one place where what this instance keeps of
 *   a visitor changes, and it tells their streams;
 * - Pairing (pairing.ts): the pool pairs in one atomic step, the chat opens on its own slot;
 * - Relay (relay.ts): messages and typing;
 * - Endings (endings.ts): leaving, blocks, bans; Mutes (mutes.ts);
 * - Liveness (liveness.ts): heartbeat, sweep, and recovery after Redis came back empty;
 * - SideChannels (sides.ts): on a Redis Cluster, a chat's events on its own node.
 * Keys and scripts: redis/keys.ts, lua/pool/, lua/chat/; what the channels
 * carry: wire.ts. The pool, presence and who is in which chat are on one hash tag; each chat's
 * hash and event stream are on a tag of their own, so on a Cluster chats spread over the nodes.
 */
export class RedisChatBroker implements ChatBroker {
  readonly #chat: RedisChat;
  readonly #streams: Streams;
  readonly #pairing: Pairing;
  readonly #relay: Relay;
  readonly #endings: Endings;
  readonly #mutes: Mutes;
  readonly #liveness: Liveness;

  constructor(options: RedisBrokerOptions) {
    const chat = new RedisChat(options);
    this.#chat = chat;
    // Side channels and streams need each other (a chat's events are read back when followed,
    // and a stream follows its visitor's chat): the streams are handed over once made.
    const sides = new SideChannels(chat, {
      read: (chatId, visitorId, from) => this.#streams.read(chatId, visitorId, from),
      deliver: (visitorId, payload) => this.#streams.deliver(visitorId, payload),
    });
    this.#pairing = new Pairing(chat, sides);
    this.#streams = new Streams(chat, sides, this.#pairing);
    this.#relay = new Relay(chat, chat.time);
    this.#endings = new Endings(chat, (visitorId) => this.#relay.forgetTyping(visitorId));
    this.#mutes = new Mutes(chat);
    this.#liveness = new Liveness(chat, {
      sides,
      pairing: this.#pairing,
      streams: this.#streams,
      endings: this.#endings,
      mutes: this.#mutes,
    });
    chat.bus.onReconnect(() => {
      // What was announced while the subscriptions were down is read from Redis.
      chat.inBackground(this.#mutes.load());
      void this.#streams.catchUp();
    });
  }

  /** Subscribes this instance's channels and tells Redis it lives; once, before use. */
  async connect(): Promise<void> {
    await this.#liveness.connect();
    await this.#mutes.connect();
    await this.#liveness.heartbeat();
  }

  /** Beats at once (after a reconnect, not to wait for the next beat). */
  beatNow(): Promise<void> {
    return this.#liveness.heartbeat().catch((error) => this.#chat.fail("heartbeat", error));
  }

  status(visitorId: string): Promise<ChatStatus> {
    return this.#streams.status(visitorId);
  }

  events(
    visitorId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered[], void, undefined> {
    return this.#streams.events(visitorId, lastEventId, signal);
  }

  start(visitor: ChatVisitor): Promise<ChatStatus> {
    return this.#pairing.start(visitor);
  }

  widen(visitorId: string): Promise<void> {
    return this.#pairing.widen(visitorId);
  }

  send(visitorId: string, content: string, options?: { contact?: boolean }): Promise<ChatMessage> {
    return this.#relay.send(visitorId, content, options);
  }

  typing(visitorId: string, isTyping: boolean): Promise<void> {
    return this.#relay.typing(visitorId, isTyping);
  }

  async chatOf(visitorId: string): Promise<string | undefined> {
    return (await this.#relay.chatOf(visitorId))?.id;
  }

  async end(visitorId: string, options?: { ifGone?: boolean }): Promise<void> {
    this.#pairing.forget(visitorId);
    await this.#endings.end(visitorId, options);
  }

  partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined> {
    return this.#endings.partnerMessage(visitorId, messageId);
  }

  ban(bans: readonly KeyBan[]): Promise<void> {
    return this.#endings.ban(bans);
  }

  block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    return this.#endings.block(visitorId, until);
  }

  rememberBlock(blocker: string, blocked: VisitorKeys, until: number): Promise<void> {
    return this.#endings.rememberBlock(blocker, blocked, until);
  }

  mute(visitorId: string, ipKey: string, until: number): Promise<void> {
    return this.#mutes.mute(visitorId, ipKey, until);
  }

  mutedUntil(visitorId: string, ipKey: string): Promise<number | null> {
    return this.#mutes.mutedUntil(visitorId, ipKey);
  }

  async online(): Promise<number> {
    const counts = await this.counts();
    return counts.waiting + 2 * counts.chatting;
  }

  async counts(): Promise<BrokerCounts> {
    const counts = await this.#chat.poolRun<Omit<BrokerCounts, "ended">>("counts", []);
    return { ...counts, ended: 0 };
  }

  /**
   * The server is stopping. On Redis the chats go on: the visitors' sockets reconnect to
   * another instance and resume there, within the grace period.
   */
  async endAll(): Promise<void> {}

  async close(): Promise<void> {
    if (this.#chat.closed) return;
    this.#chat.close();
    this.#pairing.close();
    this.#relay.close();
    await this.#liveness.close();
  }
}
