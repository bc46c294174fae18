import type { ChatStatus } from "../../../common/chat.ts";
import { matchStages } from "../../../common/chat-preferences.ts";
import type { TimerHandle } from "../../clock.ts";
import { DomainError } from "../../errors.ts";
import type { ChatVisitor } from "../broker.ts";
import { type MatchPreferences, sharedGround } from "../preferences.ts";
import type { RedisChat } from "./engine.ts";
import {
  countryOf,
  type LocalVisitor,
  type PoolCountry,
  type PoolStatus,
  publicStatus,
} from "./local.ts";
import type { SideChannels } from "./sides.ts";
import { keptOfMatched, OUTSIDE } from "./wire.ts";

/** One side of a pairing, as the pool answers it. */
export interface PairSide {
  id: string;
  ip: string;
  country: PoolCountry;
  mute: string;
  /** What they asked of a match (JSON), when they asked anything. */
  prefs?: string;
  /** The instances holding their streams (told for the visitor who paired, b). */
  inst?: string;
}

/**
 * Where a visitor hears "matched" (the chat's open script): "" on their own channel only; on a
 * Cluster, "both" there and on their side's channel, which an instance subscribed before the
 * chat opened (so it comes ahead of what follows there), or "side" on that one only (no other
 * instance holds a stream of theirs).
 */
type Where = "" | "both" | "side";

/** Two visitors the pool paired, in chat `chat`: a waited, b pressed start (or widened). */
export interface Paired {
  chat: string;
  a: PairSide;
  b: PairSide;
  /** Where a hears "matched" (see Where): absent for their own channel only. */
  ready?: Exclude<Where, "">;
}

/**
 * Pairing on Redis: the pool's scripts pair the longest-waiting compatible visitor in one atomic
 * step (lua/pool/, by the rule of preferences.ts); the chat then opens on its own slot,
 * and both hear "matched" from its stream.
 */
export class Pairing {
  /**
   * Looks again at a waiting visitor once their interest window and fallback delay end and once
   * a recent partner may be met again.
   */
  readonly #rematch = new Map<string, TimerHandle[]>();

  constructor(
    private readonly chat: RedisChat,
    private readonly sides: SideChannels,
  ) {}

  async start(visitor: ChatVisitor): Promise<ChatStatus> {
    const { visitorId, ipKey, country, preferences } = visitor;
    // Languages and interest keys between separators, so the pool script compares them with a
    // plain find; what they asked as JSON only to tell two paired visitors what they share.
    const languages = preferences?.languages.length ? ` ${preferences.languages.join(" ")} ` : "";
    const interests = preferences?.interests.length
      ? `\n${preferences.interests.map((i) => i.key).join("\n")}\n`
      : "";
    const stages = matchStages(preferences);
    const fallbackMs = stages.anyone;
    const json = preferences ? JSON.stringify(preferences) : "";
    const local = this.chat.visitors.get(visitorId);
    const reserved = local?.reserved;
    const answer = await this.chat.poolRun<{
      banned?: number;
      status?: PoolStatus;
      paired?: Paired;
      spent?: boolean;
    }>("start", [
      visitorId,
      ipKey,
      country.code ?? "",
      country.name,
      this.chat.newChatId(),
      fallbackMs,
      languages,
      interests,
      json,
      reserved?.ready && this.chat.sidesTrusted ? reserved.chat : "",
    ]);
    // A chat in that id opened before this instance heard of it: another one is made ready.
    if (answer.spent && local && reserved && local.reserved === reserved) this.sides.renew(local);
    if (local) {
      local.ip = ipKey;
      local.country = country;
      local.asked = preferences
        ? [fallbackMs > 0 ? this.chat.time.now() + fallbackMs : 0, languages, interests, json]
        : undefined;
    }
    if (answer.banned) {
      throw new DomainError(
        "CHAT_BANNED",
        "user is banned from chat",
        Math.max(1, Math.ceil((answer.banned - this.chat.time.now()) / 1000)),
      );
    }
    if (answer.paired) {
      await this.openHere(local, answer.paired);
      return {
        state: "chatting",
        chatId: answer.paired.chat,
        partner: countryOf(answer.paired.a.country),
      };
    }
    const status = answer.status ?? { state: "waiting" };
    // Known here at once, as the pool says it on their channel a moment later (heard once),
    // unless newer news came first.
    if (local?.attached && !local.chat && local.state === "idle" && status.state === "waiting") {
      local.hear({ id: OUTSIDE, event: { type: "waiting" } });
    }
    if (status.state === "waiting") {
      this.#matchLater(visitorId, [stages.language ?? 0, fallbackMs]);
    }
    return publicStatus(status);
  }

