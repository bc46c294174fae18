import { type Clock, systemTime } from "../clock.ts";
import { RateLimitedError } from "../errors.ts";
import type { VisitorKeys } from "../requester.ts";

export interface RateRule {
  /** How many actions fit in one window. */
  limit: number;
  windowMs: number;
}

/** One slot to take: a key (an action and who does it) under its rule. */
export interface Slot {
  key: string;
  rule: RateRule;
}

/** Slots taken by one action; given back when the rule says the action did not count. */
export interface Reservation {
  refund(): Promise<void>;
}

/**
 * Sliding-window limits. `take` checks and takes every slot in one step, all or none, so calls
 * that run together (a batch, parallel requests) can never pass a check before the others have
 * recorded: callers take first, then do the work, then refund if the work does not count.
 * Asynchronous so a shared store (Redis) can stand in for the memory one.
 */
export interface RateLimiter {
  /** Takes a slot for each, or throws RateLimitedError (taking none) with the longest wait. */
  take(slots: readonly Slot[]): Promise<Reservation>;
  /** Drops windows that have fully passed, to bound memory. */
  prune(): void;
}

/** The slots of one action for a visitor and an address hash (IPv6 /64), under one rule. */
export function visitorSlots(action: string, who: VisitorKeys, rule: RateRule): Slot[] {
  return [
    { key: `${action}:v:${who.visitorId}`, rule },
    { key: `${action}:ip:${who.ipKey}`, rule },
  ];
}

/**
 * The limits of one process, in memory: a site on one machine forgives recent actions when it
 * restarts, which is acceptable for windows of minutes to a day. Each key keeps the times of its
 * last `limit` actions; each key belongs to one rule.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #hits = new Map<string, { times: number[]; windowMs: number }>();

  constructor(private readonly clock: Clock = systemTime) {}

  /** Keys remembered now (each an action and who did it); `prune` keeps it bounded. */
  get size(): number {
    return this.#hits.size;
  }

  /** Milliseconds until `key` may act again under `rule`; 0 when it may act now. */
  #waitFor({ key, rule }: Slot, at: number): number {
    const times = this.#hits.get(key)?.times;
    if (!times || times.length < rule.limit) return 0;
    const oldest = times[times.length - rule.limit] ?? at;
    return Math.max(0, oldest + rule.windowMs - at);
  }

  /** Synchronous all the way, so nothing else runs between the checks and the records. */
  takeNow(slots: readonly Slot[]): Reservation {
    const at = this.clock.now();
    let wait = 0;
    for (const slot of slots) wait = Math.max(wait, this.#waitFor(slot, at));
    if (wait > 0) throw new RateLimitedError(Math.ceil(wait / 1000));
    for (const { key, rule } of slots) {
      const entry = this.#hits.get(key) ?? { times: [], windowMs: rule.windowMs };
      entry.times.push(at);
      // Only the last `limit` times ever decide a wait.
      if (entry.times.length > rule.limit) entry.times.splice(0, entry.times.length - rule.limit);
      this.#hits.set(key, entry);
    }
    let refunded = false;
    return {
      refund: async () => {
        if (refunded) return;
        refunded = true;
        for (const { key } of slots) {
          const times = this.#hits.get(key)?.times;
          const index = times?.lastIndexOf(at) ?? -1;
          if (times && index !== -1) times.splice(index, 1);
        }
      },
    };
  }

  async take(slots: readonly Slot[]): Promise<Reservation> {
    return this.takeNow(slots);
  }

  prune(): void {
    const at = this.clock.now();
    for (const [key, { times, windowMs }] of this.#hits) {
      if ((times.at(-1) ?? 0) + windowMs <= at) this.#hits.delete(key);
    }
  }
}
