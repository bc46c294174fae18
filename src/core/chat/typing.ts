import { TYPING_EVENTS_PER_SECOND } from "./broker.ts";

interface Window {
  endsAt: number;
  /** What was said within the window, told when it ends. */
  held?: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Typing coalesced per sender: at most TYPING_EVENTS_PER_SECOND are told a second; what is said
 * within a window is held, and the latest of it is told when the window ends, so the partner
 * always ends up with the sender's last state.
 */
export class TypingWindows {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number,
    private readonly tell: (visitorId: string, isTyping: boolean) => Promise<void> | void,
  ) {}

  async note(visitorId: string, isTyping: boolean): Promise<void> {
    const now = this.now();
    let window = this.#windows.get(visitorId);
    if (!window) {
      window = { endsAt: 0 };
      this.#windows.set(visitorId, window);
    }
    if (now >= window.endsAt && !window.timer) {
      window.endsAt = now + 1000 / TYPING_EVENTS_PER_SECOND;
      await this.tell(visitorId, isTyping);
      return;
    }
    window.held = isTyping;
    if (window.timer) return;
    const open = window;
    open.timer = setTimeout(() => {
      open.timer = undefined;
      const held = open.held;
      open.held = undefined;
      if (held === undefined) {
        this.#windows.delete(visitorId);
        return;
      }
      open.endsAt = this.now() + 1000 / TYPING_EVENTS_PER_SECOND;
      void Promise.resolve(this.tell(visitorId, held)).catch(() => {});
    }, open.endsAt - now);
    open.timer.unref?.();
  }

  /** The sender's chat ended: nothing held is told any more. */
  forget(visitorId: string): void {
    const window = this.#windows.get(visitorId);
    if (window?.timer) clearTimeout(window.timer);
    this.#windows.delete(visitorId);
  }

  close(): void {
    for (const visitorId of [...this.#windows.keys()]) this.forget(visitorId);
  }
}
