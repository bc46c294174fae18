import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DB } from "../../db/schema.ts";
import { setBottleHidden } from "../../src/core/admin/operator.ts";
import {
  discoverBottle,
  listPublicBottles,
  type NewBottle,
  throwBottle,
} from "../../src/core/bottles/bottles.ts";
import { FindCounter } from "../../src/core/bottles/finds.ts";
import { findsSince, listMyBottles, sinkBottle } from "../../src/core/bottles/my-bottles.ts";
import { RecentlyShown } from "../../src/core/bottles/pick.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { DomainError } from "../../src/core/errors.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import { LocalModerator } from "../../src/core/moderation/local.ts";
import { RepeatMemory } from "../../src/core/moderation/repeats.ts";
import { answerAgeGate } from "../../src/core/safety/ages.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";
import { distinctText } from "../helpers/texts.ts";

const NOW = Date.UTC(2026, 0, 15, 12);
const HOUR = 60 * 60 * 1000;

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: DB;
let deps: {
  limiter: MemoryRateLimiter;
  moderator: LocalModerator;
  mutes: InMemoryChatBroker;
  recentlyShown: RecentlyShown;
  finds: FindCounter;
  repeats: RepeatMemory;
};
beforeEach(async () => {
  database = await openTestDatabase();
  db = database.db;
  deps = {
    limiter: new MemoryRateLimiter(new VirtualClock(NOW)),
    moderator: new LocalModerator(),
    mutes: new InMemoryChatBroker(),
    recentlyShown: new RecentlyShown(),
    finds: new FindCounter(db),
    repeats: new RepeatMemory(() => NOW),
  };
});

/** Throws as the create page does: the 13-or-older question answered first. */
async function thrown(...args: Parameters<typeof throwBottle>) {
  const [database, , writer, , now] = args;
  await answerAgeGate(database, writer.visitorId, "bottles", true, now);
  return throwBottle(...args);
}
afterEach(() => database.dispose());

/** A visitor of its own: cookie, address hash, country, and an account when given. */
function visitor(name: string, country: string | null = "TW", userId: string | null = null) {
  return {
    visitorId: `visitor-${name}`,
    ipKey: `ip-${name}`,
    userId,
    locale: "en",
    country: () => ({ code: country, name: country ?? "Unknown" }),
  };
}

const bottle = (message: string, extra: Partial<NewBottle> = {}): NewBottle => ({
  message,
  driftHours: 0,
  isPublic: false,
  expiryDays: 7,
  timeZone: "UTC",
  locale: "en",
  ...extra,
});

async function addUser(id: string): Promise<void> {
  await db
    .insertInto("users")
    .values({ id, username: id, username_key: id, password_hash: "x", created_at: NOW })
    .execute();
}

const discover = (reader: ReturnType<typeof visitor>, at = NOW) =>
  discoverBottle(db, deps, reader, at);

describe("finds", () => {
  test("each visitor counts once, with their country; the writer's own reads never count", async () => {
    const writer = visitor("writer");
    const { id } = await thrown(db, deps, writer, bottle("Counted once"), NOW);

    // The only bottle in the ocean: every discover by others shows it.
    const us = visitor("us", "US");
    expect((await discover(us))?.id).toBe(id);
    expect((await discover(us, NOW + 1000))?.id).toBe(id);
    expect((await discover(visitor("jp", "JP")))?.id).toBe(id);
    expect((await discover(visitor("nowhere", null)))?.id).toBe(id);
    // The writer is never shown it, so never counts.
    expect(await discover(writer)).toBeNull();

    const [mine] = (await listMyBottles(db, deps, writer, null, NOW)).bottles;
    expect(mine).toMatchObject({ id, finds: 3, likes: 0, state: "ocean" });
    expect(mine?.shores).toEqual([
      { countryCode: "JP", finds: 1 },
      { countryCode: "US", finds: 1 },
    ]);
    await deps.finds.flush();
    const rows = await db.selectFrom("bottle_finds").selectAll().execute();
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(
      ["bottle_id", "country_code", "found_at", "visitor_id"].sort(),
    );
  });

  test("a signed-in writer is not shown, on another device, what the account threw", async () => {
    await addUser("user-a");
    const phone = visitor("phone", "TW", "user-a");
    const laptop = visitor("laptop", "TW", "user-a");
    await thrown(db, deps, phone, bottle("From my phone"), NOW);
    expect(await discover(laptop)).toBeNull();
    // The laptop, signed in, lists it; signed out (its cookie alone), it does not.
    expect(
      (await listMyBottles(db, deps, laptop, null, NOW)).bottles.map((b) => b.message),
    ).toEqual(["From my phone"]);
    expect((await listMyBottles(db, deps, { ...laptop, userId: null }, null, NOW)).bottles).toEqual(
      [],
    );
    expect((await findsSince(db, deps, phone, 0, NOW)).finds).toBe(0);
  });

  test("finds since a time count only later finds, on the writer's bottles alone", async () => {
    const writer = visitor("writer");
    await thrown(db, deps, writer, bottle("First"), NOW);
    await discover(visitor("early", "US"), NOW + 1);
    const start = await findsSince(db, deps, writer, null, NOW + 10);
    expect(start).toEqual({ finds: 0, bottles: 0, asOf: NOW + 10 });
    await thrown(db, deps, writer, bottle("Second"), NOW + 20);
    for (const name of ["a", "b", "c", "d", "e", "f"]) await discover(visitor(name), NOW + 30);
    const later = await findsSince(db, deps, writer, start.asOf, NOW + 40);
    // Six new readers, each shown one of the two bottles.
    expect(later.finds).toBe(6);
    expect([1, 2]).toContain(later.bottles);
    expect((await findsSince(db, deps, writer, 0, NOW + 40)).finds).toBe(later.finds + 1);
    expect((await findsSince(db, deps, visitor("someone"), 0, NOW + 40)).finds).toBe(0);
  });
});

