import { ReplicatedHolds } from "../../holds/replicated.ts";
import { holdKeys } from "../holds.ts";
import type { RedisChat } from "./engine.ts";

/** Mutes an instance copies at most (each one visitor's or address's; more are asked of Redis). */
const MUTES_COPIED = 100_000;
/** Entries one look at the mutes reads. */
const SCAN_PAGE = 200;

/**
 * Mutes on Redis: the pool keeps them, the chats they cover are told on their own slots, and
 * every instance keeps a copy (ReplicatedHolds), told of each new one on the mutes channel by
 * the pool's mute script, so a message's rules read it without asking Redis.
 */
export class Mutes {
  readonly #holds: ReplicatedHolds;
  #loading: Promise<void> | undefined;

  constructor(private readonly chat: RedisChat) {
    this.#holds = new ReplicatedHolds({
      bus: chat.bus,
      publish: (channel, payload) => chat.redis.publish(channel, payload),
      channel: chat.keys.mutesChannel,
      self: chat.instance,
      max: MUTES_COPIED,
      now: chat.time.now,
    });
  }

  async connect(): Promise<void> {
    await this.#holds.subscribe();
    await this.load();
  }

  async mute(visitorId: string, ipKey: string, until: number): Promise<void> {
    const { chats } = await this.chat.poolRun<{
      chats: Array<{ chat: string; side: "a" | "b"; visitor: string }> | Record<string, never>;
    }>("mute", [visitorId, ipKey, until, this.chat.keys.mutesChannel]);
    // Known here at once; every instance hears the script's news.
    for (const key of holdKeys(visitorId, ipKey)) this.#holds.note(key, until);
    const told = JSON.stringify({ type: "muted", until });
    await Promise.all(
      (Array.isArray(chats) ? chats : []).map((c) =>
        this.chat.chatRun("mute", c.chat, [
          c.side,
          until,
          this.chat.kept,
          c.visitor === visitorId ? told : "",
        ]),
      ),
    );
  }

  async mutedUntil(visitorId: string, ipKey: string): Promise<number | null> {
    const keys = holdKeys(visitorId, ipKey);
    const copied = this.#holds.until(keys);
    if (copied !== undefined) return copied;
    const values = await this.chat.redis.hmget(this.chat.keys.pool("mutes"), ...keys);
    const until = Math.max(0, ...values.map(Number).filter(Number.isFinite));
    return until > this.chat.time.now() ? until : null;
  }

  /** Forgets ended mutes; reloads when the copy may have missed some. */
  tidy(): void {
    this.#holds.prune();
    if (this.#holds.wantsReload) this.chat.inBackground(this.load());
  }

  /** Copies every mute in force from Redis (at start, and when the copy may have missed some). */
  load(): Promise<void> {
    this.#loading ??= this.#holds
      .reload(() => this.#scan())
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }

  async *#scan(): AsyncIterable<[string, number]> {
    let cursor = "0";
    do {
      const [next, page] = await this.chat.redis.hscan(
        this.chat.keys.pool("mutes"),
        cursor,
        "COUNT",
        SCAN_PAGE,
      );
      for (let i = 0; i + 1 < page.length; i += 2) yield [page[i] ?? "", Number(page[i + 1])];
      cursor = next;
    } while (cursor !== "0");
  }
}
