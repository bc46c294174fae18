import { HoldCopy } from "./copy.ts";

/**
 * News of one hold, as every instance is told of it on its kind's channel: the hold on `key`
 * ends at `until` (ms), or was lifted (`until` null). `from` names the instance that sent it;
 * news without one was written by a script in Redis, for every instance, its writer too.
 */
export interface HoldNews {
  key: string;
  until: number | null;
  from?: string;
}

/**
 * The one payload of hold news, written and read here: `<until> <key>[ <from>]`, one space
 * apart, where `<until>` is the end in ms as a number, or `-` for a lift. Keys and instance
 * names hold no space. It is also the form the scripts in Redis write (`until .. ' ' .. key`,
 * see `HOLD_NEWS_LUA`), so a hold and its news are written in one step.
 */
export function encodeHoldNews(news: HoldNews): string {
  const until = news.until === null ? "-" : String(news.until);
  return news.from === undefined ? `${until} ${news.key}` : `${until} ${news.key} ${news.from}`;
}

/** The news a payload carries, or undefined when it is not hold news (dropped, not thrown). */
export function decodeHoldNews(payload: string): HoldNews | undefined {
  const [until, key, from, ...rest] = payload.split(" ");
  if (!until || !key || rest.length > 0 || from === "") return undefined;
  if (until === "-") return from === undefined ? { key, until: null } : { key, until: null, from };
  const end = Number(until);
  if (!Number.isFinite(end)) return undefined;
  return from === undefined ? { key, until: end } : { key, until: end, from };
}

/** Lua that makes hold news (the payload above) of an end given as text, and a lift's. */
export const HOLD_NEWS_LUA = `
local function hold_news(until_text, key) return until_text .. ' ' .. key end
local function lift_news(key) return '- ' .. key end
`;

/** The subscriptions the holds need (RedisBus, or a bus in memory). */
export interface HoldsBus {
  onMessage(prefix: string, handler: (channel: string, payload: string) => void): void;
  subscribe(channel: string): Promise<void>;
}

export interface ReplicatedHoldsOptions {
  bus: HoldsBus;
  /** Sends a payload on a channel (Redis's PUBLISH). */
  publish: (channel: string, payload: string) => Promise<unknown>;
  /** The kind's channel: one per kind of hold. */
  channel: string;
  /** This instance's name in the news it sends; its own news coming back is let pass. */
  self: string;
  /** Holds the copy takes at most (0: none, for a kind that only tells of its news). */
  max: number;
  now: () => number;
  /** Told of each piece of news heard from elsewhere, once the copy took it. */
  onNews?: (news: HoldNews) => void;
}

/**
 * One instance's bounded copy of one kind of keyed holds, kept by what every instance is told
 * on the kind's channel: holds noted or lifted here, announced by this instance (`announce`) or
 * by a script in Redis (news without a sender, which every instance takes, its writer too),
 * reloaded from where the kind keeps its holds (`reload`). Ended holds leave it; a copy with no
 * room for one says "ask Redis" (`until` answers undefined) until a reload has room again.
 */
export class ReplicatedHolds {
  readonly #copy: HoldCopy;

  constructor(private readonly options: ReplicatedHoldsOptions) {
    this.#copy = new HoldCopy(options.max);
    options.bus.onMessage(options.channel, (channel, payload) => {
      // The channel is a prefix to the bus: another kind's channel may begin with this one's.
      if (channel !== options.channel) return;
      const news = decodeHoldNews(payload);
      if (!news || news.from === options.self) return;
      this.#take(news);
      options.onNews?.(news);
    });
  }

  /** Resolves once news sent by the other instances reaches this one. */
  subscribe(): Promise<void> {
    return this.options.bus.subscribe(this.options.channel);
  }

  get size(): number {
    return this.#copy.size;
  }

  /** Incomplete, with room again: a reload would make it whole. */
  get wantsReload(): boolean {
    return this.#copy.wantsReload;
  }

  /** When the hold on this key ends as this copy has it, if it has it. */
  known(key: string): number | undefined {
    return this.#copy.known(key);
  }

  /** The latest end in force on these keys, null for none, undefined when Redis must be asked. */
  until(keys: readonly string[]): number | null | undefined {
    return this.#copy.until(keys, this.options.now());
  }

  /** Takes a hold into this copy only (its news goes another way, or comes back). */
  note(key: string, until: number): void {
    this.#copy.note(key, until, this.options.now());
  }

  /** Lets go of holds in this copy only. */
  lift(keys: readonly string[]): void {
    this.#copy.lift(keys);
  }

  /** Takes the news here and tells every other instance of it. */
  async announce(key: string, until: number | null): Promise<void> {
    this.#take({ key, until });
    await this.options.publish(
      this.options.channel,
      encodeHoldNews({ key, until, from: this.options.self }),
    );
  }

  /** Forgets the holds that have ended. */
  prune(): void {
    this.#copy.prune(this.options.now());
  }

  /** Takes in every hold `read` yields (news arriving meanwhile is taken too). */
  reload(read: () => AsyncIterable<[key: string, until: number]>): Promise<void> {
    return this.#copy.reload(read, this.options.now);
  }

  #take(news: HoldNews): void {
    if (this.options.max === 0) return;
    if (news.until === null) this.#copy.lift([news.key]);
    else this.#copy.note(news.key, news.until, this.options.now());
  }
}

/** A bus in one process, for instances of a test or a site run as one process. */
export class MemoryHoldsBus implements HoldsBus {
  readonly #handlers: Array<[string, (channel: string, payload: string) => void]> = [];

  onMessage(prefix: string, handler: (channel: string, payload: string) => void): void {
    this.#handlers.push([prefix, handler]);
  }

  async subscribe(_channel: string): Promise<void> {}

  /** Delivers a payload to every handler of the channel, later (as Redis would). */
  async publish(channel: string, payload: string): Promise<number> {
    await Promise.resolve();
    let heard = 0;
    for (const [prefix, handler] of this.#handlers) {
      if (!channel.startsWith(prefix)) continue;
      heard += 1;
      try {
        handler(channel, payload);
      } catch {
        // As RedisBus: one handler's throw reaches no other.
      }
    }
    return heard;
  }
}
