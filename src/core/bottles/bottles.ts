import { type ExpressionBuilder, sql } from "kysely";
import { prepared } from "../../../db/prepared.ts";
import type { Database, DB } from "../../../db/schema.ts";
import { serially } from "../../../db/transaction.ts";
import type { BottleCard, BottleReportReason } from "../../common/bottles.ts";
import type { Locale } from "../../common/locales.ts";
import type { ChatBroker } from "../chat/broker.ts";
import { type RepeatMemory, refuseRepeats, throwPlace } from "../chat/repeats.ts";
import { DomainError, FieldError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import { hasContactDetails } from "../moderation/contacts.ts";
import type { Moderator } from "../moderation/moderator.ts";
import {
  DISCOUNT_MS,
  DISMISSALS_TO_DISCOUNT,
  independentSources,
} from "../moderation/reporters.ts";
import type { Requester } from "../requester.ts";
import { requireAge } from "../safety/ages.ts";
import { sourceHash } from "../translation/cache.ts";
import type { FindCounter } from "./finds.ts";
import { pickBottle, type RecentlyShown } from "./pick.ts";
import { availableAt, expiryAt } from "./time.ts";

const MINUTE = 60 * 1000;
export const BOTTLE_RATES = {
  throwPerMinute: { limit: 5, windowMs: MINUTE },
  throwPerDay: { limit: 30, windowMs: 24 * 60 * MINUTE },
  discover: { limit: 60, windowMs: MINUTE },
  like: { limit: 60, windowMs: MINUTE },
  report: { limit: 20, windowMs: 60 * MINUTE },
} as const satisfies Record<string, RateRule>;

/** The random pick draws from this many of the newest available bottles. */
export const PICK_POOL = 50;
/** The public page fetches this many (and shows at most 12). */
export const PUBLIC_LIST_SIZE = 20;
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
const DAY = 24 * 60 * MINUTE;
/** bottles.hidden: taken out of the ocean by reports or the operator (who may put it back). */
export const HIDDEN_BY_MODERATION = 1;
/** bottles.hidden: sunk by its writer, for good. */
export const SUNK_BY_WRITER = 2;

/** A signed-in visitor: likes and reports need an account. */
type Member = Pick<Requester, "visitorId" | "ipKey"> & { userId: string };

export interface NewBottle {
  message: string;
  driftHours: number;
  isPublic: boolean;
  expiryDays: number;
  timeZone: string;
  locale: Locale;
}

/** Visible to readers: surfaced, not expired, not hidden. */
function visible(now: number) {
  return (eb: ExpressionBuilder<Database, "bottles">) =>
    eb.and([
      eb("bottles.hidden", "=", 0),
      eb("bottles.available_at", "<=", now),
      eb.or([eb("bottles.expires_at", "is", null), eb("bottles.expires_at", ">", now)]),
    ]);
}

/** The one insert of a thrown bottle, prepared once (see prepared). */
const insertBottle = prepared(
  (
    db,
    v: {
      message: string;
      driftHours: number;
      country: string;
      countryCode: string | null;
      ipKey: string;
      visitorId: string;
      userId: string | null;
      locale: string;
      isPublic: number;
      availableAt: number;
      createdAt: number;
      expiresAt: number;
    },
  ) =>
    db
      .insertInto("bottles")
      .values({
        message: v.message,
        drift_hours: v.driftHours,
        country: v.country,
        country_code: v.countryCode,
        ip_key: v.ipKey,
        visitor_id: v.visitorId,
        user_id: v.userId,
        locale: v.locale,
        is_public: v.isPublic,
        available_at: v.availableAt,
        created_at: v.createdAt,
        expires_at: v.expiresAt,
      })
      .returning("id"),
);

/**
 * Writes a bottle into the ocean after the age gate, the time rules, contact details, the rate
 * limits, repeats and moderation.
 */
export async function throwBottle(
  db: DB,
  deps: { limiter: RateLimiter; moderator: Moderator; broker: ChatBroker; repeats: RepeatMemory },
  writer: Requester,
  input: NewBottle,
  now: number,
): Promise<{ id: number; availableAt: number; expiresAt: number }> {
  // The page asks before the first throw; a script must answer the same question.
  await requireAge(db, writer.visitorId, "bottles", now, true);
  const country = writer.country();
  const expiresAt = expiryAt(now, input.expiryDays, input.timeZone);
  const surfacesAt = availableAt(now, input.driftHours);
  if (surfacesAt >= expiresAt)
    throw new FieldError({ field: "driftHours", kind: "drift_past_expiry" });
  if (hasContactDetails(input.message, country.code ?? undefined)) {
    throw new DomainError("CONTENT_HAS_CONTACT", "bottles carry words, not contact details");
  }

  // Taken before moderation is awaited, so a batch or parallel throws meet the same limits. A
  // rejected message keeps its slot (the limits also bound probing the word lists); a failure
  // of moderation itself gives it back.
  const slots = await deps.limiter.take([
    ...visitorSlots("throw-minute", writer, BOTTLE_RATES.throwPerMinute),
    ...visitorSlots("throw-day", writer, BOTTLE_RATES.throwPerDay),
  ]);
  await refuseRepeats(deps, writer, input.message, throwPlace(), now);
  let safe: boolean;
  try {
    safe = (await deps.moderator.check(input.message)).safe;
  } catch {
    await slots.refund();
    throw new DomainError("MODERATION_FAILED", "content moderation failed");
  }
  if (!safe) throw new DomainError("CONTENT_REJECTED", "message contains inappropriate content");

  const [row] = await insertBottle(db, {
    message: input.message,
    driftHours: input.driftHours,
    country: country.name,
    countryCode: country.code,
    ipKey: writer.ipKey,
    visitorId: writer.visitorId,
    // Signed in, the bottle is also the account's: My bottles shows it on any device.
    userId: writer.userId,
    locale: input.locale,
    isPublic: input.isPublic ? 1 : 0,
    availableAt: surfacesAt,
    createdAt: now,
    expiresAt,
  });
  if (!row) throw new Error("the new bottle has no id");
  return { id: row.id, availableAt: surfacesAt, expiresAt };
}

/** Bottles as readers see them, with like counts and whether this user liked each. */
function cards(db: DB, userId: string | null, now: number) {
  return db
    .selectFrom("bottles")
    .where(visible(now))
    .select((eb) => [
      "bottles.id",
      "bottles.message",
      "bottles.country",
      "bottles.country_code",
      "bottles.drift_hours",
      "bottles.is_public",
      "bottles.created_at",
      "bottles.locale",
      eb
        .selectFrom("bottle_likes")
        .whereRef("bottle_likes.bottle_id", "=", "bottles.id")
        .select((e) => e.fn.countAll<number>().as("n"))
        .as("like_count"),
      (userId
        ? eb
            .selectFrom("bottle_likes")
            .whereRef("bottle_likes.bottle_id", "=", "bottles.id")
            .where("bottle_likes.user_id", "=", userId)
            .select(sql<number>`1`.as("one"))
        : sql<number | null>`NULL`
      ).as("is_liked"),
    ]);
}

type CardRow = {
  id: number;
  message: string;
  country: string;
  country_code: string | null;
  drift_hours: number;
  is_public: number;
  created_at: number;
  like_count: number | null;
  is_liked: number | null;
};

function toCard(row: CardRow): BottleCard {
  return {
    id: row.id,
    message: row.message,
    country: row.country,
    countryCode: row.country_code,
    driftHours: row.drift_hours,
    isPublic: row.is_public === 1,
    createdAt: row.created_at,
    likeCount: Number(row.like_count ?? 0),
    isLiked: row.is_liked === 1,
  };
}

/** The newest available bottles not written by the reader: what the pick draws from. */
const discoverCandidates = prepared((db, v: { now: number; visitorId: string }) =>
  db
    .selectFrom("bottles")
    .where(visible(v.now))
    .where("visitor_id", "!=", v.visitorId)
    .select(["id", "locale"])
    .orderBy("available_at", "desc")
    .limit(PICK_POOL),
);

/**
 * The same for a signed-in reader, also leaving out what their account threw on other devices.
 * (user_id is not in the covering index, so this one reads the rows; anonymous readers, most
 * of them, keep the query above.)
 */
const discoverCandidatesForUser = prepared(
  (db, v: { now: number; visitorId: string; userId: string }) =>
    db
      .selectFrom("bottles")
      .where(visible(v.now))
      .where("visitor_id", "!=", v.visitorId)
      .where((eb) => eb.or([eb("user_id", "is", null), eb("user_id", "!=", v.userId)]))
      .select(["id", "locale"])
      .orderBy("available_at", "desc")
      .limit(PICK_POOL),
);

/** One bottle's card, for an anonymous reader and for a signed-in one (whose like it shows). */
const cardForVisitor = prepared((db, v: { now: number; id: number }) =>
  cards(db, null, v.now).where("bottles.id", "=", v.id),
);
const cardForUser = prepared((db, v: { now: number; id: number; userId: string }) =>
  cards(db, v.userId, v.now).where("bottles.id", "=", v.id),
);

/**
 * A random available bottle for this reader, never their own: drawn from the newest 50,
 * avoiding what they were shown recently and preferring their language (see pickBottle), and
 * counted as a find. Its two queries are prepared once: this is the site's busiest read.
 */
export async function discoverBottle(
  db: DB,
  deps: { limiter: RateLimiter; recentlyShown: RecentlyShown; finds: FindCounter },
  reader: Requester & { locale: string },
  now: number,
  random: () => number = Math.random,
): Promise<BottleCard | null> {
  await deps.limiter.take(visitorSlots("discover", reader, BOTTLE_RATES.discover));
  const { visitorId, userId } = reader;
  const candidates = userId
    ? await discoverCandidatesForUser(db, { now, visitorId, userId })
    : await discoverCandidates(db, { now, visitorId });
  const chosen = pickBottle(
    candidates,
    reader.locale,
    deps.recentlyShown.of(reader.visitorId),
    random,
  );
  if (!chosen) return null;
  const [row] = reader.userId
    ? await cardForUser(db, { now, id: chosen.id, userId: reader.userId })
    : await cardForVisitor(db, { now, id: chosen.id });
  if (!row) return null;
  deps.recentlyShown.add(reader.visitorId, chosen.id);
  // Shown to someone other than its writer: a find (written a moment later, see FindCounter).
  deps.finds.note({
    bottleId: chosen.id,
    visitorId,
    countryCode: reader.country().code,
    foundAt: now,
  });
  return toCard(row);
}

/** The newest public bottles: 20 fetched, of which the page shows 12. */
export async function listPublicBottles(
  db: DB,
  userId: string | null,
  now: number,
): Promise<BottleCard[]> {
  const rows = await cards(db, userId, now)
    .where("bottles.is_public", "=", 1)
    .orderBy("bottles.available_at", "desc")
    .limit(PUBLIC_LIST_SIZE)
    .execute();
  return rows.map(toCard);
}

/** A bottle a reader may see, for translating or reporting it. */
export async function findVisibleBottle(db: DB, bottleId: number, now: number) {
  return db
    .selectFrom("bottles")
    .where(visible(now))
    .where("id", "=", bottleId)
    .select(["id", "message", "is_public"])
    .executeTakeFirst();
}

/** The same, for a like: a bottle out of the ocean (or never in it) is not found. */
async function requireVisibleBottle(db: DB, bottleId: number, now: number): Promise<void> {
  if (!(await findVisibleBottle(db, bottleId, now))) {
    throw new DomainError("NOT_FOUND", "bottle not found");
  }
}

/** An account's like of a bottle, and the bottle's count. */
export interface LikeState {
  liked: boolean;
  count: number;
}

/**
 * Whether the account likes a bottle still in the ocean, and its count: for a bottle on screen
 * as its reader saw it signed out (they signed in to like it). Held to the limits of liking.
 */
export async function likeOf(
  db: DB,
  limiter: RateLimiter,
  user: Member,
  bottleId: number,
  now: number,
): Promise<LikeState> {
  await limiter.take(visitorSlots("like-read", user, BOTTLE_RATES.like));
  await requireVisibleBottle(db, bottleId, now);
  const { count, mine } = await db
    .selectFrom("bottle_likes")
    .where("bottle_id", "=", bottleId)
    .select((eb) => [
      eb.fn.countAll<number>().as("count"),
      eb.fn
        .sum<number>(eb.case().when("user_id", "=", user.userId).then(1).else(0).end())
        .as("mine"),
    ])
    .executeTakeFirstOrThrow();
  return { liked: Number(mine) > 0, count: Number(count) };
}

/** Likes or unlikes, in one transaction; answers the new state and count. */
export async function toggleLike(
  db: DB,
  limiter: RateLimiter,
  user: Member,
  bottleId: number,
  now: number,
): Promise<LikeState> {
  await limiter.take(visitorSlots("like", user, BOTTLE_RATES.like));
  return serially(db, async (trx) => {
    await requireVisibleBottle(trx, bottleId, now);
    const removed = await trx
      .deleteFrom("bottle_likes")
      .where("bottle_id", "=", bottleId)
      .where("user_id", "=", user.userId)
      .executeTakeFirst();
    const liked = Number(removed.numDeletedRows) === 0;
    if (liked) {
      await trx
        .insertInto("bottle_likes")
        .values({ bottle_id: bottleId, user_id: user.userId, created_at: now })
        .execute();
    }
    const { count } = await trx
      .selectFrom("bottle_likes")
      .where("bottle_id", "=", bottleId)
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    return { liked, count: Number(count) };
  });
}

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
 * Forgets the translations of these messages. (Another bottle with the very same text loses
 * its cached translation too, and is translated again when asked.)
 */
export async function forgetTranslations(db: DB, messages: readonly string[]): Promise<void> {
  const hashes = [...new Set(messages)].map(sourceHash);
  for (let i = 0; i < hashes.length; i += 500) {
    await db
      .deleteFrom("translations")
      .where("source_hash", "in", hashes.slice(i, i + 500))
      .execute();
  }
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

/** Deletes bottles whose expiry has passed (with their likes, reports and translations). */
export async function purgeExpiredBottles(db: DB, now: number): Promise<number> {
  const expired = await db
    .deleteFrom("bottles")
    .where("expires_at", "is not", null)
    .where("expires_at", "<=", now)
    .returning("message")
    .execute();
  await forgetTranslations(
    db,
    expired.map((row) => row.message),
  );
  return expired.length;
}