describe("sinking", () => {
  test("only the writer can sink a bottle; anyone else gets NOT_FOUND and nothing changes", async () => {
    const writer = visitor("writer");
    const { id } = await thrown(db, deps, writer, bottle("Mine to sink"), NOW);
    const stranger = visitor("stranger");
    const refused = await sinkBottle(db, deps.limiter, stranger, id).catch((error) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe("NOT_FOUND");
    expect((await discover(stranger))?.id).toBe(id);
    const missing = await sinkBottle(db, deps.limiter, writer, id + 1000).catch((e) => e);
    expect((missing as DomainError).code).toBe("NOT_FOUND");

    expect(await sinkBottle(db, deps.limiter, writer, id)).toEqual({ state: "sunk" });
    const [mine] = (await listMyBottles(db, deps, writer, null, NOW)).bottles;
    expect(mine).toMatchObject({ id, state: "sunk", finds: 1 });
  });

  test("a sunk bottle is never discovered again, nor listed among the public ones", async () => {
    const writer = visitor("writer");
    const { id } = await thrown(
      db,
      deps,
      writer,
      bottle("Public, then sunk", { isPublic: true }),
      NOW,
    );
    expect((await listPublicBottles(db, null, NOW)).map((b) => b.id)).toEqual([id]);
    await sinkBottle(db, deps.limiter, writer, id);
    expect(await listPublicBottles(db, null, NOW)).toEqual([]);
    for (const name of ["a", "b", "c"]) expect(await discover(visitor(name))).toBeNull();
  });

  test("a signed-in writer sinks from another device; a signed-out one only this browser's", async () => {
    await addUser("user-a");
    const phone = visitor("phone", "TW", "user-a");
    const { id } = await thrown(db, deps, phone, bottle("Sink me from the laptop"), NOW);
    const laptopSignedOut = visitor("laptop");
    const refused = await sinkBottle(db, deps.limiter, laptopSignedOut, id).catch((e) => e);
    expect((refused as DomainError).code).toBe("NOT_FOUND");
    await sinkBottle(db, deps.limiter, { ...laptopSignedOut, userId: "user-a" }, id);
    expect((await listMyBottles(db, deps, phone, null, NOW)).bottles[0]?.state).toBe("sunk");
  });

  test("the operator can neither put a sunk bottle back nor turn it into a hidden one", async () => {
    const writer = visitor("writer");
    const { id } = await thrown(db, deps, writer, bottle("Sunk for good"), NOW);
    await sinkBottle(db, deps.limiter, writer, id);
    expect(await setBottleHidden(db, id, false, NOW)).toBeNull();
    expect(await setBottleHidden(db, id, true, NOW)).toEqual({ closed: 0 });
    expect((await listMyBottles(db, deps, writer, null, NOW)).bottles[0]?.state).toBe("sunk");
    expect(await discover(visitor("reader"))).toBeNull();
  });

  test("is rate-limited per visitor and address, taken before the work", async () => {
    const writer = visitor("writer");
    const { id } = await thrown(db, deps, writer, bottle("Sunk again and again"), NOW);
    for (let i = 0; i < 30; i++) await sinkBottle(db, deps.limiter, writer, id);
    const limited = await sinkBottle(db, deps.limiter, writer, id).catch((e) => e);
    expect((limited as DomainError).code).toBe("RATE_LIMITED");
  });
});

describe("my bottles", () => {
  test("newest first, 20 a page, each in its state", async () => {
    const writer = visitor("writer");
    // Past the throwing limits (5 a minute): a limiter of its own for each.
    const fresh = () => ({ ...deps, limiter: new MemoryRateLimiter() });
    for (let i = 0; i < 23; i++) {
      await thrown(db, fresh(), writer, bottle(distinctText(i)), NOW + i);
    }
    await thrown(db, fresh(), writer, bottle("Still drifting", { driftHours: 5 }), NOW + 30);
    const first = await listMyBottles(db, deps, writer, null, NOW + 40);
    expect(first.bottles).toHaveLength(20);
    expect(first.bottles[0]).toMatchObject({ message: "Still drifting", state: "drifting" });
    expect(first.bottles[1]?.message).toBe(distinctText(22));
    expect(first.nextCursor).not.toBeNull();
    const second = await listMyBottles(db, deps, writer, first.nextCursor, NOW + 40);
    expect(second.bottles.map((b) => b.message)).toEqual([
      distinctText(3),
      distinctText(2),
      distinctText(1),
      distinctText(0),
    ]);
    expect(second.nextCursor).toBeNull();
    // Past its expiry (8 days on), before the hourly purge, a bottle reads as expired.
    const later = await listMyBottles(db, deps, writer, null, NOW + 8 * 24 * HOUR);
    expect(later.bottles[0]?.state).toBe("expired");
  });
});

describe("the find counter", () => {
  const findsOf = () =>
    db
      .selectFrom("bottle_finds")
      .select(["bottle_id", "visitor_id"])
      .orderBy("visitor_id")
      .execute();

  test("writes a moment later, once per bottle and visitor, without waiting to be asked", async () => {
    const writer = visitor("writer");
    const { id } = await thrown(db, deps, writer, bottle("Counted soon"), NOW);
    const clock = new VirtualClock(NOW);
    const counter = new FindCounter(db, { flushAfterMs: 20, scheduler: clock });
    const find = { bottleId: id, visitorId: "reader", countryCode: "US", foundAt: NOW };
    counter.note(find);
    counter.note({ ...find, countryCode: "JP", foundAt: NOW + 1 });
    expect(counter.pending).toBe(1);
    clock.advance(19);
    await counter.settled();
    expect(await findsOf()).toEqual([]);
    expect(counter.pending).toBe(1);
    // The delay passes: the write starts by itself.
    clock.advance(1);
    expect(counter.pending).toBe(0);
    await counter.settled();
    const [row] = await db.selectFrom("bottle_finds").selectAll().execute();
    expect(row).toEqual({ bottle_id: id, visitor_id: "reader", country_code: "US", found_at: NOW });
    // Noted again later (a discover after the write): still one row.
    counter.note({ ...find, foundAt: NOW + 2 });
    await counter.flush();
    expect(await findsOf()).toHaveLength(1);
  });

  test("holds at most maxPending before writing them at once", async () => {
    const { id } = await thrown(db, deps, visitor("writer"), bottle("Found a lot"), NOW);
    const clock = new VirtualClock(NOW);
    const counter = new FindCounter(db, { flushAfterMs: 60_000, maxPending: 3, scheduler: clock });
    for (const name of ["a", "b"]) {
      counter.note({ bottleId: id, visitorId: name, countryCode: null, foundAt: NOW });
    }
    expect(counter.pending).toBe(2);
    // The third starts the write at once, with no time passing.
    counter.note({ bottleId: id, visitorId: "c", countryCode: null, foundAt: NOW });
    expect(counter.pending).toBe(0);
    await counter.settled();
    expect((await findsOf()).map((row) => row.visitor_id)).toEqual(["a", "b", "c"]);
    // The write took the first note's timer with it.
    expect(clock.pending).toBe(0);
  });

  test("a find of a bottle gone since does not keep the others from being counted", async () => {
    const writer = visitor("writer");
    const { id: kept } = await thrown(db, deps, writer, bottle("Kept"), NOW);
    const { id: gone } = await thrown(db, deps, writer, bottle("Gone"), NOW);
    await db.deleteFrom("bottles").where("id", "=", gone).execute();
    const errors: unknown[] = [];
    const counter = new FindCounter(db, { onError: (error) => errors.push(error) });
    counter.note({ bottleId: gone, visitorId: "a", countryCode: null, foundAt: NOW });
    counter.note({ bottleId: kept, visitorId: "b", countryCode: null, foundAt: NOW });
    await counter.flush();
    expect(await findsOf()).toEqual([{ bottle_id: kept, visitor_id: "b" }]);
    expect(errors).toHaveLength(1);
  });
});
