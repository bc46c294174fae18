import { type ExpressionBuilder, sql } from "kysely";
import { prepared } from "../../../db/prepared.ts";
import type { Database, DB } from "../../../db/schema.ts";
import { serially } from "../../../db/transaction.ts";
import type { BottleCard } from "../../common/bottles.ts";
import type { Locale } from "../../common/locales.ts";
import { DomainError, FieldError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import { hasContactDetails } from "../moderation/contacts.ts";
import type { Moderator } from "../moderation/moderator.ts";
import { type Muter, type RepeatMemory, refuseRepeats, throwPlace } from "../moderation/repeats.ts";
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
/** bottles.hidden: taken out of the ocean by reports or the operator (who may put it back). */
export const HIDDEN_BY_MODERATION = 1;
/** bottles.hidden: sunk by its writer, for good. */
export const SUNK_BY_WRITER = 2;

/** A signed-in visitor: likes and reports need an account. */
export type Member = Pick<Requester, "visitorId" | "ipKey"> & { userId: string };

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
      // Flat: a prepared query binds each value by its name.
      countryName: string;
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
        country: v.countryName,
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
  deps: { limiter: RateLimiter; moderator: Moderator; mutes: Muter; repeats: RepeatMemory },
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
    countryName: country.name,
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
    country: { code: row.country_code, name: row.country },
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
