import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { RedisKeys } from "../../src/core/chat/redis/keys.ts";
import { RedisChatBans } from "../../src/core/chat/redis-bans.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { openTestDatabase } from "../helpers/database.ts";
import { eventually } from "../helpers/eventually.ts";
import { redisConnections } from "../helpers/redis.ts";

// The chat bans every instance shares, on the Redis of `CLUSTER=1 ./scripts/test`: two
// instances (each with its own connections and its copy in memory) on one database.
const connections = redisConnections();
const databases: Array<{ dispose(): Promise<void> }> = [];
afterAll(async () => {
  connections.close();
  for (const d of databases) await d.dispose();
});

async function instances() {
  const database = await openTestDatabase();
  databases.push(database);
  const keys = new RedisKeys(`bans-${randomBytes(4).toString("hex")}:`);
  let now = Date.now();
  const make = async () => {
    const { redis, bus } = await connections.separate();
    const bans = new RedisChatBans(database.db, redis, bus, keys, () => now);
    await bans.subscribed;
    return { bans, redis };
  };
  const [one, two] = await Promise.all([make(), make()]);
  return { db: database.db, keys, one, two, advance: (ms: number) => (now += ms), now: () => now };
}

describe.skipIf(withoutClusterServers)(`chat bans on ${connections.label}`, () => {
  test("a ban made on one instance holds on the other at once, and a ban in force is never shortened", async () => {
    const { one, two, now } = await instances();
    const until = now() + 60_000;
    await one.bans.put([{ key: "visitor:v1", until }], now());
    await eventually(
      async () => (await two.bans.until("v1", "elsewhere")) === until,
      "the ban on the other instance",
      1000,
    );
    await two.bans.put([{ key: "visitor:v1", until: now() + 1000 }], now());
    expect(await one.bans.until("v1", "elsewhere")).toBe(until);
    expect(await two.bans.until("v1", "elsewhere")).toBe(until);
  });

  test("of two bans claimed at once on two instances, one wins", async () => {
    const { one, two, now } = await instances();
    const claims = await Promise.all([
      one.bans.claim("v2", now() + 60_000),
      two.bans.claim("v2", now() + 60_000),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  test("a ban by address covers every visitor from it; lifted on one instance, it is lifted on both", async () => {
    const { one, two, now } = await instances();
    await one.bans.put([{ key: "ip:shared", until: now() + 60_000 }], now());
    await eventually(async () => (await two.bans.until("anyone", "shared")) !== null, "seen", 1000);
    await two.bans.lift(["ip:shared"]);
    await eventually(
      async () => (await one.bans.until("anyone", "shared")) === null,
      "lifted",
      1000,
    );
  });

  test("an operator's ban, written to the database only, is read by each instance and written to Redis again after it lost it", async () => {
    const { db, keys, one, two, now } = await instances();
    const until = now() + 60_000;
    await db
      .insertInto("chat_bans")
      .values({ key: "visitor:op", until, created_at: now() })
      .execute();
    expect(await one.bans.refresh()).toEqual([{ key: "visitor:op", until }]);
    // The other instance heard of it already, so it is not new there.
    await eventually(async () => (await two.bans.until("op", "x")) === until, "heard", 1000);
    expect(await two.bans.refresh()).toEqual([]);
    // Redis restarted empty: the next read writes it again, where the chat's scripts look.
    await one.redis.del(keys.pool("bans"));
    await one.bans.refresh();
    expect(Number(await one.redis.hget(keys.pool("bans"), "visitor:op"))).toBe(until);
  });
});
