/**
 * A token bucket per visitor: a steady rate with a burst on top. O(1) per message, so one
 * visitor's flood costs the server no more than a refusal and never slows other chats.
 */
export class FloodGate {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for `key`; false when the bucket is empty. */
  allow(key: string): boolean {
    const t = this.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: t };
    bucket.tokens = Math.min(
      this.burst,
      bucket.tokens + ((t - bucket.at) * this.ratePerSecond) / 1000,
    );
    bucket.at = t;
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  forget(key: string): void {
    this.#buckets.delete(key);
  }
}
