import type { ChatStatus } from "../../../common/chat.ts";
import type { MailboxListener } from "../mailbox.ts";
import type { MemoryChat, Presence } from "./state.ts";

/** What a visitor's presence needs of the other parts. */
export interface PresenceHooks {
  /** Takes a visitor out of the pool; false when they were not in it. */
  leavePool(visitorId: string): boolean;
  /** Pairs a waiting visitor if someone fits (see Pairing). */
  match(visitorId: string): ChatStatus | undefined;
  /** Ends the visitor's wait or chat (see Relay). */
  end(visitorId: string): void;
  forgetTyping(visitorId: string): void;
}

/** Visitors present in this process: their mailboxes, streams and grace periods. */
export class Presences {
  constructor(
    private readonly chat: MemoryChat,
    private readonly hooks: PresenceHooks,
  ) {}

  /** A visitor's presence, made on first need; with no stream open it lasts the grace period. */
  of(visitorId: string): Presence {
    let presence = this.chat.presence.get(visitorId);
    if (!presence) {
      presence = { visitor: undefined, mailbox: this.chat.newMailbox() };
      this.chat.presence.set(visitorId, presence);
      this.#startGrace(visitorId, presence);
    }
    return presence;
  }

  /**
   * Gives `onEvent` the visitor's events after `lastEventId` (a fresh stream starts with a
   * status event), each as it happens, inside the call that pushes it, until the returned
   * function is called.
   */
  listen(
    visitorId: string,
    lastEventId: string | null | undefined,
    onEvent: MailboxListener,
  ): () => void {
    const presence = this.of(visitorId);
    if (presence.graceTimer) {
      this.chat.time.clearTimeout(presence.graceTimer);
      presence.graceTimer = undefined;
    }
    const { mailbox } = presence;
    let stop: () => void;
    try {
      // A fresh stream starts with where things stand; a resumed one only gets what it missed.
      if (!mailbox.knows(lastEventId)) {
        lastEventId = mailbox.currentId();
        onEvent({
          id: lastEventId,
          event: { type: "status", status: this.chat.status(visitorId) },
        });
      }
      stop = mailbox.listen(lastEventId, onEvent);
    } catch (error) {
      if (mailbox.readers === 0) this.#startGrace(visitorId, presence);
      throw error;
    }
    // A visitor who pressed start before their stream opened can be paired now.
    if (this.chat.pool.has(visitorId)) this.hooks.match(visitorId);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stop();
      if (mailbox.readers > 0) return;
      // The grace period is for resuming a chat, not for being matched meanwhile.
      if (this.hooks.leavePool(visitorId)) mailbox.push({ type: "idle" });
      this.#startGrace(visitorId, presence);
    };
  }

  /** With no stream open, the visitor gets a grace period to come back before they leave. */
  #startGrace(visitorId: string, presence: Presence): void {
    this.chat.time.clearTimeout(presence.graceTimer);
    presence.graceTimer = this.chat.time.setTimeout(() => {
      presence.graceTimer = undefined;
      if (presence.mailbox.readers === 0) {
        this.hooks.end(visitorId);
        this.hooks.forgetTyping(visitorId);
        this.chat.presence.delete(visitorId);
      }
    }, this.chat.resumeGraceMs);
    presence.graceTimer.unref();
  }

  /** Clears every grace timer (at close). */
  close(): void {
    for (const presence of this.chat.presence.values())
      this.chat.time.clearTimeout(presence.graceTimer);
  }
}
