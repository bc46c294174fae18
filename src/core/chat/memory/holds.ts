import type { KeyBan } from "../bans.ts";
import type { ChatVisitor } from "../broker.ts";
import { holdKeys, latestHold } from "../holds.ts";
import type { MemoryChat } from "./state.ts";

/** What keeps visitors apart or silent: blocks, mutes, and the bans that end their chats. */
export class Holds {
  constructor(
    private readonly chat: MemoryChat,
    /** Ends the visitor's wait or chat (see Relay). */
    private readonly end: (visitorId: string) => void,
  ) {}

  /** Whether either of the two blocked the other (by visitor, or by the other's address). */
  blocked(a: ChatVisitor, b: ChatVisitor): boolean {
    const now = this.chat.now();
    const holds = (key: string) => (this.chat.blocks.get(key) ?? 0) > now;
    return (
      holds(this.chat.pairKey(a.visitorId, b.visitorId)) ||
      holds(`${a.visitorId}|ip:${b.ipKey}`) ||
      holds(`${b.visitorId}|ip:${a.ipKey}`)
    );
  }

  ban(bans: readonly KeyBan[]): void {
    const covered = new Map<string, number>();
    const cover = (visitorId: string, until: number) =>
      covered.set(visitorId, Math.max(covered.get(visitorId) ?? 0, until));
    for (const { key, until } of bans) {
      const id = key.slice(key.indexOf(":") + 1);
      if (key.startsWith("visitor:")) cover(id, until);
      else
        for (const [visitorId, p] of this.chat.presence)
          if (p.visitor?.ipKey === id) cover(visitorId, until);
    }
    for (const [visitorId, until] of covered) {
      this.end(visitorId);
      this.chat.presence.get(visitorId)?.mailbox.push({ type: "banned", until });
    }
  }

  async block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    const chat = this.chat.currentChat(visitorId);
    if (!chat) return undefined;
    const [me, partner] = chat.a.visitorId === visitorId ? [chat.a, chat.b] : [chat.b, chat.a];
    await this.rememberBlock(me.visitorId, partner, until);
    this.end(visitorId);
    return partner;
  }

  async rememberBlock(
    blocker: string,
    blocked: { visitorId: string; ipKey: string },
    until: number,
  ): Promise<void> {
    this.chat.blocks.set(this.chat.pairKey(blocker, blocked.visitorId), until);
    this.chat.blocks.set(`${blocker}|ip:${blocked.ipKey}`, until);
  }

  mute(visitorId: string, ipKey: string, until: number): void {
    for (const key of holdKeys(visitorId, ipKey)) {
      this.chat.muted.set(key, Math.max(this.chat.muted.get(key) ?? 0, until));
    }
    this.chat.presence.get(visitorId)?.mailbox.push({ type: "muted", until });
  }

  mutedUntil(visitorId: string, ipKey: string): number | null {
    if (this.chat.muted.size === 0) return null;
    return latestHold(this.chat.muted, holdKeys(visitorId, ipKey), this.chat.now());
  }
}
