import type { ChatEvent } from "../../common/chat.ts";

export interface Numbered {
  id: string;
  event: ChatEvent;
}

/** Called with each event, in order, at the moment it is pushed. */
export type MailboxListener = (numbered: Numbered) => void;

/**
 * One visitor's events, numbered, with the last few kept so a stream that reconnects with the
 * id of the last event it saw gets exactly what it missed, nothing twice.
 *
 * Listeners are called synchronously from `push`: a chat message reaches the partner's socket
 * without a promise, a timer or an async generator in between (those cost more per message
 * than everything else the relay does). A listener must not push to or listen on the mailbox
 * that calls it.
 */
export class Mailbox {
  /**
   * The kept events, a ring: event number n sits at n % keep. It grows as events come, so an
   * idle visitor's mailbox holds a few slots, not `keep`.
   */
  readonly #kept: Array<ChatEvent | undefined> = [];
  /** One entry per listen call, so the same function listening twice counts twice. */
  readonly #listeners = new Set<{ listener: MailboxListener }>();
  #seq = 0;

  constructor(
    /** A prefix unique to this mailbox, so ids from before a restart never match. */
    private readonly epoch: string,
    private readonly keep = 200,
  ) {}

  /** Open streams reading this mailbox. */
  get readers(): number {
    return this.#listeners.size;
  }

  push(event: ChatEvent): void {
    const seq = ++this.#seq;
    this.#kept[seq % this.keep] = event;
    if (this.#listeners.size === 0) return;
    const numbered: Numbered = { id: `${this.epoch}:${seq}`, event };
    for (const entry of this.#listeners) entry.listener(numbered);
  }

  /** The event number `lastEventId` names in this mailbox, or undefined when it names none. */
  #seqOf(lastEventId: string | null | undefined): number | undefined {
    if (!lastEventId) return undefined;
    const colon = lastEventId.indexOf(":");
    if (colon === -1 || lastEventId.slice(0, colon) !== this.epoch) return undefined;
    const n = Number(lastEventId.slice(colon + 1));
    return Number.isInteger(n) && n >= 0 && n <= this.#seq ? n : undefined;
  }

  /** Whether `lastEventId` names a place in this mailbox a stream can resume from. */
  knows(lastEventId: string | null | undefined): boolean {
    return this.#seqOf(lastEventId) !== undefined;
  }

  /** The id a snapshot taken now stands at: a stream resuming from it gets what follows. */
  currentId(): string {
    return `${this.epoch}:${this.#seq}`;
  }

  /**
   * Gives `listener` the kept events after `lastEventId` at once (none when the id is unknown
   * here), then every event as it is pushed, until the returned function is called.
   */
  listen(lastEventId: string | null | undefined, listener: MailboxListener): () => void {
    const oldest = Math.max(1, this.#seq - this.keep + 1);
    const first = Math.max((this.#seqOf(lastEventId) ?? this.#seq) + 1, oldest);
    for (let seq = first; seq <= this.#seq; seq++) {
      listener({ id: `${this.epoch}:${seq}`, event: this.#kept[seq % this.keep] as ChatEvent });
    }
    const entry = { listener };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }
}
