import { afterAll, describe } from "bun:test";
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { RedisChatBroker } from "../../src/core/chat/redis-broker.ts";
import { brokerContract } from "../helpers/broker-contract.ts";
import { clusterServers, withoutClusterServers } from "../helpers/cluster-servers.ts";

// Run by `CLUSTER=1 ./scripts/test`, which starts a throwaway Redis and names it here.
const url = clusterServers?.redisUrl ?? "";
const connections: Redis[] = [];
afterAll(() => {
  for (const c of connections) c.disconnect();
});

describe.skipIf(withoutClusterServers)("the Redis broker", () => {
  brokerContract("on Redis", async (options) => {
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
  });
});
