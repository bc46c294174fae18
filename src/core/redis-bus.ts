import type { RedisClient } from "./redis-script.ts";

/** The subscriptions the broker needs, on a connection of its own (RedisBus below). */
export interface ChatSubscriptions {
  /** Events for the visitors whose channels this instance subscribes to. */
  onMessage(prefix: string, handler: (channel: string, payload: string) => void): void;
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** A sharded channel, on the node of its slot (the life channel; on a Cluster, chat sides). */
  ssubscribe(channel: string): Promise<void>;
  sunsubscribe(channel: string): Promise<void>;
  /** Called each time the subscriptions are back after a lost connection. */
  onReconnect(handler: () => void): void;
}

/**
 * The subscriptions of one instance, on a connection of their own (a subscribed connection takes
 * no other commands): visitors' channels for the chat, the bans channel, and the instance's life
 * channel. Messages go to the handler registered for their channel's prefix. After a lost
 * connection ioredis subscribes again by itself; `onReconnect` handlers then read back what was
 * published meanwhile.
 */
export class RedisBus implements ChatSubscriptions {
  readonly #handlers: Array<[string, (channel: string, payload: string) => void]> = [];
  readonly #reconnects: Array<() => void> = [];
  #ready = false;

  constructor(
    private readonly subscriber: RedisClient,
    /** Told of a message its handler could not read (a malformed or foreign payload). */
    onError: (what: string, error: unknown) => void = () => {},
  ) {
    const route = (channel: string, payload: string) => {
      for (const [prefix, handler] of this.#handlers) {
        if (channel.startsWith(prefix)) {
          // A handler's throw would land in ioredis's reply parser and end the process: one
          // payload this instance cannot read (another version's, say) is dropped, not fatal.
          try {
            handler(channel, payload);
          } catch (error) {
            onError(`reading a message on ${prefix}`, error);
          }
          return;
        }
      }
    };
    subscriber.on("message", route);
    subscriber.on("smessage", route);
    subscriber.on("ready", () => {
      // The first "ready" is the first connection; later ones follow a lost one.
      if (this.#ready) for (const handler of this.#reconnects) handler();
      this.#ready = true;
    });
    if (subscriber.status === "ready") this.#ready = true;
  }

  onMessage(prefix: string, handler: (channel: string, payload: string) => void): void {
    this.#handlers.push([prefix, handler]);
  }

  onReconnect(handler: () => void): void {
    this.#reconnects.push(handler);
  }

  async subscribe(channel: string): Promise<void> {
    await this.subscriber.subscribe(channel);
  }

  async unsubscribe(channel: string): Promise<void> {
    await this.subscriber.unsubscribe(channel);
  }

  async ssubscribe(channel: string): Promise<void> {
    await this.subscriber.ssubscribe(channel);
  }

  async sunsubscribe(channel: string): Promise<void> {
    await this.subscriber.sunsubscribe(channel);
  }
}
