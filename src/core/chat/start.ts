import type { DB } from "../../../db/schema.ts";
import type { ChatStatus } from "../../common/chat.ts";
import type { MatchPreferencesInput } from "../../common/chat-preferences.ts";
import { DomainError } from "../errors.ts";
import type { RateLimiter, RateRule } from "../limits/rate-limiter.ts";
import type { Requester, VisitorKeys } from "../requester.ts";
import { type AgeStanding, ageStanding, answerAgeGate, requireAge } from "../safety/ages.ts";
import type { ChatBans, Sightings } from "./bans.ts";
import type { ChatBroker } from "./broker.ts";
import { matchPreferencesOf } from "./preferences.ts";

const MINUTE = 60 * 1000;
/** Presses of start: one visitor, and one address with all its visitors (and cookies). */
export const START_RATES = {
  perVisitor: { limit: 30, windowMs: MINUTE },
  perAddress: { limit: 60, windowMs: MINUTE },
} as const satisfies Record<string, RateRule>;

/** Banned visitors cannot subscribe, start or send; the error says how long is left. */
export async function refuseBanned(bans: ChatBans, who: VisitorKeys, now: number): Promise<void> {
  const until = await bans.until(who.visitorId, who.ipKey);
  if (until !== null) {
    throw new DomainError(
      "CHAT_BANNED",
      "user is banned from chat",
      Math.ceil((until - now) / 1000),
    );
  }
}

/**
 * Joins the pool (or the chat already running), within the limits, asking for what the visitor
 * named (see preferences.ts); notes the address seen.
 */
export async function startChat(
  db: DB,
  deps: { broker: ChatBroker; bans: ChatBans; limiter: RateLimiter; sightings: Sightings },
  who: Requester,
  asked: MatchPreferencesInput | undefined,
  now: number,
): Promise<ChatStatus> {
  await refuseBanned(deps.bans, who, now);
  await requireAge(db, who.visitorId, "chat", now, true);
  await deps.limiter.take([
    { key: `chat-start:v:${who.visitorId}`, rule: START_RATES.perVisitor },
    { key: `chat-start:ip:${who.ipKey}`, rule: START_RATES.perAddress },
  ]);
  // After the limits: a refused interest keeps its slot, so refusals cannot probe the contact
  // filter and word lists faster than starts go. It changes nothing else.
  const preferences = matchPreferencesOf(asked);
  deps.sightings.note(who.visitorId, who.ipKey, now);
  // A ban may have landed while the age and the limits were looked up.
  await refuseBanned(deps.bans, who, now);
  const country = who.country();
  const status = await deps.broker.start({
    visitorId: who.visitorId,
    ipKey: who.ipKey,
    country: { code: country.code, name: country.name },
    ...(preferences ? { preferences } : {}),
  });
  // An "under 18" answered while this start was under way (in another tab, or on another
  // instance) ended the search or chat there was before the start joined: looked at again now,
  // from memory unless news of the answer came meanwhile.
  if ((await ageStanding(db, who.visitorId, "chat", now)) === "refused") {
    await deps.broker.end(who.visitorId);
    throw new DomainError("AGE_REFUSED", "the chat age gate refused");
  }
  return status;
}

/**
 * A waiting visitor takes anyone now. Each search can be widened once, so widening is held to
 * the limits of starting.
 */
export async function widenSearch(
  deps: { broker: ChatBroker; limiter: RateLimiter },
  who: VisitorKeys,
): Promise<void> {
  await deps.limiter.take([
    { key: `chat-widen:v:${who.visitorId}`, rule: START_RATES.perVisitor },
    { key: `chat-widen:ip:${who.ipKey}`, rule: START_RATES.perAddress },
  ]);
  await deps.broker.widen(who.visitorId);
}

/**
 * Records the chat's safety-gate answer. Under 18 ends a chat or search in progress (the partner
 * hears only that they left), and refuses the next start.
 */
export async function answerChatAge(
  db: DB,
  broker: ChatBroker,
  visitorId: string,
  adult: boolean,
  now: number,
): Promise<AgeStanding> {
  const standing = await answerAgeGate(db, visitorId, "chat", adult, now);
  if (standing === "refused") await broker.end(visitorId);
  return standing;
}
