import { sql } from "kysely";
import type { DB } from "../../../db/schema.ts";
import { serially } from "../../../db/transaction.ts";
import type { BottleReportReason } from "../../common/bottles.ts";
import { DomainError } from "../errors.ts";
import { type RateLimiter, visitorSlots } from "../limits/rate-limiter.ts";
import type { Moderator } from "../moderation/moderator.ts";
import {
  DISCOUNT_MS,
  DISMISSALS_TO_DISCOUNT,
  independentSources,
} from "../moderation/reporters.ts";
import {
  BOTTLE_RATES,
  findVisibleBottle,
  forgetTranslations,
  HIDDEN_BY_MODERATION,
  type Member,
  SUNK_BY_WRITER,
} from "./bottles.ts";

const DAY = 24 * 60 * 60 * 1000;

/**
 * Reports from this many independent sources take a bottle out of the ocean: accounts on one
 * cookie, or cookies on one address, are one source.
 */
export const HIDE_AFTER_REPORTS = 3;
/** The counted reports of a bottle one count reads (counted ones share no source). */
const COUNTED_REPORTS_READ = 8 * HIDE_AFTER_REPORTS;
/**
 * Child-safety reports from one address (or one visitor) that take a bottle out at once, a day;
 * past them a child-safety report still tops the operator's queue and counts as a source.
 */
export const CHILD_SAFETY_HIDES_PER_DAY = 3;

/**
 * Records one report per user and bottle, with the moderator's verdict on the bottle (a
 * moderation that fails counts as safe). One report of an unsafe bottle, a child-safety report
 * (the first CHILD_SAFETY_HIDES_PER_DAY of the reporter's address and visitor that day), or
 * HIDE_AFTER_REPORTS independent sources take it out of the ocean and the public list at once.
 *
 * A report counts as a source when no counted report of the bottle shares its account, visitor
 * or address, decided as it is recorded (see independentSources): so one cookie with three
 * accounts is one source, a flood of reports from one source is never read, and nobody can
 * fold honest reporters into one by sharing an address with each. Readers the operator keeps
 * dismissing never count, nor hold a source's place.
 */
export async function reportBottle(
  db: DB,
  deps: { limiter: RateLimiter; moderator: Moderator },
  user: Member,
  report: { bottleId: number; reason: BottleReportReason },
  now: number,
): Promise<{ hidden: boolean }> {
  await deps.limiter.take(visitorSlots("report", user, BOTTLE_RATES.report));
  const bottle = await findVisibleBottle(db, report.bottleId, now);
  if (!bottle) throw new DomainError("NOT_FOUND", "could not find bottle to report");
  let safe = true;
  try {
    safe = (await deps.moderator.check(bottle.message)).safe;
  } catch {
    safe = true;
  }
  return serially(db, async (trx) => {
    const counted =
      !(await isDiscountedBottleReporter(trx, user.userId, now)) &&
      !(await sharesACountedSource(trx, bottle.id, user));
    const hidesAtOnce =
      report.reason === "childSafety" &&
      (await childSafetyReportsToday(trx, user, now)) < CHILD_SAFETY_HIDES_PER_DAY;
    const inserted = await trx
      .insertInto("bottle_reports")
      .values({
        bottle_id: bottle.id,
        user_id: user.userId,
        reporter_visitor_id: user.visitorId,
        reporter_ip_key: user.ipKey,
        counted: counted ? 1 : 0,
        reason: report.reason,
        is_safe: safe ? 1 : 0,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .executeTakeFirst();
    const rows = await trx
      .selectFrom("bottle_reports")
      .select(["user_id", "reporter_visitor_id", "reporter_ip_key"])
      .where("bottle_id", "=", bottle.id)
      .where("counted", "=", 1)
      .where("dismissed", "=", 0)
      .where((eb) =>
        eb.or([
          eb("user_id", "is", null),
          eb("user_id", "not in", discountedBottleReporters(trx, now)),
        ]),
      )
      .orderBy("created_at")
      .orderBy("id")
      .limit(COUNTED_REPORTS_READ)
      .execute();
    const sources = independentSources(
      rows.map((row) => [
        row.user_id === null ? "" : `u:${row.user_id}`,
        row.reporter_visitor_id === "" ? "" : `v:${row.reporter_visitor_id}`,
        row.reporter_ip_key === "" ? "" : `ip:${row.reporter_ip_key}`,
      ]),
      HIDE_AFTER_REPORTS,
    );
    // A report the account made before (another reason) adds nothing, child safety included.
    const hidden =
      !safe || (inserted !== undefined && hidesAtOnce) || sources >= HIDE_AFTER_REPORTS;
    if (hidden) await hideBottle(trx, bottle.id);
    return { hidden };
  });
}

/** Whether a counted report of this bottle came from this account, visitor or address. */
async function sharesACountedSource(db: DB, bottleId: number, user: Member): Promise<boolean> {
  const row = await db
    .selectFrom("bottle_reports")
    .select("id")
    .where("bottle_id", "=", bottleId)
    .where("counted", "=", 1)
    .where((eb) =>
      eb.or([
        eb("user_id", "=", user.userId),
        eb("reporter_visitor_id", "=", user.visitorId),
        eb("reporter_ip_key", "=", user.ipKey),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The child-safety bottle reports sent from this address or by this visitor in the last day. */
async function childSafetyReportsToday(db: DB, user: Member, now: number): Promise<number> {
  const { reports } = await db
    .selectFrom("bottle_reports")
    .select((eb) => eb.fn.countAll<number>().as("reports"))
    .where("reason", "=", "childSafety")
    .where("created_at", ">", now - DAY)
    .where((eb) =>
      eb.or([
        eb("reporter_ip_key", "=", user.ipKey),
        eb("reporter_visitor_id", "=", user.visitorId),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(reports);
}

/** Whether the operator dismissed this reader's bottle reports three times in 30 days. */
async function isDiscountedBottleReporter(db: DB, userId: string, now: number): Promise<boolean> {
  const { dismissals } = await db
    .selectFrom("bottle_reports")
    .select((eb) => eb.fn.countAll<number>().as("dismissals"))
    .where("user_id", "=", userId)
    .where("dismissed", "=", 1)
    .where("handled_at", ">", now - DISCOUNT_MS)
    .executeTakeFirstOrThrow();
  return Number(dismissals) >= DISMISSALS_TO_DISCOUNT;
}

/** Readers whose bottle reports the operator dismissed three times in 30 days count for less. */
function discountedBottleReporters(db: DB, now: number) {
  return db
    .selectFrom("bottle_reports")
    .select("user_id")
    .where("dismissed", "=", 1)
    .where("user_id", "is not", null)
    .where("handled_at", ">", now - DISCOUNT_MS)
    .groupBy("user_id")
    .having((eb) => eb.fn.countAll(), ">=", DISMISSALS_TO_DISCOUNT);
}

/**
 * Takes a bottle out of the ocean and forgets its translations (a bottle its writer sank stays
 * sunk). False when there is no such bottle.
 */
export async function hideBottle(db: DB, bottleId: number): Promise<boolean> {
  const hidden = await db
    .updateTable("bottles")
    .set({
      hidden: sql<number>`CASE WHEN hidden = ${sql.lit(SUNK_BY_WRITER)} THEN ${sql.lit(SUNK_BY_WRITER)} ELSE ${sql.lit(HIDDEN_BY_MODERATION)} END`,
    })
    .where("id", "=", bottleId)
    .returning("message")
    .executeTakeFirst();
  if (hidden) await forgetTranslations(db, [hidden.message]);
  return hidden !== undefined;
}
