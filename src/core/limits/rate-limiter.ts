import { RateLimitedError } from "../errors.ts";

export interface RateRule {
  /** How many actions fit in one window. */
  limit: number;
  windowMs: number;
}

/**
 * Sliding-window counters kept in memory: one process serves a site, and a restart forgiving
 * recent actions is acceptable for limits of minutes to a day.
 */
export class RateLimiter {
  readonly #hits = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds until `key` may act again under `rule`, or 0 when it may act now. */
  waitFor(key: string, rule: RateRule): number {
    const times = this.#recent(key, rule);
    if (times.length < rule.limit) return 0;
    const oldest = times[times.length - rule.limit] ?? this.now();
    return Math.max(1, oldest + rule.windowMs - this.now());
  }

  /** Throws RateLimitedError when any key has used up its window. */
  check(keys: readonly string[], rule: RateRule): void {
    let wait = 0;
    for (const key of keys) wait = Math.max(wait, this.waitFor(key, rule));
    if (wait > 0) throw new RateLimitedError(Math.ceil(wait / 1000));
  }

  /** Records one action for every key, without checking (e.g. a failure after the fact). */
  record(keys: readonly string[]): void {
    const at = this.now();
    for (const key of keys) {
      const times = this.#hits.get(key) ?? [];
      times.push(at);
      this.#hits.set(key, times);
    }
  }

  /** Records one action for every key, or throws RateLimitedError (recording nothing). */
  consume(keys: readonly string[], rule: RateRule): void {
    this.check(keys, rule);
    this.record(keys);
  }

  /** Drops windows that have fully passed; call now and then to bound memory. */
  prune(maxWindowMs: number): void {
    const horizon = this.now() - maxWindowMs;
    for (const [key, times] of this.#hits) {
      if ((times.at(-1) ?? 0) <= horizon) this.#hits.delete(key);
    }
  }

  #recent(key: string, rule: RateRule): number[] {
    const times = this.#hits.get(key);
    if (!times) return [];
    const horizon = this.now() - rule.windowMs;
    let drop = 0;
    while (drop < times.length && (times[drop] ?? 0) <= horizon) drop++;
    // A key belongs to one rule, so what has left its window is never needed again.
    if (drop > 0) times.splice(0, drop);
    return times;
  }
}
