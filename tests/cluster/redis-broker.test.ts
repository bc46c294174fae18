import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { matchPreferencesOf } from "../../src/core/chat/preferences.ts";
import { RedisChatBroker } from "../../src/core/chat/redis-broker.ts";
import { brokerContract, type ContractOptions, open, visitor } from "../helpers/broker-contract.ts";
import { isType } from "../helpers/chat.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";
import { preferencesContract } from "../helpers/preferences-contract.ts";

// Run by `CLUSTER=1 ./scripts/test`, which starts a throwaway Redis and names it here.
const url = clusterServers?.redisUrl ?? "";
const connections: Redis[] = [];
afterAll(() => {
  for (const c of connections) c.disconnect();
});

describe.skipIf(withoutClusterServers)("the Redis broker", () => {
  const make = async (options: ContractOptions) => {
    const redis = new Redis(url);
    const subscriber = new Redis(url);
    connections.push(redis, subscriber);
    return new RedisChatBroker({
      ...options,
      redis,
      subscriber,
      // A fresh namespace per test: its own pool, streams and chats.
      prefix: `test:${randomBytes(6).toString("hex")}:`,
      aliveTtlMs: 600,
      sweepEveryMs: 100,
    });
  };
  brokerContract("on Redis", make);
  preferencesContract("on Redis", make);

  test("languages and interests are kept in the pool only: gone from Redis once paired", async () => {
    const redis = new Redis(url);
    const subscriber = new Redis(url);
    connections.push(redis, subscriber);
    const prefix = `test:${randomBytes(6).toString("hex")}:`;
    const b = new RedisChatBroker({ redis, subscriber, prefix, resumeGraceMs: 60_000 });
    try {
      const preferences = matchPreferencesOf({ languages: ["en"], interests: ["hiking"] });
      const streams = [];
      for (const id of ["a", "b"]) {
        const stream = open(b, id);
        await stream.waitFor(isType("status"));
        streams.push(stream);
      }
      await b.start({ ...visitor("a"), ...(preferences ? { preferences } : {}) });
      expect(await redis.hget(`${prefix}v:a`, "ikeys")).toBe("\nhiking\n");
      await b.start({ ...visitor("b"), ...(preferences ? { preferences } : {}) });
      for (const stream of streams) await stream.waitFor(isType("matched"));
      for (const id of ["a", "b"]) {
        const kept = await redis.hgetall(`${prefix}v:${id}`);
        expect(Object.keys(kept).sort()).toEqual(["chat", "country", "cc", "ip", "since"].sort());
        expect(JSON.stringify(kept)).not.toContain("hiking");
      }
      for (const stream of streams) stream.stop();
    } finally {
      await b.close();
    }
  });
});
