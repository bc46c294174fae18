/** Starts a source: it calls `emit` for each value until the returned function is called. */
export type LiveSource<T> = (emit: (value: T) => void) => () => void;

/**
 * A subscription's values, pushed by their source. To tRPC and its types it is an ordinary
 * async iterable (tracked() envelopes and all), so any adapter can stream it; our WebSocket
 * glue recognises it and subscribes directly instead, so each value becomes a frame at the
 * moment it is emitted, with no promise or async generator step per value. Nothing starts
 * until the stream is subscribed to or iterated, as with an async generator's body.
 */
export class LiveStream<T> implements AsyncIterable<T, void> {
  readonly #source: LiveSource<T>;
  readonly #signal: AbortSignal | undefined;

  /** `signal` (the procedure's) ends iteration when it aborts. */
  constructor(source: LiveSource<T>, signal?: AbortSignal) {
    this.#source = source;
    this.#signal = signal;
  }

  /**
   * Starts the source: `onValue` runs synchronously for every value, starting possibly
   * before this returns, until the returned function is called. Throws what starting throws.
   */
  subscribe(onValue: (value: T) => void): () => void {
    return this.#source(onValue);
  }

  [Symbol.asyncIterator](): AsyncIterator<T, void> {
    const signal = this.#signal;
    const queue: T[] = [];
    let waiting: ((result: IteratorResult<T, void>) => void) | undefined;
    let stop: (() => void) | undefined;
    let started = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      queue.length = 0;
      signal?.removeEventListener("abort", finish);
      stop?.();
      const wake = waiting;
      waiting = undefined;
      wake?.({ done: true, value: undefined });
    };
    const start = () => {
      started = true;
      if (signal?.aborted) {
        done = true;
        return;
      }
      signal?.addEventListener("abort", finish, { once: true });
      try {
        stop = this.#source((value) => {
          if (done) return;
          const wake = waiting;
          if (wake) {
            waiting = undefined;
            wake({ done: false, value });
          } else {
            queue.push(value);
          }
        });
      } catch (error) {
        finish();
        throw error;
      }
      if (done) stop();
    };
    return {
      next: () => {
        if (!started) {
          try {
            start();
          } catch (error) {
            return Promise.reject(error);
          }
        }
        if (queue.length > 0) return Promise.resolve({ done: false, value: queue.shift() as T });
        if (done) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve) => {
          waiting = resolve;
        });
      },
      return: () => {
        started = true;
        finish();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
