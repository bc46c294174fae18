import { type Scheduler, systemTime, type TimerHandle } from "./clock.ts";

export interface WriteBehindOptions {
  /** Rows wait at most this long before they are written (100 ms). */
  flushAfterMs?: number;
  /** Rows waiting at most; one more starts a write at once (2,000). */
  maxPending?: number;
  /** A write that failed, for the server's bounded error log. */
  onError?: (error: unknown) => void;
  /** The timers the delay runs on (the system's). */
  scheduler?: Scheduler;
}

/**
 * Rows noted in memory and written with the others of the last moment, so the database sees one
 * write every 100 ms or so instead of one per request, and on PostgreSQL the request waits for
 * no extra round trip. One row per key waits (`keep` says whether the first or the latest of a
 * key is written); they are handed to `write` `rowsPerWrite` at a time, in turn (a statement
 * binds a few values a row, far below both engines' limits). Bounded like every write: at most
 * `maxPending` rows wait. A crash loses the rows of the last moment, no more.
 */
export class WriteBehind<T> {
  readonly #pending = new Map<string, T>();
  #timer: TimerHandle | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #flushAfterMs: number;
  readonly #maxPending: number;
  readonly #scheduler: Scheduler;
  readonly onError: (error: unknown) => void;

  constructor(
    private readonly write: (rows: T[]) => Promise<unknown>,
    private readonly batch: { keep: "first" | "latest"; rowsPerWrite: number },
    options: WriteBehindOptions = {},
  ) {
    this.#flushAfterMs = options.flushAfterMs ?? 100;
    this.#maxPending = options.maxPending ?? 2000;
    this.onError = options.onError ?? (() => {});
    this.#scheduler = options.scheduler ?? systemTime;
  }

  /** Rows noted and not yet handed to a write. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Resolves once the writes already started are done, starting none. */
  settled(): Promise<void> {
    return this.#writing;
  }

  /** Notes a row; synchronous and never throws, so the request cannot fail for it. */
  note(key: string, row: T): void {
    if (this.batch.keep === "latest" || !this.#pending.has(key)) this.#pending.set(key, row);
    if (this.#pending.size >= this.#maxPending) {
      void this.flush();
    } else if (!this.#timer) {
      this.#timer = this.#scheduler.setTimeout(() => void this.flush(), this.#flushAfterMs);
      this.#timer.unref();
    }
  }

  /** Writes every waiting row (after any write under way); resolves once they are stored. */
  flush(): Promise<void> {
    this.#scheduler.clearTimeout(this.#timer);
    this.#timer = undefined;
    const rows = [...this.#pending.values()];
    this.#pending.clear();
    this.#writing = this.#writing.then(() => this.#writeAll(rows).catch(this.onError));
    return this.#writing;
  }

  async #writeAll(rows: T[]): Promise<void> {
    const { rowsPerWrite } = this.batch;
    for (let i = 0; i < rows.length; i += rowsPerWrite) {
      await this.write(rows.slice(i, i + rowsPerWrite));
    }
  }
}
