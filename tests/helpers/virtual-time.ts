import type { ChatTime, TimerHandle } from "../../src/core/chat/time.ts";

class VirtualTimer implements TimerHandle {
  unref(): this {
    return this;
  }
}

interface Due {
  at: number;
  order: number;
  run: () => void;
  every?: number;
}

/**
 * Time that passes only when a test moves it: `advance` runs every timer falling due on the way,
 * in order of their due times (ties in the order they were set), `now()` reading each one's due
 * time while it runs. Nothing runs on its own, so a test decides exactly what has happened.
 */
export class VirtualTime implements ChatTime {
  #now: number;
  #order = 0;
  readonly #timers = new Map<VirtualTimer, Due>();

  constructor(start = Date.UTC(2026, 0, 15, 12)) {
    this.#now = start;
  }

  readonly now = (): number => this.#now;

  setTimeout = (run: () => void, ms: number): TimerHandle => this.#add(run, ms);

  setInterval = (run: () => void, ms: number): TimerHandle => this.#add(run, ms, Math.max(1, ms));

  clearTimeout = (timer: TimerHandle | undefined): void => {
    if (timer instanceof VirtualTimer) this.#timers.delete(timer);
  };

  clearInterval = (timer: TimerHandle | undefined): void => this.clearTimeout(timer);

  advance(ms: number): void {
    const end = this.#now + ms;
    for (let next = this.#next(end); next; next = this.#next(end)) {
      const [timer, due] = next;
      this.#now = due.at;
      if (due.every === undefined) {
        this.#timers.delete(timer);
      } else {
        due.at += due.every;
        due.order = ++this.#order;
      }
      due.run();
    }
    this.#now = end;
  }

  #add(run: () => void, ms: number, every?: number): TimerHandle {
    const timer = new VirtualTimer();
    const wait = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.#timers.set(timer, { at: this.#now + wait, order: ++this.#order, run, every });
    return timer;
  }

  #next(end: number): [VirtualTimer, Due] | undefined {
    let first: [VirtualTimer, Due] | undefined;
    for (const entry of this.#timers) {
      const due = entry[1];
      if (due.at > end) continue;
      if (!first || due.at < first[1].at || (due.at === first[1].at && due.order < first[1].order))
        first = entry;
    }
    return first;
  }
}