  async widen(visitorId: string): Promise<void> {
    const asked = this.chat.visitors.get(visitorId)?.asked;
    if (asked) asked[0] = 0;
    const answer = await this.chat.poolRun<{ paired?: Paired }>("widen", [
      visitorId,
      this.chat.newChatId(),
    ]);
    if (answer.paired) await this.openHere(this.chat.visitors.get(visitorId), answer.paired);
  }

  /** Looks at the pool again for a waiting visitor; opens the chat if they were paired. */
  async lookAgain(visitorId: string): Promise<void> {
    const answer = await this.chat.poolRun<{ paired?: Paired }>("match", [
      visitorId,
      this.chat.newChatId(),
    ]);
    if (answer.paired) await this.#open(answer.paired);
  }

  /**
   * Opens a pairing made here by this instance's visitor (side b). On a Cluster their side's
   * channel is subscribed before the chat opens, so nothing said to them can come before it and
   * nothing has to be read back (if the subscription fails, the chat is followed as any other).
   */
  async openHere(local: LocalVisitor | undefined, paired: Paired): Promise<void> {
    const here = local?.attached ? local : undefined;
    let whereB: Where = "";
    if (here && this.chat.cluster && (await this.sides.openedHere(here, paired.chat))) {
      // Their "matched" goes on that channel, ahead of what the chat says there next.
      whereB = paired.b.inst === this.chat.instance && this.chat.sidesTrusted ? "side" : "both";
    }
    await this.#open(paired, whereB);
    if (here) {
      // Kept at once: their call's answer may reach them before their "matched" reaches here.
      const { a, b } = paired;
      here.settle("chatting", {
        id: paired.chat,
        side: "b",
        partner: a.id,
        partnerCountry: countryOf(a.country),
        self: countryOf(b.country),
      });
    }
  }

  /** Forgets the visitor's timers (they leave, or this instance closes). */
  forget(visitorId: string): void {
    for (const timer of this.#rematch.get(visitorId) ?? []) this.chat.time.clearTimeout(timer);
    this.#rematch.delete(visitorId);
  }

  close(): void {
    for (const visitorId of [...this.#rematch.keys()]) this.forget(visitorId);
  }

  /**
   * Opens on its own slot a chat the pool paired: both hear "matched" from its stream, with
   * what they share in their own words when either asked for anything. `whereB`: where b hears
   * it (as `ready` says for a).
   */
  async #open(paired: Paired, whereB: Where = ""): Promise<void> {
    const { chat, a, b } = paired;
    const asked = (side: PairSide) =>
      side.prefs ? { preferences: JSON.parse(side.prefs) as MatchPreferences } : {};
    const matched = (self: PairSide, partner: PairSide) => {
      const shared = sharedGround(asked(self), asked(partner));
      return JSON.stringify({
        type: "matched",
        chatId: chat,
        partner: countryOf(partner.country),
        ...(shared ? { shared } : {}),
      });
    };
    const keep = (side: "a" | "b", self: PairSide, partner: PairSide) =>
      keptOfMatched({ side, partner: partner.id, country: countryOf(self.country) });
    this.forget(a.id);
    this.forget(b.id);
    await this.chat.chatRun("open", chat, [
      a.id,
      b.id,
      a.ip,
      b.ip,
      a.country.code,
      b.country.code,
      a.country.name,
      b.country.name,
      a.mute,
      b.mute,
      this.chat.chatLifeMs,
      this.chat.kept,
      matched(a, b),
      matched(b, a),
      keep("a", a, b),
      keep("b", b, a),
      paired.ready ?? "",
      whereB,
    ]);
  }

  /**
   * When each of the visitor's stages ends (`stageEnds`, ms from now: their interest window and
   * fallback delay) and once a recent partner may be met again, this instance looks at the pool
   * once more (a no-op if they were paired meanwhile).
   */
  #matchLater(visitorId: string, stageEnds: number[]): void {
    if (this.#rematch.has(visitorId)) return;
    const timers: TimerHandle[] = [];
    for (const ms of new Set([...stageEnds, this.chat.meetAgainAfterMs])) {
      if (ms <= 0) continue;
      const timer = this.chat.time.setTimeout(() => {
        timers.splice(timers.indexOf(timer), 1);
        if (timers.length === 0 && this.#rematch.get(visitorId) === timers) {
          this.#rematch.delete(visitorId);
        }
        this.chat.inBackground(
          this.lookAgain(visitorId).catch((error) =>
            this.chat.fail("looking at the pool again", error),
          ),
        );
      }, ms + 50);
      timer.unref();
      timers.push(timer);
    }
    if (timers.length > 0) this.#rematch.set(visitorId, timers);
  }
}
