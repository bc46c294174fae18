/**
 * A map whose entries vanish once left untouched for between `ttlMs` and twice that: two
 * generations, the current one and the one before, swapped every `ttlMs`. Reading an entry from
 * the older generation moves it to the current one. Every operation is O(1) and nothing ever
 * walks the entries, so per-visitor state (token buckets, typing windows, recent texts) stays
 * bounded by the visitors seen in the last two windows, however many came before.
 *
 * `maxEntries` bounds a generation too: a flood of new keys within one window swaps early, so
 * the oldest entries go first.
 */
export class ExpiringMap<K, V> {
  #current = new Map<K, V>();
  #previous = new Map<K, V>();
  /** Set at the first use, so an owner may hand over a clock it has not made yet. */
  #swappedAt: number | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  /** Swaps generations when a window has passed; everything goes once two have. */
  #age(): void {
    const now = this.now();
    this.#swappedAt ??= now;
    const elapsed = now - this.#swappedAt;
    if (elapsed < this.ttlMs) return;
    this.#previous = elapsed >= 2 * this.ttlMs ? new Map() : this.#current;
    this.#current = new Map();
    this.#swappedAt = now;
  }

  get(key: K): V | undefined {
    this.#age();
    const value = this.#current.get(key);
    if (value !== undefined) return value;
    const older = this.#previous.get(key);
    if (older === undefined) return undefined;
    this.#previous.delete(key);
    this.#current.set(key, older);
    return older;
  }

  set(key: K, value: V): void {
    this.#age();
    this.#previous.delete(key);
    this.#current.set(key, value);
    if (this.#current.size > this.maxEntries) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#swappedAt = this.now();
    }
  }

  delete(key: K): void {
    this.#current.delete(key);
    this.#previous.delete(key);
  }

  clear(): void {
    this.#current.clear();
    this.#previous.clear();
  }

  /** Entries held now (after letting go of those past their time). */
  get size(): number {
    this.#age();
    return this.#current.size + this.#previous.size;
  }

  /** Lets go of what has expired without waiting for the next read or write. */
  prune(): void {
    this.#age();
  }
}
