import type { ChatEvent } from "../../../common/chat.ts";
import { type Country, UNKNOWN_COUNTRY } from "../../../common/country.ts";

/**
 * The chat's wire format on Redis, written and read here only (the Lua scripts write the same
 * shapes: lua/chat/, lua/pool/).
 *
 * An event's id, which a reconnecting stream resumes from:
 *   "-"                              outside any chat: names no place to resume from
 *   "<chat>.<stream id>"             kept in the chat's stream under that id
 *   "<chat>.<stream id>+<own id>"    a message a transaction kept after that stream id, whose
 *                                    own stream id its announcement could not carry
 *
 * What a channel carries (a visitor's own, or on a Cluster a chat side's), fields apart by tabs:
 *   <id> <event JSON>                                        an event
 *   <id> <matched JSON> <side> <partner> <country JSON> <0|1>
 *                                                            "matched", with what the instance
 *                                                            keeps of the chat (see MatchedKeep),
 *                                                            and whether its checks start on
 *   <chat>+<own id> <message JSON>                           a message a transaction announced
 *   ~ <typing JSON>                                          typing: not kept
 *   ! <chat> <count> <0|1>                                   a chat's checks went on or off (see
 *                                                            Checks)
 */
export const OUTSIDE = "-";
const UNKEPT = "+";
const TYPING = "~";
const CHECKS = "!";

/** A chat id, as the broker makes them (12 characters of base64url). */
export const CHAT_ID = /^[A-Za-z0-9_-]{12}$/;
const STREAM_ID = /^\d{1,16}-\d{1,10}$/;

/**
 * Whether a chat's messages announced by a transaction were kept: its stream had the name the
 * transaction appends to (checks off) or not (on: a side is muted, and each message goes through
 * the send script, which announces it again with its stream id when it passes). `count` orders
 * the changes.
 */
export interface Checks {
  checks: true;
  chat: string;
  count: number;
  on: boolean;
}

/** What an instance keeps of a chat it hears "matched" for. */
export interface MatchedKeep {
  side: "a" | "b";
  /** The partner's visitor id. */
  partner: string;
  /** The visitor's own country, which their messages carry. */
  country: Country;
  /** The chat's checks start on (a side was muted when it opened). */
  checksOn: boolean;
}

/** A channel's payload, read. */
export type Payload =
  | Checks
  | { checks?: undefined; id: string; event: ChatEvent; keep?: MatchedKeep; typing?: true };

export function parsePayload(payload: string): Payload {
  const fields = payload.split("\t");
  const [head = "", second = ""] = fields;
  if (head === CHECKS) {
    const count = Number(fields[2]);
    if (!Number.isSafeInteger(count)) throw new Error("a checks without its count");
    return { checks: true, chat: second, count, on: fields[3] === "1" };
  }
  const event = JSON.parse(second) as ChatEvent;
  if (head === TYPING) return { id: OUTSIDE, event, typing: true };
  if (fields.length > 2 && event.type === "matched") {
    const [, , side, partner = "", country, checksOn] = fields;
    return {
      id: head,
      event,
      keep: {
        side: side === "b" ? "b" : "a",
        partner,
        country: country ? (JSON.parse(country) as Country) : UNKNOWN_COUNTRY,
        checksOn: checksOn === "1",
      },
    };
  }
  return { id: head, event };
}

export function checksPayload(checks: Checks): string {
  return [CHECKS, checks.chat, checks.count, checks.on ? "1" : "0"].join("\t");
}

/** An event on a channel; `keep` with "matched" only. */
export function eventPayload(id: string, eventJson: string, keep?: MatchedKeep): string {
  if (!keep) return `${id}\t${eventJson}`;
  const { side, partner, country, checksOn } = keep;
  return [id, eventJson, side, partner, JSON.stringify(country), checksOn ? "1" : "0"].join("\t");
}

/**
 * What an instance keeps of a chat it hears "matched" for, as the chat's open script is given
 * it: the script adds whether the checks start on, and sends it after the event.
 */
export function keptOfMatched(keep: Omit<MatchedKeep, "checksOn">): string {
  return [keep.side, keep.partner, JSON.stringify(keep.country)].join("\t");
}

/** What a transaction announces for a message it keeps (see UNKEPT). */
export function announcedPayload(chatId: string, messageId: string, eventJson: string): string {
  return `${unkeptId(chatId, messageId)}\t${eventJson}`;
}

export function typingPayload(eventJson: string): string {
  return `${TYPING}\t${eventJson}`;
}

/** The "<chat>+<own id>" of a message a transaction announced (its id starts with the chat's). */
export function unkeptId(chatId: string, messageId: string): string {
  return `${chatId}${UNKEPT}${messageId.slice(chatId.length)}`;
}

/** The chat of a message a transaction announced, or undefined for any other id. */
export function unkeptChat(id: string): string | undefined {
  const at = id.indexOf(UNKEPT);
  return at > 0 && !id.includes(".") ? id.slice(0, at) : undefined;
}

/**
 * The id a stream gives a message a transaction announced: after the chat's last stream id it
 * delivered, so a resume reads after that id and skips through the message.
 */
export function resumableUnkept(id: string, position: string | undefined): string {
  const at = id.indexOf(UNKEPT);
  return `${id.slice(0, at)}.${position ?? "0-0"}${id.slice(at)}`;
}

/** A kept event's chat and stream id, or undefined for an id outside any chat. */
export function keptPlace(id: string): { chat: string; at: string } | undefined {
  const dot = id.indexOf(".");
  if (dot <= 0) return undefined;
  return { chat: id.slice(0, dot), at: id.slice(dot + 1) };
}

/** Whether stream id `a` ("<ms>-<seq>") comes after `b`. */
export function after(a: string, b: string): boolean {
  const [am = 0, as = 0] = a.split("-").map(Number);
  const [bm = 0, bs = 0] = b.split("-").map(Number);
  return am > bm || (am === bm && as > bs);
}

/** Where a stream asks to resume from: a place in a chat, "outside" any chat, or nowhere known. */
export function parseResume(
  lastEventId: string | null | undefined,
): { chat: string; at: string; through?: string } | "outside" | undefined {
  if (!lastEventId) return undefined;
  if (lastEventId === OUTSIDE) return "outside";
  const place = keptPlace(lastEventId);
  if (!place || !CHAT_ID.test(place.chat)) return undefined;
  const unkept = place.at.indexOf(UNKEPT);
  const at = unkept === -1 ? place.at : place.at.slice(0, unkept);
  if (!STREAM_ID.test(at)) return undefined;
  if (unkept === -1) return { chat: place.chat, at };
  const own = place.at.slice(unkept + 1);
  return CHAT_ID.test(own) ? { chat: place.chat, at, through: `${place.chat}${own}` } : undefined;
}
