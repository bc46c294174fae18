/**
 * What the chat waits with: the time, and timers. The site runs on the system's; tests pass a
 * virtual one they move by hand, so a grace period or a sweep runs at once instead of after a
 * real pause. The same shape as a clock with its scheduler, so one can stand for the other.
 */
export interface TimerHandle {
  unref(): unknown;
}

export interface ChatTime {
  now(): number;
  setTimeout(run: () => void, ms: number): TimerHandle;
  clearTimeout(timer: TimerHandle | undefined): void;
  setInterval(run: () => void, ms: number): TimerHandle;
  clearInterval(timer: TimerHandle | undefined): void;
}

type SystemTimer = ReturnType<typeof setTimeout>;

/** The system's clock and timers. */
export const systemChatTime: ChatTime = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as SystemTimer | undefined),
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (timer) => clearInterval(timer as SystemTimer | undefined),
};
