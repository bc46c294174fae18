import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import {
  decodeHoldNews,
  encodeHoldNews,
  type HoldNews,
  type HoldsBus,
  MemoryHoldsBus,
  ReplicatedHolds,
} from "../../src/core/holds/replicated.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { eventually } from "../helpers/eventually.ts";
import { redisConnections } from "../helpers/redis.ts";

async function* holds(entries: Array<[string, number]>): AsyncIterable<[string, number]> {
  for (const entry of entries) yield entry;
}

/** Two instances' copies of one kind of holds on one bus, and a clock the test moves. */
interface Instances {
  make(name: string, max?: number, onNews?: (news: HoldNews) => void): Promise<ReplicatedHolds>;
  /** Sends a raw payload on the kind's channel, as a script in Redis (or a stranger) would. */
  send(payload: string): Promise<unknown>;
  advance(ms: number): void;
  now(): number;
}

type Buses = () => Promise<{
  channel: string;
  bus: () => Promise<{ bus: HoldsBus; publish: (c: string, p: string) => Promise<unknown> }>;
}>;

/** The contract every bus keeps (in memory, on Redis, on a Redis Cluster). */
function contract(label: string, buses: Buses, skip = false) {
  const setUp = async (): Promise<Instances> => {
    const { channel, bus } = await buses();
    let now = 1_000_000;
    const sender = await bus();
    return {
      async make(name, max = 10, onNews) {
        const { bus: b, publish } = await bus();
        const copy = new ReplicatedHolds({
          bus: b,
          publish,
          channel,
          self: name,
          max,
          now: () => now,
          onNews,
        });
        await copy.subscribe();
        await copy.reload(() => holds([]));
        return copy;
      },
      send: (payload) => sender.publish(channel, payload),
      advance: (ms) => {
        now += ms;
      },
      now: () => now,
    };
  };

  describe.skipIf(skip)(`replicated holds on ${label}`, () => {
    test("a hold announced on one copy is seen by the other; a lift too; its sender's news is not taken back", async () => {
      const { make, now } = await setUp();
      const heard: HoldNews[] = [];
      const one = await make("one", 10, (news) => heard.push(news));
      const two = await make("two");
      await two.announce("visitor:v", now() + 500);
      await eventually(() => one.until(["visitor:v", "ip:x"]) === now() + 500, "heard on one");
      expect(two.until(["visitor:v"])).toBe(now() + 500);
      // A shorter one does not shorten it.
      await two.announce("visitor:v", now() + 100);
      await eventually(() => heard.length === 2, "both heard on one");
      expect(one.until(["visitor:v"])).toBe(now() + 500);
      await one.announce("visitor:v", null);
      await eventually(() => two.until(["visitor:v"]) === null, "lifted on two");
      expect(one.until(["visitor:v"])).toBeNull();
      expect(heard.map((n) => n.from)).toEqual(["two", "two"]);
    });

    test("news written by a script (no sender) is taken by every copy", async () => {
      const { make, send, now } = await setUp();
      const one = await make("one");
      const two = await make("two");
      await send(`${now() + 300} ip:shared`);
      await eventually(() => one.until(["ip:shared"]) === now() + 300, "on one");
      await eventually(() => two.until(["ip:shared"]) === now() + 300, "on two");
    });

    test("an ended hold is gone, and one already ended is not taken", async () => {
      const { make, advance, now } = await setUp();
      const one = await make("one");
      const two = await make("two");
      await two.announce("visitor:v", now() + 100);
      await two.announce("visitor:w", now() - 1);
      await two.announce("visitor:x", now() + 1000);
      await eventually(() => one.size === 2, "two kept");
      advance(100);
      expect(one.until(["visitor:v"])).toBeNull();
      one.prune();
      expect(one.size).toBe(1);
      advance(1000);
      one.prune();
      expect(one.size).toBe(0);
    });

    test("bounded: past its room it says to ask Redis, until a reload has room", async () => {
      const { make, advance, now } = await setUp();
      const one = await make("one", 2);
      one.note("a", now() + 100);
      one.note("b", now() + 100);
      one.note("c", now() + 200);
      expect(one.size).toBe(2);
      expect(one.until(["a"])).toBeUndefined();
      expect(one.wantsReload).toBe(false);
      advance(100);
      one.prune();
      expect(one.wantsReload).toBe(true);
      await one.reload(() => holds([["c", now() + 100]]));
      expect(one.until(["c", "a"])).toBe(now() + 100);
    });

    test("a copy cannot tell before its first reload, and takes what the reload reads", async () => {
      const { channel, bus } = await buses();
      const { bus: b, publish } = await bus();
      const copy = new ReplicatedHolds({
        bus: b,
        publish,
        channel,
        self: "x",
        max: 5,
        now: () => 0,
      });
      await copy.subscribe();
      expect(copy.until(["visitor:v"])).toBeUndefined();
      await copy.reload(() => holds([["visitor:v", 50]]));
      expect(copy.until(["visitor:v"])).toBe(50);
    });

    test("malformed payloads are dropped without throwing", async () => {
      const { make, send, now } = await setUp();
      const heard: HoldNews[] = [];
      const one = await make("one", 10, (news) => heard.push(news));
      for (const payload of ["", "garbage", "12abc visitor:v", " visitor:v", "5 a b c", "5 a "]) {
        await send(payload);
      }
      await send(`${now() + 10} visitor:last`);
      await eventually(() => one.until(["visitor:last"]) !== null, "the last one");
      expect(heard).toEqual([{ key: "visitor:last", until: now() + 10 }]);
      expect(one.size).toBe(1);
    });
  });
}

describe("hold news", () => {
  test("is read back as written, with or without a sender, for a hold or a lift", () => {
    for (const news of [
      { key: "visitor:v", until: 123 },
      { key: "ip:x", until: null },
      { key: "chat:v", until: 5, from: "instance" },
      { key: "bottles:v", until: null, from: "instance" },
    ]) {
      expect(decodeHoldNews(encodeHoldNews(news))).toEqual(news);
    }
    // As the pool's mute script writes it.
    expect(decodeHoldNews("1700000000000 visitor:v")).toEqual({
      key: "visitor:v",
      until: 1700000000000,
    });
  });
});

contract("a bus in memory", async () => {
  const shared = new MemoryHoldsBus();
  return {
    channel: "holds",
    bus: async () => ({ bus: shared, publish: (c, p) => shared.publish(c, p) }),
  };
});

const connections = redisConnections();
afterAll(() => connections.close());
contract(
  connections.label,
  async () => ({
    channel: `holds-${randomBytes(4).toString("hex")}`,
    bus: async () => {
      const { redis, bus } = await connections.separate();
      return { bus, publish: (c, p) => redis.publish(c, p) };
    },
  }),
  withoutClusterServers,
);
