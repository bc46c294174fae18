import type { Time, TimerHandle } from "../clock.ts";
import { ExpiringMap } from "../limits/expiring-map.ts";
import { TYPING_EVENTS_PER_SECOND } from "./broker.ts";

const WINDOW_MS = 1000 / TYPING_EVENTS_PER_SECOND;

interface Window {
  endsAt: number;
  /** What was said within the window, told when it ends. */
  held?: boolean;
  timer?: TimerHandle;
}

/**
 * Typing coalesced per sender: at most TYPING_EVENTS_PER_SECOND are told a second; what is said
 * within a window is held, and the latest of it is told when the window ends, so the partner
 * always ends up with the sender's last state. A window with nothing held is forgotten soon
 * after it ends (ExpiringMap), so senders who typed once hold no memory.
 */
export class TypingWindows {
  readonly #windows: ExpiringMap<string, Window>;
  /** Timers waiting to tell a held state, so closing stops them all. */
  readonly #timers = new Set<TimerHandle>();
  readonly now: () => number;

  constructor(
    private readonly time: Time,
    private readonly tell: (visitorId: string, isTyping: boolean) => Promise<void> | void,
  ) {
    this.now = () => time.now();
    this.#windows = new ExpiringMap(4 * WINDOW_MS, this.now);
  }

  async note(visitorId: string, isTyping: boolean): Promise<void> {
    const now = this.now();
    let window = this.#windows.get(visitorId);
    if (!window) {
      window = { endsAt: 0 };
      this.#windows.set(visitorId, window);
    }
    if (now >= window.endsAt && !window.timer) {
      window.endsAt = now + WINDOW_MS;
      await this.tell(visitorId, isTyping);
      return;
    }
    window.held = isTyping;
    if (window.timer) return;
    const open = window;
    const timer = this.time.setTimeout(() => {
      this.#timers.delete(timer);
      open.timer = undefined;
      const held = open.held;
      open.held = undefined;
      if (held === undefined) {
        this.#windows.delete(visitorId);
        return;
      }
      open.endsAt = this.now() + WINDOW_MS;
      // Touched again, so a window still telling is not let go meanwhile.
      this.#windows.set(visitorId, open);
      void Promise.resolve(this.tell(visitorId, held)).catch(() => {});
    }, open.endsAt - now);
    timer.unref?.();
    open.timer = timer;
    this.#timers.add(timer);
  }

  /** Windows held now. */
  get size(): number {
    return this.#windows.size;
  }

  /** The sender's chat ended: nothing held is told any more. */
  forget(visitorId: string): void {
    const window = this.#windows.get(visitorId);
    if (window?.timer) {
      this.time.clearTimeout(window.timer);
      this.#timers.delete(window.timer);
    }
    this.#windows.delete(visitorId);
  }

  close(): void {
    for (const timer of this.#timers) this.time.clearTimeout(timer);
    this.#timers.clear();
    this.#windows.clear();
  }
}
