import { randomBytes } from "node:crypto";
import type { ChatEvent, ChatStatus } from "../../../common/chat.ts";
import { DomainError } from "../../errors.ts";
import type { ChatVisitor } from "../broker.ts";
import { anyoneFrom, bestTierOf, languageFrom, sharedGround, tierOf } from "../preferences.ts";
import type { Holds } from "./holds.ts";
import type { Presences } from "./presence.ts";
import type { Chat, MemoryChat, Waiting } from "./state.ts";

/** The pool: who waits, and the matching rule that pairs them into chats. */
export class Pairing {
  constructor(
    private readonly chat: MemoryChat,
    private readonly presences: Presences,
    private readonly holds: Holds,
  ) {}

  #recentlyParted(a: string, b: string): boolean {
    const at = this.chat.parted.get(this.chat.pairKey(a, b));
    return at !== undefined && this.chat.now() - at < this.chat.skipPartnerMs;
  }

  start(visitor: ChatVisitor): ChatStatus {
    if (this.chat.isBanned(visitor.visitorId, visitor.ipKey)) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
    const presence = this.presences.of(visitor.visitorId);
    presence.visitor = visitor;
    const current = this.chat.status(visitor.visitorId);
    // Another tab of the same visitor shares the one chat; starting again changes nothing.
    if (current.state !== "idle") return current;
    const now = this.chat.now();
    const { preferences, ...withoutPreferences } = visitor;
    // Preferences live in the pool entry only: gone once the visitor is paired or leaves.
    presence.visitor = withoutPreferences;
    this.chat.pool.set(visitor.visitorId, {
      visitor: withoutPreferences,
      since: now,
      ...(preferences ? { preferences } : {}),
      anyoneFrom: anyoneFrom(preferences, now),
    });
    presence.mailbox.push({ type: "waiting" });
    return this.match(visitor.visitorId) ?? { state: "waiting" };
  }

  widen(visitorId: string): void {
    const waiting = this.chat.pool.get(visitorId);
    if (!waiting) return;
    waiting.anyoneFrom = Math.min(waiting.anyoneFrom, this.chat.now());
    this.match(visitorId);
  }

  /** Takes a visitor out of the pool; false when they were not in it. */
  leavePool(visitorId: string): boolean {
    const waiting = this.chat.pool.get(visitorId);
    if (!waiting) return false;
    this.chat.time.clearTimeout(waiting.timer);
    this.chat.pool.delete(visitorId);
    return true;
  }

  /**
   * Pairs a waiting visitor, if they are listening, with another who is listening, allowed to
   * chat, not blocked and not a recent partner, by the matching rule (see tierOf): the
   * longest-waiting of the best tier (a shared interest, then a language once both take one
   * alone, then anyone once both accept anyone). A recent partner is met again only when both
   * have waited `meetAgainAfterMs` and nobody else fits. Until someone fits, the pool is looked at
   * again when the visitor's interest window or fallback delay ends or a recent partner may be
   * met again.
   */
  match(visitorId: string): ChatStatus | undefined {
    const me = this.chat.pool.get(visitorId);
    if (!me || !this.chat.listening(visitorId)) return undefined;
    const now = this.chat.now();
    const waitedEnough = (w: Waiting) => now - w.since >= this.chat.meetAgainAfterMs;
    // The tier is read first: a visitor who could not change the choice costs no more checks,
    // and the first of the best tier this visitor can reach is taken at once.
    const best = bestTierOf(me);
    let language: Waiting | undefined;
    let anyone: Waiting | undefined;
    let again: Waiting | undefined;
    for (const [id, other] of this.chat.pool) {
      if (id === visitorId) continue;
      const tier = tierOf(me, other, now);
      const worth = tier === 2 || (tier === 1 && !language) || (tier === 0 && !language && !anyone);
      if (!worth || !this.chat.listening(id)) continue;
      if (this.chat.isBanned(id, other.visitor.ipKey)) {
        this.leavePool(id);
        continue;
      }
      if (this.holds.blocked(other.visitor, me.visitor)) continue;
      if (this.#recentlyParted(id, visitorId)) {
        if (!again && waitedEnough(me) && waitedEnough(other)) again = other;
      } else if (tier === best) {
        return this.#pair(other, me);
      } else if (tier === 1) {
        language = other;
      } else {
        anyone = other;
      }
    }
    const chosen = language ?? anyone ?? again;
    if (chosen) return this.#pair(chosen, me);
    const next = [languageFrom(me), me.anyoneFrom, me.since + this.chat.meetAgainAfterMs].filter(
      (at) => at > now,
    );
    if (!me.timer && next.length > 0) {
      me.timer = this.chat.time.setTimeout(
        () => {
          me.timer = undefined;
          if (this.chat.pool.get(visitorId) === me) this.match(visitorId);
        },
        Math.min(...next) - now,
      );
      me.timer.unref();
    }
    return undefined;
  }

  #pair(first: Waiting, second: Waiting): ChatStatus {
    this.leavePool(first.visitor.visitorId);
    this.leavePool(second.visitor.visitorId);
    const chat: Chat = {
      id: randomBytes(9).toString("base64url"),
      a: first.visitor,
      b: second.visitor,
      messages: [],
    };
    this.chat.chats.set(chat.id, chat);
    const pa = this.presences.of(first.visitor.visitorId);
    const pb = this.presences.of(second.visitor.visitorId);
    pa.chatId = chat.id;
    pb.chatId = chat.id;
    const matched = (to: Waiting, other: Waiting): ChatEvent => {
      const shared = sharedGround(to, other);
      return {
        type: "matched",
        chatId: chat.id,
        partner: other.visitor.country,
        ...(shared ? { shared } : {}),
      };
    };
    pa.mailbox.push(matched(first, second));
    pb.mailbox.push(matched(second, first));
    return { state: "chatting", chatId: chat.id, partner: first.visitor.country };
  }

  /** Clears every rematch timer (at close). */
  close(): void {
    for (const waiting of this.chat.pool.values()) this.chat.time.clearTimeout(waiting.timer);
  }
}
