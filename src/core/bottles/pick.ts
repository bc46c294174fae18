/** What the pick needs to know of a candidate bottle. */
export interface Candidate {
  id: number;
  locale: string;
}

/**
 * Chooses a bottle for a reader from the newest available ones (the caller has already left
 * out the reader's own): bottles the reader was shown recently only when nothing else is left,
 * then, among those, bottles in the reader's language when there are any; then at random.
 */
export function pickBottle<T extends Candidate>(
  candidates: readonly T[],
  readerLocale: string,
  recentlyShown: ReadonlySet<number>,
  random: () => number = Math.random,
): T | undefined {
  const unseen = candidates.filter((c) => !recentlyShown.has(c.id));
  const pool = unseen.length > 0 ? unseen : candidates;
  const sameLanguage = pool.filter((c) => c.locale === readerLocale);
  const choices = sameLanguage.length > 0 ? sameLanguage : pool;
  if (choices.length === 0) return undefined;
  return choices[Math.floor(random() * choices.length)];
}

/**
 * The bottles each reader was shown last, newest last, kept in memory with a bound per reader
 * and on the number of readers, oldest readers forgotten first.
 */
export class RecentlyShown {
  readonly #byReader = new Map<string, number[]>();

  constructor(
    private readonly perReader = 20,
    private readonly maxReaders = 50_000,
  ) {}

  of(reader: string): ReadonlySet<number> {
    return new Set(this.#byReader.get(reader) ?? []);
  }

  add(reader: string, bottleId: number): void {
    const ids = (this.#byReader.get(reader) ?? []).filter((id) => id !== bottleId);
    ids.push(bottleId);
    if (ids.length > this.perReader) ids.shift();
    // Re-inserting moves the reader to the end, so the first key is the least recent reader.
    this.#byReader.delete(reader);
    this.#byReader.set(reader, ids);
    if (this.#byReader.size > this.maxReaders) {
      const oldest = this.#byReader.keys().next().value;
      if (oldest !== undefined) this.#byReader.delete(oldest);
    }
  }
}
