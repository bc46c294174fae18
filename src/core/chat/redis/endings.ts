import type { ChatEvent } from "../../../common/chat.ts";
import type { VisitorKeys } from "../../requester.ts";
import type { KeyBan } from "../bans.ts";
import type { ChatVisitor, HeldMessage } from "../broker.ts";
import type { RedisChat } from "./engine.ts";
import { countryOf, type PoolCountry } from "./local.ts";
import { CHAT_ID, OUTSIDE } from "./wire.ts";

/** A chat the pool has let go of, to be ended on its own slot. */
export interface Ending {
  chat: string;
  /** The visitor who left (or was banned, or gone), their side, and their partner. */
  visitor: string;
  side: "a" | "b";
  pt: string;
  until?: number;
}

/** What each side of an ending chat hears (JSON events, "" for nothing). */
type Told = (ending: Ending) => { leaver: string; partner: string; bannedSide?: string };

/**
 * How chats end: the pool lets go of the chat in one step (leave, block, ban, a sweep), then the
 * chat ends on its own slot, where its last events are kept for a visitor who resumes and for
 * reports (held messages).
 */
export class Endings {
  constructor(
    private readonly chat: RedisChat,
    /** Forgets what this instance keeps of a visitor's typing. */
    private readonly forgetTyping: (visitorId: string) => void,
  ) {}

  async end(visitorId: string, options?: { ifGone?: boolean }): Promise<void> {
    const { chat } = await this.chat.poolRun<{ chat?: Ending }>("leave", [
      visitorId,
      options?.ifGone ? "1" : "",
    ]);
    this.#left(visitorId, { type: "idle" });
    if (chat) await this.#finishLeaving([chat]);
  }

  async block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    const answer = await this.chat.poolRun<{
      chat?: Ending;
      blocked?: { id: string; ip: string; country: PoolCountry };
    }>("block", [visitorId, until]);
    this.#left(visitorId, { type: "idle" });
    if (answer.chat) await this.#finishLeaving([answer.chat]);
    if (!answer.blocked) return undefined;
    return {
      visitorId: answer.blocked.id,
      ipKey: answer.blocked.ip,
      country: countryOf(answer.blocked.country),
    };
  }

  async rememberBlock(blocker: string, blocked: VisitorKeys, until: number): Promise<void> {
    await this.chat.poolRun("remember", [blocker, blocked.visitorId, blocked.ipKey, until]);
  }

  async ban(bans: readonly KeyBan[]): Promise<void> {
    if (bans.length === 0) return;
    const { chats } = await this.chat.poolRun<{ chats: Ending[] | Record<string, never> }>(
      "ban",
      bans.flatMap(({ key, until }) => [key, until]),
    );
    const endings = Array.isArray(chats) ? chats : [];
    for (const ending of endings) {
      this.#left(ending.visitor, { type: "banned", until: ending.until ?? 0 });
    }
    await this.finish(endings, (ending) => ({
      leaver: JSON.stringify({ type: "banned", until: ending.until }),
      partner: JSON.stringify({ type: "partner-left", chatId: ending.chat }),
      bannedSide: ending.side,
    }));
  }

  /** A message the visitor's partner sent in their current or a recently ended chat. */
  async partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined> {
    const chatId = messageId.slice(0, 12);
    if (!CHAT_ID.test(chatId) || messageId.length > 64) return undefined;
    const answer = (await this.chat.chatRun("held", chatId, [
      visitorId,
      messageId,
      this.chat.kept,
    ])) as [string, string, string] | null;
    if (!answer) return undefined;
    const event = JSON.parse(answer[0]) as Extract<ChatEvent, { type: "message" }>;
    return {
      id: messageId,
      senderVisitorId: answer[1],
      senderIpKey: answer[2],
      content: event.message.content,
      timestamp: event.message.timestamp,
    };
  }

  /** Ends on their slots the chats the pool let go of; `told` says what each side hears. */
  async finish(endings: readonly Ending[], told: Told): Promise<void> {
    await Promise.all(
      endings.map((ending) => {
        const { leaver, partner, bannedSide } = told(ending);
        const leaverIsA = ending.side === "a";
        return this.chat.chatRun("finish", ending.chat, [
          leaverIsA ? ending.visitor : ending.pt,
          leaverIsA ? ending.pt : ending.visitor,
          this.chat.keepEndedMs,
          this.chat.kept,
          leaverIsA ? leaver : partner,
          leaverIsA ? partner : leaver,
          bannedSide ?? "",
        ]);
      }),
    );
  }

  /**
   * A visitor who left their chat or the pool: their streams here hear it now; the chat's own
   * word follows (and is heard once: LocalStream).
   */
  #left(visitorId: string, told: ChatEvent): void {
    this.forgetTyping(visitorId);
    const local = this.chat.visitors.get(visitorId);
    if (local && (local.chat || local.state !== "idle")) local.hear({ id: OUTSIDE, event: told });
  }

  /** The leaver hears "idle", the partner that they left. */
  #finishLeaving(endings: Ending[]): Promise<void> {
    return this.finish(endings, (ending) => ({
      leaver: JSON.stringify({ type: "idle" }),
      partner: JSON.stringify({ type: "partner-left", chatId: ending.chat }),
    }));
  }
}
