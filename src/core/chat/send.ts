import type { ChatMessage } from "../../common/chat.ts";
import { DomainError, RateLimitedError } from "../errors.ts";
import type { RateLimiter, RateRule } from "../limits/rate-limiter.ts";
import { hasContactDetails, repeatKey } from "../moderation/contacts.ts";
import type { ChatBans } from "./bans.ts";
import type { ChatBroker } from "./broker.ts";
import type { ChatRequester } from "./start.ts";

const HOUR = 60 * 60 * 1000;

/** The same text (see repeatKey) to this many different partners an hour; more is refused. */
export const REPEATS_PER_HOUR: RateRule = { limit: 3, windowMs: HOUR };
/** Shorter texts ("hi", "hello there") are everyday greetings, not spam. */
export const REPEAT_MIN_LENGTH = 10;
/** Refused as spam this often within an hour (bottles or chat), a visitor is muted for an hour. */
export const SPAM_REFUSALS_TO_MUTE = 2;
export const MUTE_MS = HOUR;
/** Contact details sent into this many different chats within an hour cool the sender down. */
export const LINK_CHATS_TO_COOL_DOWN = 3;

const hashOf = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("base64url");

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
 * Refuses a text sent too often (its normalised form to more than REPEATS_PER_HOUR places):
 * `place` names where this copy goes (a chat, or a bottle throw). A visitor refused so
 * SPAM_REFUSALS_TO_MUTE times within the hour is muted for an hour.
 */
export async function refuseRepeats(
  deps: { limiter: RateLimiter; broker: ChatBroker },
  sender: ChatRequester,
  text: string,
  place: string | undefined,
  now: number,
): Promise<void> {
  const key = repeatKey(text);
  if (key.length < REPEAT_MIN_LENGTH) return;
  const hash = hashOf(key);
  if (
    place &&
    !(await firstTime(deps.limiter, `repeat-place:${sender.visitorId}:${hash}:${place}`))
  ) {
    return;
  }
  try {
    await deps.limiter.take([
      { key: `repeat:v:${sender.visitorId}:${hash}`, rule: REPEATS_PER_HOUR },
      { key: `repeat:ip:${sender.ipKey}:${hash}`, rule: REPEATS_PER_HOUR },
    ]);
  } catch (error) {
    if (!(error instanceof RateLimitedError)) throw error;
    try {
      await deps.limiter.take([
        {
          key: `spam-refusals:${sender.visitorId}`,
          rule: { limit: SPAM_REFUSALS_TO_MUTE - 1, windowMs: HOUR },
        },
      ]);
    } catch (again) {
      if (!(again instanceof RateLimitedError)) throw again;
      await deps.broker.mute(sender.visitorId, now + MUTE_MS);
    }
    throw new DomainError("SPAM_REPEATED", "the same text too often", error.retryAfterSeconds);
  }
}

/**
 * Sends a chat message after the rules a script would break: bans (the broker's), the same text
 * to many partners, and contact details spread over several chats (which cools the sender down with an
 * escalating ban). A message with contact details is delivered marked, so the partner sees a
 * warning and no link.
 */
export async function sendChatMessage(
  deps: { broker: ChatBroker; bans: ChatBans; limiter: RateLimiter },
  sender: ChatRequester,
  content: string,
  now: number,
): Promise<ChatMessage> {
  // The broker refuses a banned sender itself; the chat is asked for only when a rule needs it
  // (most messages are short and plain: one step to the broker).
  const contact = hasContactDetails(content);
  if (!contact && repeatKey(content).length < REPEAT_MIN_LENGTH) {
    return deps.broker.send(sender.visitorId, content);
  }
  const status = await deps.broker.status(sender.visitorId);
  if (status.state !== "chatting") throw new DomainError("NOT_FOUND", "not in a chat");
  await refuseRepeats(deps, sender, content, status.chatId, now);
  const message = await deps.broker.send(sender.visitorId, content, { contact });
  if (
    contact &&
    (await firstTime(deps.limiter, `link-chat:${sender.visitorId}:${status.chatId}`))
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
      const { keys, until } = await deps.bans.ban(sender.visitorId, sender.ipKey);
      await deps.broker.ban(keys, until);
    }
  }
  return message;
}
