import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  BAN_STEPS_MS,
  banAutomatically,
  escalate,
  purgeBanHistory,
  purgeSightings,
  SIGHTING_WINDOW_MS,
  STEP_FORGOTTEN_AFTER_MS,
  StoredChatBans,
  storeKeyBans,
} from "../../src/core/chat/bans.ts";
import { BLOCK_MS, blockPartner, purgeBlocks, restoreBlocks } from "../../src/core/chat/blocks.ts";
import { latestHold } from "../../src/core/chat/holds.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { HANDLED_REPORTS_KEPT_MS, purgeHandledReports } from "../../src/core/chat/reports.ts";
import { openTestDatabase } from "../helpers/database.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 0, 15, 12);

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeEach(async () => {
  database = await openTestDatabase();
});
afterEach(() => database.dispose());

// What the chat keeps of people leaves the database once it no longer counts, and not before.
describe("what the chat keeps leaves once it no longer counts", () => {
  test("a ban that has ended goes, one in force stays", async () => {
    const { db } = database;
    await storeKeyBans(
      db,
      [
        { key: "visitor:ended", until: NOW },
        { key: "visitor:holds", until: NOW + 1 },
      ],
      NOW - DAY,
    );
    await purgeBanHistory(db, NOW);
    const left = await db.selectFrom("chat_bans").select("key").execute();
    expect(left.map((row) => row.key)).toEqual(["visitor:holds"]);
  });

  test("a ladder step goes once all of it is forgotten, hundreds at a time", async () => {
    const { db } = database;
    const forgotten = Array.from({ length: 1200 }, (_, i) => ({
      key: `visitor:old${i}`,
      step: 1,
      last_at: NOW - STEP_FORGOTTEN_AFTER_MS,
    }));
    await db.insertInto("ban_steps").values(forgotten.slice(0, 600)).execute();
    await db.insertInto("ban_steps").values(forgotten.slice(600)).execute();
    await db
      .insertInto("ban_steps")
      .values([
        { key: "visitor:recent", step: 1, last_at: NOW - STEP_FORGOTTEN_AFTER_MS + 1 },
        { key: "visitor:high", step: 2, last_at: NOW - STEP_FORGOTTEN_AFTER_MS },
      ])
      .execute();
    await purgeBanHistory(db, NOW);
    const left = await db.selectFrom("ban_steps").select("key").orderBy("key").execute();
    expect(left.map((row) => row.key)).toEqual(["visitor:high", "visitor:recent"]);
  });

  test("an address a visitor was seen with is kept a day", async () => {
    const { db } = database;
    await db
      .insertInto("visitor_addresses")
      .values([
        { visitor_id: "v1", ip_key: "day-old", last_seen_at: NOW - SIGHTING_WINDOW_MS },
        { visitor_id: "v1", ip_key: "recent", last_seen_at: NOW - SIGHTING_WINDOW_MS + 1 },
      ])
      .execute();
    expect(SIGHTING_WINDOW_MS).toBe(DAY);
    await purgeSightings(db, NOW);
    const left = await db.selectFrom("visitor_addresses").select("ip_key").execute();
    expect(left.map((row) => row.ip_key)).toEqual(["recent"]);
  });

  test("a handled report goes after 90 days with its text; an open one stays", async () => {
    const { db } = database;
    const report = (message_id: string, handled_at: number | null) => ({
      reported_visitor_id: "offender",
      reported_ip_key: "ip-o",
      reporter_visitor_id: "reporter",
      message_id,
      message_content: "the text",
      reason: "harassment",
      is_safe: 1,
      created_at: NOW - 200 * DAY,
      handled_at,
    });
    await db
      .insertInto("chat_reports")
      .values([
        report("over", NOW - HANDLED_REPORTS_KEPT_MS - 1),
        report("exactly", NOW - HANDLED_REPORTS_KEPT_MS),
        report("open", null),
      ])
      .execute();
    expect(HANDLED_REPORTS_KEPT_MS).toBe(90 * DAY);
    await purgeHandledReports(db, NOW);
    const left = await db
      .selectFrom("chat_reports")
      .select("message_id")
      .orderBy("message_id")
      .execute();
    expect(left.map((row) => row.message_id)).toEqual(["exactly", "open"]);
  });

  test("a block goes when it ends; one still holding is restored to a new broker", async () => {
    const { db } = database;
    const block = (blocked: string, until: number) => ({
      blocker_visitor_id: "blocker",
      blocked_visitor_id: blocked,
      blocked_ip_key: `ip-${blocked}`,
      created_at: NOW - BLOCK_MS,
      until,
    });
    await db
      .insertInto("chat_blocks")
      .values([block("ended", NOW), block("holds", NOW + 1)])
      .execute();
    const remembered: string[] = [];
    const broker = new InMemoryChatBroker();
    const rememberBlock = broker.rememberBlock.bind(broker);
    broker.rememberBlock = async (blocker, blocked, until) => {
      remembered.push(`${blocker} ${blocked.visitorId} ${blocked.ipKey} ${until}`);
      await rememberBlock(blocker, blocked, until);
    };
    expect(await restoreBlocks(db, broker, NOW)).toBe(1);
    expect(remembered).toEqual([`blocker holds ip-holds ${NOW + 1}`]);
    await purgeBlocks(db, NOW);
    const left = await db.selectFrom("chat_blocks").select("blocked_visitor_id").execute();
    expect(left.map((row) => row.blocked_visitor_id)).toEqual(["holds"]);
    broker.close();
  });
});

