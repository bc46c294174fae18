import type { ExpressionBuilder } from "kysely";
import type { Database, DB } from "../../../db/schema.ts";
import {
  type BottleState,
  type FindsSince,
  MY_BOTTLES_PAGE_SIZE,
  type MyBottle,
  type MyBottlesPage,
  type Shore,
} from "../../common/bottles.ts";
import { DomainError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import type { Requester } from "../requester.ts";
import { forgetTranslations, SUNK_BY_WRITER } from "./bottles.ts";
import type { FindCounter } from "./finds.ts";

/** Sinking one's own bottles, per visitor and per address. */
export const SINK_RATE = { limit: 30, windowMs: 60 * 60 * 1000 } as const satisfies RateRule;

/** Whose bottles: this browser's (its visitor cookie), and the account's when signed in. */
export type Writer = Pick<Requester, "visitorId" | "userId">;

/** The writer's own bottles: thrown with this visitor cookie, or while signed in to the account. */
function ownedBy(writer: Writer) {
  return (eb: ExpressionBuilder<Database, "bottles">) =>
    writer.userId
      ? eb.or([
          eb("bottles.visitor_id", "=", writer.visitorId),
          eb("bottles.user_id", "=", writer.userId),
        ])
      : eb("bottles.visitor_id", "=", writer.visitorId);
}

function stateOf(
  row: { hidden: number; available_at: number; expires_at: number | null },
  now: number,
): BottleState {
  if (row.hidden === SUNK_BY_WRITER) return "sunk";
  if (row.hidden !== 0) return "hidden";
  if (row.expires_at !== null && row.expires_at <= now) return "expired";
  return row.available_at > now ? "drifting" : "ocean";
}

/**
 * The writer's bottles, newest first, a page at a time (after `cursor`, the last id of the page
 * before): each with its state, how many visitors found it, its likes and the countries it
 * washed ashore in. Nothing about who found or liked it.
 */
export async function listMyBottles(
  db: DB,
  deps: { finds: FindCounter },
  writer: Writer,
  cursor: number | null,
  now: number,
): Promise<MyBottlesPage> {
  await deps.finds.flush();
  let query = db
    .selectFrom("bottles")
    .where(ownedBy(writer))
    .select(["id", "message", "created_at", "available_at", "expires_at", "is_public", "hidden"])
    .orderBy("id", "desc")
    .limit(MY_BOTTLES_PAGE_SIZE + 1);
  if (cursor !== null) query = query.where("id", "<", cursor);
  const rows = await query.execute();
  const page = rows.slice(0, MY_BOTTLES_PAGE_SIZE);
  const ids = page.map((row) => row.id);
  const [finds, likes] =
    ids.length === 0
      ? [[], []]
      : await Promise.all([
          db
            .selectFrom("bottle_finds")
            .where("bottle_id", "in", ids)
            .select((eb) => ["bottle_id", "country_code", eb.fn.countAll<number>().as("n")])
            .groupBy(["bottle_id", "country_code"])
            .execute(),
          db
            .selectFrom("bottle_likes")
            .where("bottle_id", "in", ids)
            .select((eb) => ["bottle_id", eb.fn.countAll<number>().as("n")])
            .groupBy("bottle_id")
            .execute(),
        ]);
  const findCounts = new Map<number, number>();
  const shores = new Map<number, Shore[]>();
  for (const row of finds) {
    const n = Number(row.n);
    findCounts.set(row.bottle_id, (findCounts.get(row.bottle_id) ?? 0) + n);
    if (row.country_code === null) continue;
    const list = shores.get(row.bottle_id) ?? [];
    list.push({ countryCode: row.country_code, finds: n });
    shores.set(row.bottle_id, list);
  }
  const likeCounts = new Map(likes.map((row) => [row.bottle_id, Number(row.n)]));
  const bottles = page.map(
    (row): MyBottle => ({
      id: row.id,
      message: row.message,
      createdAt: row.created_at,
      availableAt: row.available_at,
      expiresAt: row.expires_at,
      isPublic: row.is_public === 1,
      state: stateOf(row, now),
      finds: findCounts.get(row.id) ?? 0,
      likes: likeCounts.get(row.id) ?? 0,
      shores: (shores.get(row.id) ?? []).sort(
        (a, b) => b.finds - a.finds || a.countryCode.localeCompare(b.countryCode),
      ),
    }),
  );
  const last = page.at(-1);
  return {
    bottles,
    nextCursor: rows.length > MY_BOTTLES_PAGE_SIZE && last ? last.id : null,
    asOf: now,
  };
}

/**
 * Whether the reader has a bottle of their own in the ocean (afloat, or still drifting there):
 * when discover finds nothing for them, the page says theirs is the only one rather than that
 * the ocean is empty. Asked only then.
 */
export async function ownBottleAfloat(db: DB, reader: Writer, now: number): Promise<boolean> {
  const row = await db
    .selectFrom("bottles")
    .where(ownedBy(reader))
    .where("bottles.hidden", "=", 0)
    .where((eb) =>
      eb.or([eb("bottles.expires_at", "is", null), eb("bottles.expires_at", ">", now)]),
    )
    .select("bottles.id")
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The writer takes their own bottle out of the ocean at once, for good: never discovered or
 * listed again, its translations forgotten. Anyone else's bottle, or none, is NOT_FOUND (the
 * same answer, so ids cannot be probed for whose they are).
 */
export async function sinkBottle(
  db: DB,
  limiter: RateLimiter,
  writer: Pick<Requester, "visitorId" | "ipKey" | "userId">,
  bottleId: number,
): Promise<{ state: BottleState }> {
  await limiter.take(visitorSlots("sink", writer, SINK_RATE));
  const sunk = await db
    .updateTable("bottles")
    .set({ hidden: SUNK_BY_WRITER })
    .where("id", "=", bottleId)
    .where(ownedBy(writer))
    .returning("message")
    .executeTakeFirst();
  if (!sunk) throw new DomainError("NOT_FOUND", "no bottle of this writer's with that id");
  await forgetTranslations(db, [sunk.message]);
  return { state: "sunk" };
}

/**
 * How often the writer's bottles were found after `since` (the `asOf` of an earlier answer),
 * for the "your bottle was found" notice; null asks only for the time to start from.
 */
export async function findsSince(
  db: DB,
  deps: { finds: FindCounter },
  writer: Writer,
  since: number | null,
  now: number,
): Promise<FindsSince> {
  if (since === null) return { finds: 0, bottles: 0, asOf: now };
  await deps.finds.flush();
  const row = await db
    .selectFrom("bottle_finds")
    .innerJoin("bottles", "bottles.id", "bottle_finds.bottle_id")
    .where(ownedBy(writer))
    .where("bottle_finds.found_at", ">", since)
    .select((eb) => [
      eb.fn.countAll<number>().as("finds"),
      eb.fn.count<number>("bottle_finds.bottle_id").distinct().as("bottles"),
    ])
    .executeTakeFirstOrThrow();
  return { finds: Number(row.finds), bottles: Number(row.bottles), asOf: now };
}
