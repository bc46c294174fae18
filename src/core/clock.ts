/**
 * Time, for everything that waits: what time it is, and timers. The site runs on the system's
 * clock and timers; tests give the same parts a virtual clock they move by hand
 * (tests/helpers/clock.ts), so a grace period or a sweep runs at once and in a known order
 * instead of after a real pause.
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
}

/** A pending timer. `unref` lets the process exit while it waits (a no-op on virtual timers). */
export interface TimerHandle {
  unref(): unknown;
}

export interface Scheduler {
  setTimeout(run: () => void, ms: number): TimerHandle;
  /** Accepts undefined and timers already run or cleared, as the global one does. */
  clearTimeout(timer: TimerHandle | undefined): void;
  setInterval(run: () => void, ms: number): TimerHandle;
  clearInterval(timer: TimerHandle | undefined): void;
}

/** A clock and the timers that go with it: one value passed to whatever waits. */
export type Time = Clock & Scheduler;

type SystemTimer = ReturnType<typeof setTimeout>;

/** The system's clock and timers. */
export const systemTime: Time = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as SystemTimer | undefined),
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (timer) => clearInterval(timer as SystemTimer | undefined),
};

/**
 * A signal that aborts after `ms` on the given timers, for a request that must not wait longer;
 * `done` clears the timer once the answer (body included) is read.
 */
export function timeoutSignal(
  scheduler: Scheduler,
  ms: number,
): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = scheduler.setTimeout(
    () => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")),
    ms,
  );
  timer.unref();
  return { signal: controller.signal, done: () => scheduler.clearTimeout(timer) };
}
