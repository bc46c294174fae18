import type { SharedGround } from "./chat-preferences.ts";
import type { Country } from "./country.ts";
import { z } from "./zod.ts";

export const CHAT_LIMITS = {
  message: 1000,
  /** Messages each chat keeps in memory, so a report carries the server's copy. */
  buffer: 50,
} as const;

/** "childSafety" ends the chat and bans the sender at once, and goes first in the queue. */
export const chatReportReasons = [
  "harassment",
  "inappropriate",
  "spam",
  "scam",
  "childSafety",
  "other",
] as const;
export type ChatReportReason = (typeof chatReportReasons)[number];

/** What became of a chat report: kept, or the same message was already reported for that reason. */
export type ChatReportOutcome = "recorded" | "alreadyReported";

export const sendChatInput = z.object({
  content: z.string().trim().min(1).max(CHAT_LIMITS.message),
});
export const typingInput = z.object({ isTyping: z.boolean() });
export const reportChatInput = z.object({
  messageId: z.string().min(1).max(64),
  reason: z.enum(chatReportReasons),
});
/** Block: the partner of the chat in progress, or, once it has ended, the sender of `messageId`. */
export const blockInput = z.object({ messageId: z.string().min(1).max(64) }).optional();
export const chatEventsInput = z.object({ lastEventId: z.string().max(64).nullish() }).optional();

export interface ChatMessage {
  /** Server-made; the client ignores a second copy of the same id. */
  id: string;
  from: "me" | "partner";
  content: string;
  /** Unix milliseconds, from the server. */
  timestamp: number;
  /** The sender's. */
  country: Country;
  /** It holds a link, e-mail address, phone number or messenger account: shown as plain text with a warning. */
  contact?: true;
}

/** What a visitor's chat stream tells them, in order. */
export type ChatEvent =
  | { type: "status"; status: ChatStatus }
  | { type: "idle" }
  | { type: "waiting" }
  /**
   * `partner`: who is on the other side, only a country, never anything else. `shared`: what
   * the two have in common, when either asked for something (languages, interests).
   */
  | { type: "matched"; chatId: string; partner: Country; shared?: SharedGround }
  | { type: "message"; chatId: string; message: ChatMessage }
  | { type: "typing"; chatId: string; isTyping: boolean }
  | { type: "partner-left"; chatId: string }
  | { type: "banned"; until: number }
  /** The visitor's messages reach no one until then (repeated spam). */
  | { type: "muted"; until: number }
  /**
   * The operator switched chat off: any search or chat has ended (a partner hears "left"), and
   * the stream ends after this.
   */
  | { type: "resting" };

/** The visitor's state when a stream (re)starts, so a reloaded page can draw itself. */
export type ChatStatus =
  | { state: "idle" }
  | { state: "waiting" }
  | { state: "chatting"; chatId: string; partner: Country };
