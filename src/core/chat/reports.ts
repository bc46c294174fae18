import type { DB } from "../../../db/schema.ts";
import type { ChatReportOutcome, ChatReportReason } from "../../common/chat.ts";
import { DomainError, RateLimitedError } from "../errors.ts";
import {
  type RateLimiter,
  type RateRule,
  type Reservation,
  visitorSlots,
} from "../limits/rate-limiter.ts";
import type { Moderator } from "../moderation/moderator.ts";
import {
  DISCOUNT_MS,
  DISMISSALS_TO_DISCOUNT,
  independentSources,
} from "../moderation/reporters.ts";
import type { VisitorKeys } from "../requester.ts";
import { type AutomaticGround, banAutomatically, type ChatBans } from "./bans.ts";
import { BLOCK_MS, keepApart } from "./blocks.ts";
import type { ChatBroker } from "./broker.ts";

export const CHAT_REPORT_RATE: RateRule = { limit: 20, windowMs: 60 * 60 * 1000 };
/** Reports from this many independent reporters within a day ban the reported visitor. */
export const BAN_AFTER_REPORTERS = 3;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A reporter's reports of one visitor can act (ban, hold) once within this. */
export const REPORTER_COUNTS_ONCE_MS = DAY_MS;
/**
 * The most reports that acted that one count reads. Those that acted within a day share no
 * visitor or address (each took both keys' slot), so a few more than BAN_AFTER_REPORTERS is
 * plenty; the margin covers reports that raced a restart.
 */
export const ACTED_REPORTS_READ = 8 * BAN_AFTER_REPORTERS;

/** Who reports: their visitor id and address hash (IPv6 by /64); each is the same reporter. */
export type Reporter = VisitorKeys;

/**
 * Records a report of a partner's message (only a partner's, so every reporter was in a chat
 * with the reported visitor), carrying the server's copy of it (never the client's), with the
 * moderator's verdict. The reporter is never paired with the reported visitor again (as a
 * block). The same message reported again for the same reason is "alreadyReported"; for
 * another reason, it is recorded too.
 *
 * A report can act on the reported visitor only as a new, independent ground, so that nobody can
 * aim the rules at someone else:
 * - a reporter (by visitor or by address) acts once per reported visitor a day, whatever the
 *   number of messages or reasons; a reporter the operator keeps dismissing never acts, so
 *   never takes an address's turn from someone else on it;
 * - while a ban on the reported visitor is in force, a report never escalates it;
 * - an unsafe verdict from the moderator escalates the ban ladder; so do reports from
 *   BAN_AFTER_REPORTERS independent reporters within a day (three cookies on one address are one
 *   reporter; reporters the operator keeps dismissing do not count), counted from the reports
 *   that acted alone, so a flood of others is never read;
 * - a child-safety report holds the visitor out of chat at the first rung (1 hour) and tops the
 *   queue; only the operator's confirmation, or independent reporters, extend it.
 */
