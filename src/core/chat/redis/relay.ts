import { CHAT_LIMITS, type ChatMessage } from "../../../common/chat.ts";
import type { Time } from "../../clock.ts";
import { DomainError } from "../../errors.ts";
import { RandomIds } from "../ids.ts";
import { TypingWindows } from "../typing.ts";
import type { RedisChat } from "./engine.ts";
import { type ChatRef, chatRefOf, type PoolStatus } from "./local.ts";
import { announcedPayload, typingPayload } from "./wire.ts";

/** A message to keep and announce in a pipeline of transactions (see Relay's keepAndAnnounce). */
interface Transaction {
  stream: string;
  messageId: string;
  /** The side whose event it is (the partner's). */
  side: "a" | "b";
  event: string;
  channel: string;
  announced: string;
  resolve(kept: boolean): void;
  reject(error: unknown): void;
}

/**
 * Messages and typing. A message is kept in its chat's stream (whose ids are the events' ids a
 * reconnecting socket resumes from, on any instance) and published to the partner's channel:
 * on one Redis in one transaction, no script; on a Cluster by the chat's send script on its
 * slot. While the chat runs with nobody muted its stream has the name the transaction appends
 * to, so that is the check; when the append finds no stream, the send script decides (a mute,
 * a ban, an end).
 */
export class Relay {
  readonly #ids = new RandomIds();
  readonly #typing: TypingWindows;
  /** Messages waiting to go in the next pipeline of transactions. */
  #waiting: Transaction[] = [];
  /** Whether a pipeline of transactions is on its way. */
  #sending = false;

