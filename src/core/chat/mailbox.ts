import type { ChatEvent } from "../../common/chat.ts";

export interface Numbered {
  id: string;
  event: ChatEvent;
}

/**
 * One visitor's events, numbered, with the last few kept so a stream that reconnects with the
 * id of the last event it saw gets exactly what it missed, nothing twice.
 */
export class Mailbox {
  readonly #events: Array<{ seq: number; event: ChatEvent }> = [];
  readonly #waiters = new Set<() => void>();
  #seq = 0;
  /** Open streams reading this mailbox. */
  readers = 0;

  constructor(
    /** A prefix unique to this mailbox, so ids from before a restart never match. */
    private readonly epoch: string,
    private readonly keep = 200,
  ) {}

  push(event: ChatEvent): void {
    this.#seq += 1;
    this.#events.push({ seq: this.#seq, event });
    if (this.#events.length > this.keep) this.#events.shift();
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  /** Events after `lastEventId`; all kept events when the id is unknown or from another epoch. */
  #after(lastEventId: string | null | undefined): number {
    if (!lastEventId) return this.#seq;
    const [epoch, seq] = lastEventId.split(":");
    if (epoch !== this.epoch) return this.#seq;
    const n = Number(seq);
    return Number.isInteger(n) ? n : this.#seq;
  }

  /** Whether `lastEventId` names a place in this mailbox a stream can resume from. */
  knows(lastEventId: string | null | undefined): boolean {
    return !!lastEventId && lastEventId.split(":")[0] === this.epoch;
  }

  /** The id a snapshot taken now stands at: a stream resuming from it gets what follows. */
  currentId(): string {
    return `${this.epoch}:${this.#seq}`;
  }

  /** Streams events after `lastEventId` until the signal aborts. */
  async *stream(
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered> {
    let cursor = this.#after(lastEventId);
    // One abort listener for the whole stream, not one per wait: this runs for every event.
    let wake: (() => void) | undefined;
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal.aborted) {
        // Kept events are numbered one after another, so the next one is found by its number;
        // the array may shift while a yield waits, so the place is found again each time.
        for (;;) {
          const first = this.#events[0]?.seq;
          if (first === undefined) break;
          const next = this.#events[Math.max(0, cursor + 1 - first)];
          if (!next) break;
          cursor = next.seq;
          yield { id: `${this.epoch}:${next.seq}`, event: next.event };
        }
        if (signal.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          this.#waiters.add(resolve);
        });
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}