export async function reportChatMessage(
  db: DB,
  deps: {
    broker: ChatBroker;
    moderator: Moderator;
    bans: ChatBans;
    limiter: RateLimiter;
  },
  reporter: Reporter,
  report: { messageId: string; reason: ChatReportReason },
  now: number,
): Promise<ChatReportOutcome> {
  await deps.limiter.take(visitorSlots("chat-report", reporter, CHAT_REPORT_RATE));
  const message = await deps.broker.partnerMessage(reporter.visitorId, report.messageId);
  if (!message) throw new DomainError("NOT_FOUND", "no such message from a partner");
  const reported = { visitorId: message.senderVisitorId, ipKey: message.senderIpKey };
  let mayAct = false;
  if (!(await isDiscounted(db, reporter.visitorId, now))) {
    // Taken in one step: of reports sent together, only the first can act.
    const turn = await firstReportToday(deps.limiter, reporter, reported.visitorId);
    mayAct = turn !== undefined;
    // The limits live in memory on one machine: across a restart, the database remembers.
    if (turn && (await actedBefore(db, reporter, reported.visitorId, now))) {
      mayAct = false;
      // A report that does not act holds no key's turn (its other key may be free).
      await turn.refund();
    }
  }
  let safe = true;
  try {
    safe = (await deps.moderator.check(message.content)).safe;
  } catch {
    safe = true;
  }
  const inserted = await db
    .insertInto("chat_reports")
    .values({
      reported_visitor_id: reported.visitorId,
      reported_ip_key: reported.ipKey,
      reporter_visitor_id: reporter.visitorId,
      reporter_ip_key: reporter.ipKey,
      message_id: message.id,
      message_content: message.content,
      reason: report.reason,
      context: "chat",
      is_safe: safe ? 1 : 0,
      created_at: now,
      acted: mayAct ? 1 : 0,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) return "alreadyReported";
  await keepApart(db, deps.broker, reporter.visitorId, reported, now + BLOCK_MS, now);
  if (!mayAct) return "recorded";
  const ground = await groundOf(db, reported.visitorId, report.reason, safe, now);
  if (!ground) return "recorded";
  const banned = await banAutomatically(db, deps.bans, reported, ground, now);
  if (banned) await deps.broker.ban(banned.bans);
  return "recorded";
}

/**
 * Whether this is the reporter's first report of the visitor today, by visitor and by address,
 * within this site's memory of limits: taken in one step, so parallel reports cannot all pass.
 */
async function firstReportToday(
  limiter: RateLimiter,
  reporter: Reporter,
  reportedVisitorId: string,
): Promise<Reservation | undefined> {
  const rule = { limit: 1, windowMs: REPORTER_COUNTS_ONCE_MS };
  try {
    return await limiter.take([
      { key: `report-acts:${reportedVisitorId}:v:${reporter.visitorId}`, rule },
      { key: `report-acts:${reportedVisitorId}:ip:${reporter.ipKey}`, rule },
    ]);
  } catch (error) {
    if (error instanceof RateLimitedError) return undefined;
    throw error;
  }
}

/** Whether the operator dismissed this reporter's chat reports three times in 30 days. */
async function isDiscounted(db: DB, reporterVisitorId: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom("chat_reports")
    .select((eb) => eb.fn.countAll<number>().as("dismissals"))
    .where("reporter_visitor_id", "=", reporterVisitorId)
    .where("dismissed", "=", 1)
    .where("handled_at", ">", now - DISCOUNT_MS)
    .executeTakeFirstOrThrow();
  return Number(row.dismissals) >= DISMISSALS_TO_DISCOUNT;
}

/** Whether a report by this reporter (by visitor or address) acted on this visitor today. */
async function actedBefore(
  db: DB,
  reporter: Reporter,
  reportedVisitorId: string,
  now: number,
): Promise<boolean> {
  const row = await db
    .selectFrom("chat_reports")
    .select("id")
    .where("reported_visitor_id", "=", reportedVisitorId)
    .where("created_at", ">", now - REPORTER_COUNTS_ONCE_MS)
    .where("acted", "=", 1)
    .where((eb) =>
      eb.or([
        eb("reporter_visitor_id", "=", reporter.visitorId),
        eb("reporter_ip_key", "=", reporter.ipKey),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** What a new, independent report rests on, if anything. */
async function groundOf(
  db: DB,
  reportedVisitorId: string,
  reason: ChatReportReason,
  safe: boolean,
  now: number,
): Promise<AutomaticGround | undefined> {
  if (!safe) return "escalate";
  if (reason === "childSafety") return "hold";
  // Only the reports that acted, oldest first: each is a reporter's one turn of the day.
  const rows = await db
    .selectFrom("chat_reports")
    .select(["reporter_visitor_id", "reporter_ip_key"])
    .where("reported_visitor_id", "=", reportedVisitorId)
    .where("acted", "=", 1)
    .where("created_at", ">", now - DAY_MS)
    .where("dismissed", "=", 0)
    .where("reporter_visitor_id", "not in", discountedReporters(db, now))
    .orderBy("created_at")
    .orderBy("id")
    .limit(ACTED_REPORTS_READ)
    .execute();
  return independentReporters(rows, BAN_AFTER_REPORTERS) >= BAN_AFTER_REPORTERS
    ? "escalate"
    : undefined;
}

/**
 * How many independent reporters these reports come from, by visitor id and address hash (see
 * independentSources): three cookies on one address, or one cookie on three networks, are one
 * reporter. Stops counting at `enough`.
 */
export function independentReporters(
  rows: ReadonlyArray<{ reporter_visitor_id: string; reporter_ip_key: string }>,
  enough = Infinity,
): number {
  return independentSources(
    rows.map((row) => [
      `v:${row.reporter_visitor_id}`,
      // Reports from before addresses were kept have none: the visitor alone stands for them.
      row.reporter_ip_key === "" ? "" : `ip:${row.reporter_ip_key}`,
    ]),
    enough,
  );
}

/** Reports the operator handled are kept this long, then deleted with the text they carry. */
export const HANDLED_REPORTS_KEPT_MS = 90 * DAY_MS;

export async function purgeHandledReports(db: DB, now: number): Promise<void> {
  await db
    .deleteFrom("chat_reports")
    .where("handled_at", "is not", null)
    .where("handled_at", "<", now - HANDLED_REPORTS_KEPT_MS)
    .execute();
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
