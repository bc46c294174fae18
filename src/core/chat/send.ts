import type { DB } from "../../../db/schema.ts";
import type { ChatMessage } from "../../common/chat.ts";
import type { Country } from "../../common/country.ts";
import { DomainError, RateLimitedError } from "../errors.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import { hasContactDetails, repeatKey } from "../moderation/contacts.ts";
import {
  REPEAT_MIN_LENGTH,
  type RepeatMemory,
  refuseRepeats,
  type Sender,
} from "../moderation/repeats.ts";
import { banAutomatically, type ChatBans } from "./bans.ts";
import type { ChatBroker } from "./broker.ts";
import type { ChatFloodLimits } from "./flood.ts";

const HOUR = 60 * 60 * 1000;
/** Contact details sent into this many different chats within an hour cool the sender down. */
export const LINK_CHATS_TO_COOL_DOWN = 3;

/** What the send path needs: the broker, the bans, and the per-process gates. */
export interface SendDeps {
  broker: ChatBroker;
  bans: ChatBans;
  flood: ChatFloodLimits;
  repeats: RepeatMemory;
  limiter: RateLimiter;
}

/** True the first time within the hour that `key` is seen; false after. */
async function firstTime(limiter: RateLimiter, key: string): Promise<boolean> {
  try {
    await limiter.take([{ key, rule: { limit: 1, windowMs: HOUR } }]);
    return true;
  } catch (error) {
    if (error instanceof RateLimitedError) return false;
    throw error;
  }
}

/**
 * Sends a chat message through the rules cheapest first: the flood limit (nothing looked up or
 * kept for a message it refuses), then bans and mutes, then the rules that remember (the same
 * text to many partners, contact details spread over several chats, which cools the sender
 * down with a ban), then the broker. A message with contact details is delivered marked, so
 * the partner sees a warning and no link. (The socket's frame and call caps, and the length,
 * are checked before this is called.)
 */
export async function sendChatMessage(
  db: DB,
  deps: SendDeps,
  sender: Sender & { country?: Country },
  content: string,
  now: number,
): Promise<ChatMessage> {
  if (!deps.flood.allow(sender.visitorId, sender.ipKey)) throw new RateLimitedError(1);
  // The sender's country tells short national phone numbers apart from other numbers.
  const contact = hasContactDetails(content, sender.country?.code ?? undefined);
  // Most messages are short and plain: no rule remembers them, and the broker itself refuses a
  // banned sender and keeps a muted one's message from the partner.
  const key = repeatKey(content);
  if (!contact && key.length < REPEAT_MIN_LENGTH) {
    return deps.broker.send(sender.visitorId, content);
  }
  // Each usually known on this instance without asking Redis.
  const [chatId, bannedUntil, mutedUntil] = await Promise.all([
    deps.broker.chatOf(sender.visitorId),
    deps.bans.until(sender.visitorId, sender.ipKey),
    deps.broker.mutedUntil(sender.visitorId, sender.ipKey),
  ]);
  if (bannedUntil !== null) {
    throw new DomainError(
      "CHAT_BANNED",
      "user is banned from chat",
      secondsUntil(bannedUntil, now),
    );
  }
  if (chatId === undefined) throw new DomainError("NOT_FOUND", "not in a chat");
  // A muted sender's messages reach no one already: nothing of them is remembered.
  if (mutedUntil === null) {
    await refuseRepeats({ ...deps, mutes: deps.broker }, sender, content, chatId, now, key);
  }
  const message = await deps.broker.send(sender.visitorId, content, { contact });
  if (
    contact &&
    mutedUntil === null &&
    (await firstTime(deps.limiter, `link-chat:${sender.visitorId}:${chatId}`))
  ) {
    try {
      await deps.limiter.take([
        {
          key: `link-chats:${sender.visitorId}`,
          rule: { limit: LINK_CHATS_TO_COOL_DOWN - 1, windowMs: HOUR },
        },
      ]);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      const banned = await banAutomatically(db, deps.bans, sender, "escalate", now);
      if (banned) await deps.broker.ban(banned.bans);
    }
  }
  return message;
}

function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}