  constructor(
    private readonly chat: RedisChat,
    time: Time,
  ) {
    this.#typing = new TypingWindows(time, (visitorId, isTyping) =>
      this.#tellTyping(visitorId, isTyping),
    );
  }

  /**
   * The visitor's chat as this instance keeps it, or as the pool says (`fresh`). What this
   * instance keeps may lag a pairing made elsewhere a moment ago: only a chat it knows of is
   * taken as is (a stale one is found out by the chat's own script).
   */
  async chatOf(visitorId: string, fresh = false): Promise<ChatRef | undefined> {
    const local = this.chat.visitors.get(visitorId);
    if (!fresh && local?.chat) return local.chat;
    const { status } = await this.chat.poolRun<{ status: PoolStatus }>("status", [visitorId]);
    const ref = chatRefOf(status);
    // A chat the pool no longer has for them ends on their pages now (see LocalVisitor.settle).
    if (local?.attached) local.settle(status.state, ref);
    return ref;
  }

  async send(
    visitorId: string,
    content: string,
    options: { contact?: boolean } = {},
  ): Promise<ChatMessage> {
    let chat = await this.chatOf(visitorId);
    for (let attempt = 0; chat; attempt++) {
      const mine: ChatMessage = {
        id: `${chat.id}${this.#ids.next()}`,
        content: content.slice(0, CHAT_LIMITS.message),
        timestamp: this.chat.time.now(),
        country: chat.self,
        from: "me",
        ...(options.contact ? { contact: true as const } : {}),
      };
      const event = JSON.stringify({
        type: "message",
        chatId: chat.id,
        message: { ...mine, from: "partner" },
      });
      // Without the partner the event has nowhere to go but through the checks.
      let checksOnly = !chat.partner;
      if (!this.chat.cluster && !checksOnly) {
        if (await this.#keepAndAnnounce(chat, mine.id, event)) return mine;
        // Its append found no stream under the unchecked name: the script need not look again.
        checksOnly = true;
      }
      const answer = Number(
        await this.chat.chatRun("send", chat.id, [
          visitorId,
          mine.id,
          event,
          this.chat.kept,
          checksOnly ? "" : chat.side,
          chat.partner,
        ]),
      );
      if (answer === 1 || answer === 2) return mine;
      if (answer === 3) throw new DomainError("CHAT_BANNED", "user is banned from chat");
      if (attempt > 0) break;
      // What this instance kept was out of date: the pool says where the visitor is.
      const fresh = await this.chatOf(visitorId, true);
      if (fresh?.id === chat.id && answer === -1) {
        // The pool holds a chat whose own keys are gone: both sides hear it was lost.
        await this.chat.poolRun("lost", [chat.id, visitorId, chat.partner]);
        this.chat.visitors.get(visitorId)?.lose(chat.id);
        break;
      }
      chat = fresh?.id === chat.id ? undefined : fresh;
    }
    throw new DomainError("NOT_FOUND", "not in a chat");
  }

  /** Tells the partner whether the visitor is typing (coalesced here: see TypingWindows). */
  async typing(visitorId: string, isTyping: boolean): Promise<void> {
    await this.#typing.note(visitorId, isTyping);
  }

  forgetTyping(visitorId: string): void {
    this.#typing.forget(visitorId);
  }

  close(): void {
    this.#typing.close();
  }

  /**
   * One PUBLISH, no script: typing is not kept and checks nothing. On a Cluster it is an
   * SPUBLISH to the partner's side channel, on the chat's slot, so it reaches the partner in the
   * order it was said among the chat's messages (the same node, over the same connection; a bare
   * PUBLISH could cross the Cluster's bus from any node and overtake them).
   */
  async #tellTyping(visitorId: string, isTyping: boolean): Promise<void> {
    const chat = await this.chatOf(visitorId);
    if (!chat) return;
    const payload = typingPayload(JSON.stringify({ type: "typing", chatId: chat.id, isTyping }));
    if (this.chat.cluster) {
      const [a, b] = this.chat.keys.sides(chat.id) as [string, string];
      await this.chat.redis.spublish(chat.side === "a" ? b : a, payload);
    } else {
      await this.chat.redis.publish(this.chat.keys.visitorChannel(chat.partner), payload);
    }
  }

  /**
   * Keeps a message in its chat's stream and announces it to the partner in one transaction, no
   * script: the append finds the stream only under the name it has while the chat runs with
   * nobody muted (lua/chat/send.ts), so that is the check. Answers whether it was kept; when it
   * was not, the announcement went out anyway, and the partner's instance drops it (an ended
   * chat, or checks on: see wire.ts), and the send script decides. Messages go as ioredis's
   * auto-pipeline sends commands: those of an event loop's turn (every frame its sockets read)
   * in one pipeline of such transactions, written once at the turn's end (setImmediate, as
   * ioredis defers its own), and while one is on its way, the next ones wait to go together
   * once it is answered: a write to Redis is among the dearest steps of a message on an
   * instance (scripts/bench/NOTES.md, "A turn's messages in one write").
   */
  #keepAndAnnounce(chat: ChatRef, messageId: string, event: string): Promise<boolean> {
    const [, stream] = this.chat.keys.chat(chat.id) as [string, string, string];
    return new Promise<boolean>((resolve, reject) => {
      if (this.#waiting.length === 0 && !this.#sending) setImmediate(() => this.#sendWaiting());
      this.#waiting.push({
        stream,
        messageId,
        side: chat.side === "a" ? "b" : "a",
        event,
        channel: this.chat.keys.visitorChannel(chat.partner),
        announced: announcedPayload(chat.id, messageId, event),
        resolve,
        reject,
      });
    });
  }

  #sendWaiting(): void {
    const turn = this.#waiting;
    if (this.#sending || turn.length === 0) return;
    this.#waiting = [];
    this.#sending = true;
    const pipeline = this.chat.redis.pipeline();
    for (const t of turn) {
      // MULTI and EXEC as commands of the pipeline: the transaction inline, as ioredis has them.
      pipeline
        .call("multi")
        .xadd(
          t.stream,
          "NOMKSTREAM",
          "MAXLEN",
          "~",
          this.chat.kept,
          "*",
          "m",
          t.messageId,
          t.side,
          t.event,
        )
        .publish(t.channel, t.announced)
        .call("exec");
    }
    pipeline
      .exec()
      .then(
        (results) => {
          for (const [i, t] of turn.entries()) {
            // Each transaction answers MULTI, two QUEUED and EXEC: [the append's id, receivers].
            const [error, replies] = results?.[i * 4 + 3] ?? [new Error("no answer")];
            if (error) t.reject(error);
            else t.resolve(Array.isArray(replies) && typeof replies[0] === "string");
          }
        },
        (error: unknown) => {
          for (const t of turn) t.reject(error);
        },
      )
      .finally(() => {
        this.#sending = false;
        this.#sendWaiting();
      });
  }
}
