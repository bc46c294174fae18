import type { DB } from "../../../db/schema.ts";
import { type Scheduler, systemTime, type TimerHandle } from "../clock.ts";

/** One visitor shown one bottle by discover (never its writer), with their country only. */
export interface Find {
  bottleId: number;
  visitorId: string;
  countryCode: string | null;
  foundAt: number;
}

export interface FindCounterOptions {
  /** Finds wait at most this long before they are written (100 ms). */
  flushAfterMs?: number;
  /** Finds waiting at most; one more starts a write at once (2,000). */
  maxPending?: number;
  /** A write that failed, for the server's bounded error log. */
  onError?: (error: unknown) => void;
  /** The timers the delay runs on (the system's). */
  scheduler?: Scheduler;
}

/** Rows per INSERT: 4 values each, far below both engines' limits on bound values. */
const ROWS_PER_INSERT = 250;

/**
 * Counts finds without slowing discover: a find is noted in memory (one per bottle and visitor,
 * the first one's country kept) and written with the others of the last moment in one
 * statement, insert-or-ignore, so the database sees one write every 100 ms or so instead of one
 * per discover, and on PostgreSQL discover waits for no extra round trip. What reads the finds
 * (My bottles, "your bottle was found") writes this instance's waiting ones first; another
 * instance's arrive within the delay. Bounded like every write: discover's own limit decides
 * how many finds a visitor makes, and at most `maxPending` wait here. A crash loses the finds
 * of the last moment, no more.
 */
export class FindCounter {
  readonly #pending = new Map<string, Find>();
  #timer: TimerHandle | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #flushAfterMs: number;
  readonly #maxPending: number;
  readonly #onError: (error: unknown) => void;
  readonly #scheduler: Scheduler;

  constructor(
    private readonly db: DB,
    options: FindCounterOptions = {},
  ) {
    this.#flushAfterMs = options.flushAfterMs ?? 100;
    this.#maxPending = options.maxPending ?? 2000;
    this.#onError = options.onError ?? (() => {});
    this.#scheduler = options.scheduler ?? systemTime;
  }

  /** Finds noted and not yet handed to a write. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Resolves once the writes already started are done, starting none. */
  settled(): Promise<void> {
    return this.#writing;
  }

  /** Notes a find; synchronous and never throws, so discover cannot fail for it. */
  note(find: Find): void {
    const key = `${find.bottleId} ${find.visitorId}`;
    if (!this.#pending.has(key)) this.#pending.set(key, find);
    if (this.#pending.size >= this.#maxPending) {
      void this.flush();
    } else if (!this.#timer) {
      this.#timer = this.#scheduler.setTimeout(() => void this.flush(), this.#flushAfterMs);
      this.#timer.unref();
    }
  }

  /** Writes every waiting find (after any write under way); resolves once they are stored. */
  flush(): Promise<void> {
    this.#scheduler.clearTimeout(this.#timer);
    this.#timer = undefined;
    const finds = [...this.#pending.values()];
    this.#pending.clear();
    this.#writing = this.#writing.then(() => this.#write(finds));
    return this.#writing;
  }

  async #write(finds: Find[]): Promise<void> {
    for (let i = 0; i < finds.length; i += ROWS_PER_INSERT) {
      const chunk = finds.slice(i, i + ROWS_PER_INSERT);
      try {
        await this.#insert(chunk);
      } catch {
        // A bottle purged a moment ago fails the whole statement on its foreign key: the
        // others are written one by one, and only what cannot be is left uncounted.
        for (const find of chunk) {
          await this.#insert([find]).catch(this.#onError);
        }
      }
    }
  }

  #insert(finds: Find[]): Promise<unknown> {
    return this.db
      .insertInto("bottle_finds")
      .values(
        finds.map((find) => ({
          bottle_id: find.bottleId,
          visitor_id: find.visitorId,
          country_code: find.countryCode,
          found_at: find.foundAt,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}
