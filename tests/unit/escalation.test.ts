import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  BAN_STEPS_MS,
  banKeysOf,
  banLength,
  currentStep,
  escalate,
  Sightings,
  STEP_FORGOTTEN_AFTER_MS,
} from "../../src/core/chat/bans.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

describe("ban lengths", () => {
  test("1 h, 6 h, 24 h, 3 days, then 7 days for each further ban", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(banLength)).toEqual([
      HOUR,
      6 * HOUR,
      24 * HOUR,
      3 * DAY,
      7 * DAY,
      7 * DAY,
      7 * DAY,
    ]);
    expect(BAN_STEPS_MS).toHaveLength(5);
  });

  test("a step is forgotten for every 30 days without a new ban", () => {
    const history = { step: 3, last_at: 0 };
    expect(currentStep(undefined, 0)).toBe(0);
    expect(currentStep(history, STEP_FORGOTTEN_AFTER_MS - 1)).toBe(3);
    expect(currentStep(history, STEP_FORGOTTEN_AFTER_MS)).toBe(2);
    expect(currentStep(history, 2 * STEP_FORGOTTEN_AFTER_MS)).toBe(1);
    expect(currentStep(history, 10 * STEP_FORGOTTEN_AFTER_MS)).toBe(0);
  });
});

describe("escalate", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.dispose());

  test("each ban of a visitor lasts longer; after quiet months it comes back down", async () => {
    const keys = ["visitor:v1", "ip:a1"];
    let now = 1_000_000;
    const lengths: number[] = [];
    for (let i = 0; i < 6; i++) {
      lengths.push((await escalate(database.db, keys, now)) - now);
      now += DAY;
    }
    expect(lengths).toEqual([HOUR, 6 * HOUR, 24 * HOUR, 3 * DAY, 7 * DAY, 7 * DAY]);
    now += 3 * STEP_FORGOTTEN_AFTER_MS;
    // Six steps taken, three forgotten: the next ban is the fourth length.
    expect((await escalate(database.db, keys, now)) - now).toBe(3 * DAY);
  });

  test("a new cookie from an address with a history starts where the address is", async () => {
    const now = 5_000_000;
    await escalate(database.db, ["visitor:old", "ip:shared"], now);
    await escalate(database.db, ["visitor:old", "ip:shared"], now + HOUR);
    const fresh = await escalate(database.db, ["visitor:new", "ip:shared"], now + 2 * HOUR);
    expect(fresh - (now + 2 * HOUR)).toBe(24 * HOUR);
  });
});

describe("sightings", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.dispose());
  const rows = () =>
    database.db
      .selectFrom("visitor_addresses")
      .select(["visitor_id", "ip_key", "last_seen_at"])
      .orderBy("ip_key")
      .execute();

  test("a start's sighting is written within the delay, one row a pair, the latest time kept", async () => {
    const clock = new VirtualClock(1_000_000);
    const sightings = new Sightings(database.db, { flushAfterMs: 100, scheduler: clock });
    sightings.note("v1", "ip-a", 1_000_000);
    sightings.note("v1", "ip-a", 1_000_050);
    sightings.note("v1", "ip-b", 1_000_060);
    expect(await rows()).toEqual([]);
    clock.advance(100);
    await sightings.settled();
    expect(await rows()).toEqual([
      { visitor_id: "v1", ip_key: "ip-a", last_seen_at: 1_000_050 },
      { visitor_id: "v1", ip_key: "ip-b", last_seen_at: 1_000_060 },
    ]);
    sightings.note("v1", "ip-a", 1_000_500);
    await sightings.flush();
    expect((await rows())[0]?.last_seen_at).toBe(1_000_500);
  });

  test("a ban made a moment after a start covers the address that start came from", async () => {
    const clock = new VirtualClock(1_000_000);
    const sightings = new Sightings(database.db, { flushAfterMs: 60_000, scheduler: clock });
    sightings.note("v1", "ip-earlier", 1_000_000);
    // The offender is on another address now; the one of a moment ago is still theirs.
    expect(await banKeysOf(database.db, "v1", 1_000_010, "ip-now")).toEqual([
      "visitor:v1",
      "ip:ip-earlier",
      "ip:ip-now",
    ]);
  });
});
