import type { RedisChat } from "./engine.ts";
import type { LocalVisitor, Queued } from "./local.ts";

/** How long a side channel let go of stays subscribed, for the chat's last events. */
const SIDE_LINGER_MS = 10_000;

/** What side channels need of the streams: a chat read back, and a payload handed on. */
export interface StreamsForSides {
  read(chatId: string, visitorId: string, from: string): Promise<{ events: Queued[] } | undefined>;
  deliver(visitorId: string, payload: string): void;
}

/**
 * On a Redis Cluster, what a chat says after "matched" goes to its sides' sharded channels, on
 * the chat's own node (a classic PUBLISH would be forwarded to every node); the instance holding
 * a side subscribes to its channel while the chat runs. So that a start waits on no
 * subscription, each visitor held here has the side "a" channel of a fresh chat id subscribed
 * ahead ("made ready"), and a visitor who waits is paired in that chat. On one Redis none of
 * this runs: a chat's events go to each visitor's own channel.
 */
export class SideChannels {
  /** Whose side each side channel subscribed here carries. */
  readonly #owners = new Map<string, string>();

  constructor(
    private readonly chat: RedisChat,
    private readonly streams: StreamsForSides,
  ) {
    if (!chat.cluster) return;
    chat.bus.onMessage(chat.keys.chatPrefix, (channel, payload) => {
      const local = chat.visitors.get(this.#owners.get(channel) ?? "");
      if (local?.held && local.following === channel) {
        local.held.push(payload);
      } else if (local) {
        streams.deliver(local.id, payload);
      }
    });
  }

  /**
   * The instance follows the side channel of each chat its visitors are in (and lets go of the
   * last one). A channel subscribed before the chat opened (made ready, or the starter's:
   * `openedHere`) is taken as it is; any other is subscribed now, then what the chat said to
   * that side before is read (the partner may have spoken first) and handed on ahead of what the
   * channel carried meanwhile, which streams already holding an event pass over. When their
   * chat ends, the next one's channel is made ready.
   */
  follow(local: LocalVisitor): void {
    if (!this.chat.cluster) return;
    const current = local.chat;
    const channel = current
      ? this.chat.keys.sides(current.id)[current.side === "a" ? 0 : 1]
      : undefined;
    if (channel === local.following) return;
    this.#followOn(local, channel);
    if (channel && channel === local.reserved?.channel) {
      // Subscribed before the chat could open: nothing said in it came before.
      local.reserved = undefined;
      return;
    }
    if (!current || !channel) {
      // Their chat ended: the next one's channel is made ready now, ahead of their next start.
      if (local.attached) this.reserve(local);
      return;
    }
    const held: string[] = [];
    local.held = held;
    this.chat.inBackground(
      this.chat.bus
        .ssubscribe(channel)
        .then(() => this.streams.read(current.id, local.id, "-"))
        .catch((error) => this.chat.fail("following a chat", error))
        .then((missed) => {
          if (local.held !== held) return;
          local.held = undefined;
          for (const item of missed?.events ?? []) local.hear(item);
          for (const payload of held) this.streams.deliver(local.id, payload);
        }),
    );
  }

  /**
   * Subscribes, in the background, the side "a" channel of a fresh chat id for the visitor (when
   * they have none ready): their next start passes it to the pool, which pairs whoever comes for
   * them in that chat. Done when their stream first opens here and when a chat of theirs ends,
   * so a start on a Cluster costs no subscription for the visitor who waited.
   */
  reserve(local: LocalVisitor): void {
    if (!this.chat.cluster || local.reserved) return;
    const chatId = this.chat.newChatId();
    const channel = this.chat.keys.sides(chatId)[0] as string;
    const reserved = { chat: chatId, channel, ready: false };
    local.reserved = reserved;
    this.#owners.set(channel, local.id);
    this.chat.inBackground(
      this.chat.bus.ssubscribe(channel).then(
        () => {
          reserved.ready = true;
        },
        () => {
          if (local.reserved === reserved) local.reserved = undefined;
          this.#owners.delete(channel);
        },
      ),
    );
  }

  /**
   * Subscribes side b's channel of a chat the visitor is about to open here, by pressing start
   * (nothing said to them in it can come before): answers whether it was subscribed.
   */
  async openedHere(local: LocalVisitor, chatId: string): Promise<boolean> {
    const channel = this.chat.keys.sides(chatId)[1] as string;
    const subscribed = await this.chat.bus.ssubscribe(channel).then(
      () => true,
      () => false,
    );
    if (subscribed && local.following !== channel) this.#followOn(local, channel);
    return subscribed;
  }

  /** The chat made ready for the visitor is not to be used (a fresh one is made ready). */
  renew(local: LocalVisitor): void {
    this.unreserve(local);
    this.reserve(local);
  }

  /** The visitor is no longer held here: their channels are let go. */
  drop(local: LocalVisitor): void {
    this.#followOn(local, undefined);
    this.unreserve(local);
  }

  /**
   * Side channels subscribed before Redis went away are not trusted to have come back with it:
   * those made ready are let go (fresh ones are made ready), those followed subscribed again.
   */
  renewAll(): void {
    for (const local of this.chat.visitors.values()) {
      if (local.reserved) this.renew(local);
      if (local.following) {
        this.chat.inBackground(this.chat.bus.ssubscribe(local.following).catch(() => {}));
      }
    }
  }

  unreserve(local: LocalVisitor): void {
    if (local.reserved) this.#letGo(local.reserved.channel);
    local.reserved = undefined;
  }

  /** The side channel followed for the visitor from now on (the last one is let go). */
  #followOn(local: LocalVisitor, channel: string | undefined): void {
    if (local.following) this.#letGo(local.following);
    local.following = channel;
    local.held = undefined;
    if (channel) this.#owners.set(channel, local.id);
  }

  /** A side channel no longer followed: its last events may still be on their way a moment. */
  #letGo(channel: string): void {
    const timer = this.chat.time.setTimeout(() => {
      const visitorId = this.#owners.get(channel);
      if (visitorId && this.chat.visitors.get(visitorId)?.following === channel) return;
      this.#owners.delete(channel);
      this.chat.inBackground(this.chat.bus.sunsubscribe(channel).catch(() => {}));
    }, SIDE_LINGER_MS);
    timer.unref();
  }
}
