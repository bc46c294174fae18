import { ExpiringMap } from "../limits/expiring-map.ts";

export interface FloodRule {
  ratePerSecond: number;
  burst: number;
}

/** Chat messages: a visitor's, and an address's with all its visitors together. */
export const CHAT_FLOOD = {
  perVisitor: { ratePerSecond: 5, burst: 10 },
  perAddress: { ratePerSecond: 20, burst: 40 },
} as const satisfies Record<string, FloodRule>;

/**
 * Chat sockets opened: a visitor's (a page opens one, and again after a drop or a reload), and an
 * address's with all its visitors and cookies (as many at once as it may hold open). Each socket
 * costs the chat's shared state a subscription on opening and on closing (on Redis, a script each),
 * so one address opening and closing them in a loop could keep Redis busy for the whole site.
 */
export const CHAT_CONNECTIONS = {
  perVisitor: { ratePerSecond: 1, burst: 20 },
  perAddress: { ratePerSecond: 2, burst: 64 },
} as const satisfies Record<string, FloodRule>;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key: a steady rate with a burst on top. O(1) per message, so one visitor's
 * flood costs the server no more than a refusal and never slows other chats. A bucket left alone
 * long enough to fill up again is the same as no bucket, so it is dropped (ExpiringMap): memory
 * follows the visitors sending now, not every visitor ever seen.
 */
export class FloodLimit {
  readonly #buckets: ExpiringMap<string, Bucket>;

  constructor(
    private readonly rule: FloodRule,
    private readonly now: () => number = Date.now,
  ) {
    // Past this, an untouched bucket has refilled to its burst.
    const refillMs = Math.ceil((rule.burst / rule.ratePerSecond) * 1000);
    this.#buckets = new ExpiringMap(refillMs, now);
  }

  /** Takes a token for `key`; false when the bucket is empty. */
  allow(key: string): boolean {
    const t = this.now();
    const bucket = this.#buckets.get(key);
    if (!bucket) {
      this.#buckets.set(key, { tokens: this.rule.burst - 1, at: t });
      return true;
    }
    bucket.tokens = Math.min(
      this.rule.burst,
      bucket.tokens + ((t - bucket.at) * this.rule.ratePerSecond) / 1000,
    );
    bucket.at = t;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Buckets held now. */
  get size(): number {
    return this.#buckets.size;
  }

  prune(): void {
    this.#buckets.prune();
  }
}

/**
 * The chat's flood limits (messages, and sockets opened), the first check each meets: the
 * visitor's bucket and their address's.
 */
export class ChatFloodLimits {
  readonly #visitors: FloodLimit;
  readonly #addresses: FloodLimit;

  constructor(
    now: () => number = Date.now,
    rules: { perVisitor: FloodRule; perAddress: FloodRule } = CHAT_FLOOD,
  ) {
    this.#visitors = new FloodLimit(rules.perVisitor, now);
    this.#addresses = new FloodLimit(rules.perAddress, now);
  }

  allow(visitorId: string, ipKey: string): boolean {
    if (!this.#visitors.allow(visitorId)) return false;
    // The visitor's token is spent on what the address refuses: a refusal must cost the visitor
    // too, or a crowded address would let one visitor retry without limit.
    return this.#addresses.allow(ipKey);
  }

  /**
   * The same two buckets, the address's first: for what may come without a cookie (a socket's
   * opening), where each attempt can bring a visitor id never seen, so an address past its
   * limit adds no visitor's bucket and memory follows the addresses, not the attempts.
   */
  allowAddressFirst(visitorId: string, ipKey: string): boolean {
    return this.#addresses.allow(ipKey) && this.#visitors.allow(visitorId);
  }

  get size(): number {
    return this.#visitors.size + this.#addresses.size;
  }

  prune(): void {
    this.#visitors.prune();
    this.#addresses.prune();
  }
}