describe("automatic bans and the bans kept by one process", () => {
  test("an automatic ban climbs the visitor's ladder; their addresses get the first rung only", async () => {
    const { db } = database;
    const now = NOW;
    const bans = await StoredChatBans.load(db, () => now);
    // A ban a week ago: the next one is the second rung.
    await escalate(db, ["visitor:v1"], now - 7 * DAY);
    await db
      .insertInto("visitor_addresses")
      .values({ visitor_id: "v1", ip_key: "school", last_seen_at: now - HOUR })
      .execute();
    const result = await banAutomatically(
      db,
      bans,
      { visitorId: "v1", ipKey: "home" },
      "escalate",
      now,
    );
    expect(result?.until).toBe(now + (BAN_STEPS_MS[1] as number));
    expect(result?.bans.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      { key: "ip:home", until: now + (BAN_STEPS_MS[0] as number) },
      { key: "ip:school", until: now + (BAN_STEPS_MS[0] as number) },
      { key: "visitor:v1", until: now + (BAN_STEPS_MS[1] as number) },
    ]);
    // Only the visitor climbed: the school's address starts a later ban from the first rung.
    const steps = await db.selectFrom("ban_steps").selectAll().orderBy("key").execute();
    expect(steps.map((row) => `${row.key} ${row.step}`)).toEqual(["visitor:v1 2"]);
  });

  test("a visitor may be banned again the moment a ban ends, not before", async () => {
    let now = NOW;
    const bans = await StoredChatBans.load(database.db, () => now);
    expect(await bans.claim("v1", now + HOUR)).toBe(true);
    expect(await bans.claim("v1", now + 2 * HOUR)).toBe(false);
    now += HOUR - 1;
    expect(await bans.claim("v1", now + HOUR)).toBe(false);
    now += 1;
    expect(await bans.claim("v1", now + HOUR)).toBe(true);
  });

  test("bans an operator wrote are read in and named once; those lifted are gone", async () => {
    const { db } = database;
    const now = NOW;
    const bans = await StoredChatBans.load(db, () => now);
    await storeKeyBans(db, [{ key: "visitor:v1", until: now + DAY }], now);
    await storeKeyBans(db, [{ key: "ip:net", until: now - 1 }], now - DAY);
    expect(await bans.refresh()).toEqual([{ key: "visitor:v1", until: now + DAY }]);
    expect(await bans.until("v1", "any")).toBe(now + DAY);
    expect(await bans.refresh()).toEqual([]);
    // Made longer by the operator: named again.
    await storeKeyBans(db, [{ key: "visitor:v1", until: now + 2 * DAY }], now);
    expect(await bans.refresh()).toEqual([{ key: "visitor:v1", until: now + 2 * DAY }]);
    await db.deleteFrom("chat_bans").execute();
    expect(await bans.refresh()).toEqual([]);
    expect(await bans.until("v1", "any")).toBeNull();
  });

  test("bans in force are read at start; none to write writes nothing", async () => {
    const { db } = database;
    await storeKeyBans(db, [], NOW);
    await storeKeyBans(
      db,
      [
        { key: "visitor:v1", until: NOW + 1 },
        { key: "visitor:v2", until: NOW },
      ],
      NOW,
    );
    const bans = await StoredChatBans.load(db, () => NOW);
    expect(await bans.until("v1", "x")).toBe(NOW + 1);
    expect(await bans.until("v2", "x")).toBeNull();
  });
});

describe("how long a block and a hold keep people apart", () => {
  test("a block keeps the two apart 30 days, by the blocked one's id and address", async () => {
    const { db } = database;
    const broker = new InMemoryChatBroker();
    const visitor = (visitorId: string) => ({
      visitorId,
      ipKey: `ip-${visitorId}`,
      country: { code: null, name: "Unknown" },
    });
    const stops = ["a", "b"].map((id) => broker.listen(id, null, () => {}));
    await broker.start(visitor("a"));
    await broker.start(visitor("b"));
    expect((await broker.status("a")).state).toBe("chatting");
    await blockPartner(db, broker, "a", NOW);
    const rows = await db.selectFrom("chat_blocks").selectAll().execute();
    expect(rows).toEqual([
      {
        blocker_visitor_id: "a",
        blocked_visitor_id: "b",
        blocked_ip_key: "ip-b",
        created_at: NOW,
        until: NOW + 30 * DAY,
      },
    ]);
    expect(BLOCK_MS).toBe(30 * DAY);
    for (const stop of stops) stop();
    broker.close();
  });

  test("a hold ends at its end: then it is forgotten, and the latest in force counts", () => {
    const ends = new Map([
      ["visitor:a", NOW + 2 * HOUR],
      ["ip:a", NOW + HOUR],
      ["visitor:b", NOW],
    ]);
    // The latest, in either order of the keys.
    expect(latestHold(ends, ["visitor:a", "ip:a"], NOW)).toBe(NOW + 2 * HOUR);
    expect(latestHold(ends, ["ip:a", "visitor:a"], NOW)).toBe(NOW + 2 * HOUR);
    // Ending now is ended.
    expect(latestHold(ends, ["visitor:b"], NOW)).toBeNull();
    expect(ends.has("visitor:b")).toBe(false);
    expect(latestHold(ends, ["visitor:c"], NOW)).toBeNull();
  });
});
