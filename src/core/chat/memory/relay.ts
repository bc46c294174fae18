import { CHAT_LIMITS, type ChatMessage } from "../../../common/chat.ts";
import { DomainError } from "../../errors.ts";
import type { HeldMessage } from "../broker.ts";
import { RandomIds } from "../ids.ts";
import { TypingWindows } from "../typing.ts";
import type { Chat, MemoryChat } from "./state.ts";

/** What the relay needs of the other parts. */
export interface RelayHooks {
  /** Takes a visitor out of the pool; false when they were not in it (see Pairing). */
  leavePool(visitorId: string): boolean;
  /** Until when the visitor's messages reach no one, or null (see Holds). */
  mutedUntil(visitorId: string, ipKey: string): number | null;
}

/** Chats under way: messages and typing between partners, and how a chat ends. */
export class Relay {
  readonly #messageIds = new RandomIds();
  readonly #typing: TypingWindows;

  constructor(
    private readonly chat: MemoryChat,
    private readonly hooks: RelayHooks,
  ) {
    this.#typing = new TypingWindows(this.chat.time, (visitorId, isTyping) =>
      this.#tellTyping(visitorId, isTyping),
    );
  }

  send(visitorId: string, content: string, options: { contact?: boolean }): ChatMessage {
    const presence = this.chat.presence.get(visitorId);
    const chat = presence?.chatId ? this.chat.chats.get(presence.chatId) : undefined;
    if (!presence || !chat || chat.endedAt) throw new DomainError("NOT_FOUND", "not in a chat");
    const sender = chat.a.visitorId === visitorId ? chat.a : chat.b;
    const receiver = sender === chat.a ? chat.b : chat.a;
    if (this.chat.isBanned(sender.visitorId, sender.ipKey)) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
    const held: HeldMessage = {
      id: this.#messageIds.next(),
      senderVisitorId: visitorId,
      senderIpKey: sender.ipKey,
      content: content.slice(0, CHAT_LIMITS.message),
      timestamp: this.chat.now(),
    };
    chat.messages.push(held);
    if (chat.messages.length > CHAT_LIMITS.buffer) chat.messages.shift();
    const { id, timestamp } = held;
    const mine: ChatMessage = {
      id,
      content: held.content,
      timestamp,
      country: sender.country,
      from: "me",
      ...(options.contact ? { contact: true as const } : {}),
    };
    // A muted sender's message reaches nobody; the sender has it as the answer.
    if (this.hooks.mutedUntil(visitorId, sender.ipKey) === null) {
      this.chat.presence.get(receiver.visitorId)?.mailbox.push({
        type: "message",
        chatId: chat.id,
        message: { ...mine, from: "partner" },
      });
    }
    return mine;
  }

  /** Tells the partner whether the visitor is typing (coalesced: see TypingWindows). */
  async typing(visitorId: string, isTyping: boolean): Promise<void> {
    if (this.chat.currentChat(visitorId)) await this.#typing.note(visitorId, isTyping);
  }

  #tellTyping(visitorId: string, isTyping: boolean): void {
    const chat = this.chat.currentChat(visitorId);
    if (!chat) return;
    const receiver = chat.a.visitorId === visitorId ? chat.b : chat.a;
    this.chat.presence.get(receiver.visitorId)?.mailbox.push({
      type: "typing",
      chatId: chat.id,
      isTyping,
    });
  }

  forgetTyping(visitorId: string): void {
    this.#typing.forget(visitorId);
  }

  /** Ends the visitor's wait, or their chat (their partner hears that they left). */
  end(visitorId: string): void {
    if (this.hooks.leavePool(visitorId)) {
      this.chat.presence.get(visitorId)?.mailbox.push({ type: "idle" });
      return;
    }
    const chat = this.chat.currentChat(visitorId);
    if (!chat) return;
    const partner = chat.a.visitorId === visitorId ? chat.b : chat.a;
    this.#finish(chat, [partner.visitorId]);
    this.chat.presence.get(visitorId)?.mailbox.push({ type: "idle" });
  }

  /** Ends a chat; those named in `tellLeft` hear that their partner left. */
  #finish(chat: Chat, tellLeft: string[]): void {
    chat.endedAt = this.chat.now();
    this.chat.parted.set(this.chat.pairKey(chat.a.visitorId, chat.b.visitorId), chat.endedAt);
    for (const side of [chat.a, chat.b]) {
      const presence = this.chat.presence.get(side.visitorId);
      if (!presence) continue;
      presence.chatId = undefined;
      this.#typing.forget(side.visitorId);
      if (tellLeft.includes(side.visitorId)) {
        presence.mailbox.push({ type: "typing", chatId: chat.id, isTyping: false });
        presence.mailbox.push({ type: "partner-left", chatId: chat.id });
      }
    }
  }

  partnerMessage(visitorId: string, messageId: string): HeldMessage | undefined {
    for (const chat of this.chat.chats.values()) {
      if (chat.a.visitorId !== visitorId && chat.b.visitorId !== visitorId) continue;
      const found = chat.messages.find((m) => m.id === messageId);
      if (found) return found.senderVisitorId === visitorId ? undefined : found;
    }
    return undefined;
  }

  /** Ends every chat (both sides hear it) and every wait. */
  endAll(): void {
    for (const chat of [...this.chat.chats.values()]) {
      if (!chat.endedAt) this.#finish(chat, [chat.a.visitorId, chat.b.visitorId]);
    }
    for (const id of [...this.chat.pool.keys()]) this.end(id);
  }

  close(): void {
    this.#typing.close();
  }
}
