import type { DB } from "../../../db/schema.ts";
import type { ChatReportReason } from "../../common/chat.ts";
import { DomainError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import type { Moderator } from "../moderation/moderator.ts";
import { DISCOUNT_MS, DISMISSALS_TO_DISCOUNT } from "../moderation/reporters.ts";
import type { ChatBans } from "./bans.ts";
import type { ChatBroker } from "./broker.ts";

export const CHAT_REPORT_RATE: RateRule = { limit: 20, windowMs: 60 * 60 * 1000 };
/** Reports from this many different visitors within a day ban the reported visitor. */
export const BAN_AFTER_REPORTERS = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Records a report of a partner's message (only a partner's, so every reporter was in a chat
 * with the reported visitor), carrying the server's copy of it (never the client's), with the
 * moderator's verdict. A child-safety report, one unsafe message, or reporters from three
 * visitors in a day (not counting reporters the operator keeps dismissing) ban the sender from
 * chat, for as long as their escalation calls for; the ban ends the chat at once.
 */
export async function reportChatMessage(
  db: DB,
  deps: {
    broker: ChatBroker;
    moderator: Moderator;
    bans: ChatBans;
    limiter: RateLimiter;
  },
  reporter: { visitorId: string; ipKey: string },
  report: { messageId: string; reason: ChatReportReason },
  now: number,
): Promise<{ banned: boolean }> {
  await deps.limiter.take(visitorSlots("chat-report", reporter, CHAT_REPORT_RATE));
  const message = await deps.broker.partnerMessage(reporter.visitorId, report.messageId);
  if (!message) throw new DomainError("NOT_FOUND", "no such message from a partner");
  let safe = true;
  try {
    safe = (await deps.moderator.check(message.content)).safe;
  } catch {
    safe = true;
  }
  await db
    .insertInto("chat_reports")
    .values({
      reported_visitor_id: message.senderVisitorId,
      reported_ip_key: message.senderIpKey,
      reporter_visitor_id: reporter.visitorId,
      message_id: message.id,
      message_content: message.content,
      reason: report.reason,
      context: "chat",
      is_safe: safe ? 1 : 0,
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const { reporters } = await db
    .selectFrom("chat_reports")
    .where("reported_visitor_id", "=", message.senderVisitorId)
    .where("created_at", ">", now - DAY_MS)
    .where("dismissed", "=", 0)
    .where("reporter_visitor_id", "not in", discountedReporters(db, now))
    .select((eb) => eb.fn.count<number>("reporter_visitor_id").distinct().as("reporters"))
    .executeTakeFirstOrThrow();
  const banned =
    report.reason === "childSafety" || !safe || Number(reporters) >= BAN_AFTER_REPORTERS;
  if (banned) {
    const { keys, until } = await deps.bans.ban(message.senderVisitorId, message.senderIpKey);
    await deps.broker.ban(keys, until);
  }
  return { banned };
}

/** The chat reporters whose reports the operator dismissed three times in the last 30 days. */
export function discountedReporters(db: DB, now: number) {
  return db
    .selectFrom("chat_reports")
    .select("reporter_visitor_id")
    .where("dismissed", "=", 1)
    .where("handled_at", ">", now - DISCOUNT_MS)
    .groupBy("reporter_visitor_id")
    .having((eb) => eb.fn.countAll(), ">=", DISMISSALS_TO_DISCOUNT);
}
