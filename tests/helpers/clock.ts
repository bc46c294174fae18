import type { Time, TimerHandle } from "../../src/core/clock.ts";

/** A timer of a virtual clock: only its clock can run or clear it. */
class VirtualTimer implements TimerHandle {
  unref(): this {
    return this;
  }
}

interface Due {
  at: number;
  /** Ties at one instant run in the order the timers were set (or last rescheduled). */
  order: number;
  run: () => void;
  /** Set for an interval: how far its next run is from this one. */
  every?: number;
}

/**
 * Time that passes only when a test moves it. `advance` runs every timer that falls due on the
 * way, in the order of their due times (ties in the order they were set), with `now()` reading
 * each one's due time while it runs, including timers that those timers set; `jump` does the
 * same for spans of days, running each interval only its last time. Nothing runs on its own,
 * so a test decides exactly what has happened before it looks.
 */
export class VirtualClock implements Time {
  #now: number;
  #order = 0;
  readonly #timers = new Map<VirtualTimer, Due>();

  constructor(start = Date.UTC(2026, 0, 15, 12)) {
    this.#now = start;
  }

  /** A property, so `clock.now` can be handed on alone. */
  readonly now = (): number => this.#now;

  setTimeout = (run: () => void, ms: number): TimerHandle => this.#add(run, ms);

  setInterval = (run: () => void, ms: number): TimerHandle =>
    // As the system's timers do, an interval never repeats more often than each millisecond.
    this.#add(run, ms, Math.max(1, ms));

  clearTimeout = (timer: TimerHandle | undefined): void => {
    if (timer instanceof VirtualTimer) this.#timers.delete(timer);
  };

  clearInterval = (timer: TimerHandle | undefined): void => this.clearTimeout(timer);

  /** Timers waiting to run. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time on by `ms`, running each timer that falls due on the way, in order. */
  advance(ms: number): void {
    this.#move(ms, false);
  }

  #move(ms: number, lastOfEachInterval: boolean): void {
    if (!(ms >= 0)) throw new RangeError(`time moves forward only, not by ${ms} ms`);
    const end = this.#now + ms;
    for (let next = this.#next(end); next; next = this.#next(end)) {
      const [timer, due] = next;
      if (lastOfEachInterval && due.every !== undefined && due.at + due.every <= end) {
        // Skipped to its last run in the span; whatever falls due before that runs first.
        due.at += Math.floor((end - due.at) / due.every) * due.every;
        continue;
      }
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

  /**
   * Moves time on by `ms` as `advance` does, except that an interval runs only its last time
   * within the span. The site's intervals read the state as it is (switches, bans, what has
   * expired), so once is enough; run for every period, a 5-second one would run half a million
   * times over a month of virtual time.
   */
  jump(ms: number): void {
    this.#move(ms, true);
  }

  /**
   * Sets the time: forward as `jump` does; back (a test trying the instant before a deadline)
   * runs nothing and leaves every timer where it was.
   */
  set(time: number): void {
    if (time >= this.#now) this.jump(time - this.#now);
    else this.#now = time;
  }

  #add(run: () => void, ms: number, every?: number): TimerHandle {
    const timer = new VirtualTimer();
    const wait = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.#timers.set(timer, { at: this.#now + wait, order: ++this.#order, run, every });
    return timer;
  }

  /** The earliest timer due by `end`, if any. */
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
