import { afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { RedisChatBroker } from "../../src/core/chat/redis-broker.ts";
import { brokerContract } from "../helpers/broker-contract.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { redisConnections } from "../helpers/redis.ts";

// Run by `CLUSTER=1 ./scripts/test`, which starts a throwaway Redis (and a Redis Cluster) and
// names it in TEST_REDIS_URL.
const connections = redisConnections();
afterAll(() => connections.close());

brokerContract(`on ${connections.label}`, withoutClusterServers, async (options) => {
  const { redis, bus } = await connections.open();
  const time = new VirtualClock();
  const broker = new RedisChatBroker({
    ...options,
    redis,
    subscriptions: bus,
    // A fresh namespace per test: its own pool, streams and chats.
    prefix: `test:${randomBytes(6).toString("hex")}:`,
    time,
    sweepEveryMs: 100,
    onError: (what, error) => console.error(what, error),
  });
  await broker.connect();
  return {
    broker,
    now: time.now,
    async advance(ms) {
      time.advance(ms);
      await broker.settled();
    },
  };
});
