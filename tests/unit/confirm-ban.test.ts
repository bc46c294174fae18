import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  BAN_STEPS_MS,
  banAutomatically,
  confirmBan,
  StoredChatBans,
} from "../../src/core/chat/bans.ts";
import { banStepOf, openTestDatabase } from "../helpers/database.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 15, 12);
const offender = { visitorId: "v1", ipKey: "ip-a" };

// An operator confirms a reported visitor's ban from the queue (see confirmBan): what it bans,
// against what the site's own rules banned already.
describe("confirming a ban from the queue", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let now = T0;
  let bans: StoredChatBans;
  beforeEach(async () => {
    database = await openTestDatabase();
    now = T0;
    bans = await StoredChatBans.load(database.db, () => now);
  });
  afterEach(() => database.dispose());

  const step = (key: string) => banStepOf(database.db, key);

  test("after the automatic ban for the same reports has run out, it bans again a rung higher", async () => {
    const automatic = await banAutomatically(database.db, bans, offender, "escalate", T0);
    expect(automatic?.until).toBe(T0 + HOUR);
    now = T0 + 2 * HOUR;
    const confirmed = await confirmBan(database.db, bans, offender, T0 - 1000, now);
    expect(confirmed.until).toBe(now + 6 * HOUR);
    expect(await bans.until(offender.visitorId, offender.ipKey)).toBe(now + 6 * HOUR);
  });

  test("reports that came after the automatic ban climb again, though it still holds", async () => {
    await banAutomatically(database.db, bans, offender, "escalate", T0);
    now = T0 + 30 * 60 * 1000;
    const confirmed = await confirmBan(database.db, bans, offender, T0 + 10 * 60 * 1000, now);
    expect(confirmed.until).toBe(now + 6 * HOUR);
  });

  test("reports the automatic ban already answered do not climb twice", async () => {
    await banAutomatically(database.db, bans, offender, "escalate", T0);
    now = T0 + 30 * 60 * 1000;
    const confirmed = await confirmBan(database.db, bans, offender, T0 - 1000, now);
    expect(confirmed.until).toBe(T0 + HOUR);
    expect(await step("ip:ip-a")).toBe(1);
  });

  test("a child-safety hold (no rung taken) climbs from the first rung", async () => {
    const held = await banAutomatically(database.db, bans, offender, "hold", T0);
    expect(held?.until).toBe(T0 + HOUR);
    expect(await step("visitor:v1")).toBeUndefined();
    now = T0 + 10 * 60 * 1000;
    const confirmed = await confirmBan(database.db, bans, offender, T0 - 1000, now);
    expect(confirmed.until).toBe(now + HOUR);
    expect(await step("visitor:v1")).toBe(1);
    expect(await step("ip:ip-a")).toBe(1);
  });

  test("a ban in force longer than the next rung is never shortened", async () => {
    const week = T0 + BAN_STEPS_MS[4];
    await bans.put([{ key: "visitor:v1", until: week }], T0);
    now = T0 + DAY;
    const confirmed = await confirmBan(database.db, bans, offender, T0 + HOUR, now);
    expect(confirmed.until).toBe(week);
    expect(await bans.until(offender.visitorId, offender.ipKey)).toBe(week);
  });
});

describe("bans kept by one process", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.dispose());

  test("a ban holds until its end, not a moment longer, and a lifted one is gone", async () => {
    let now = T0;
    const bans = await StoredChatBans.load(database.db, () => now);
    await bans.put([{ key: "ip:ip-a", until: T0 + HOUR }], T0);
    now = T0 + HOUR - 1;
    expect(await bans.until("anyone", "ip-a")).toBe(T0 + HOUR);
    expect(bans.isBanned("anyone", "ip-a")).toBe(true);
    now = T0 + HOUR;
    expect(await bans.until("anyone", "ip-a")).toBeNull();
    expect(bans.isBanned("anyone", "ip-a")).toBe(false);
    await bans.put([{ key: "visitor:v1", until: T0 + 2 * DAY }], now);
    await bans.lift(["visitor:v1"]);
    expect(await bans.until("v1", "ip-b")).toBeNull();
  });
});
