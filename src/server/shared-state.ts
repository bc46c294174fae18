import Redis from "ioredis";
import type { DB } from "../../db/schema.ts";
import { type ChatBans, RedisChatBans, StoredChatBans } from "../core/chat/bans.ts";
import type { BrokerOptions, ChatBroker } from "../core/chat/broker.ts";
import { InMemoryChatBroker } from "../core/chat/memory-broker.ts";
import { RedisChatBroker } from "../core/chat/redis-broker.ts";
import type { Time } from "../core/clock.ts";
import { MemoryRateLimiter, type RateLimiter } from "../core/limits/rate-limiter.ts";
import { RedisRateLimiter } from "../core/limits/redis-rate-limiter.ts";
import type { Config } from "./config.ts";

/** What every instance serving one site must agree on: rate limits, bans, the chat pool. */
export interface SharedState {
  limiter: RateLimiter;
  bans: ChatBans;
  broker: ChatBroker;
  /** Several instances share this state (on Redis): a stopping one hands its chats over. */
  shared: boolean;
  /** Times a PING to Redis, in seconds (only when the state is on Redis). */
  ping?: () => Promise<number>;
  close(): Promise<void>;
}

type ChatOptions = Pick<BrokerOptions, "resumeGraceMs" | "meetAgainAfterMs">;

/**
 * In memory for a site that runs as one process; on Redis when REDIS_URL is set, so that
 * several instances behind a load balancer share them.
 */
export async function openSharedState(
  config: Config,
  db: DB,
  clock: Time,
  chat: ChatOptions = {},
): Promise<SharedState> {
  const now = clock.now;
  if (!config.redis) {
    const bans = await StoredChatBans.load(db, now);
    return {
      limiter: new MemoryRateLimiter(clock),
      bans,
      broker: new InMemoryChatBroker({
        time: clock,
        isBanned: (visitorId, ipKey) => bans.isBanned(visitorId, ipKey),
        ...chat,
      }),
      shared: false,
      async close() {},
    };
  }
  const { url, prefix } = config.redis;
  // Commands issued in the same turn of the event loop go to Redis in one write.
  const redis = new Redis(url, { enableAutoPipelining: true, lazyConnect: true });
  // A subscribed connection takes no other commands; ioredis subscribes it again after a drop.
  const subscriber = new Redis(url, { lazyConnect: true });
  await Promise.all([redis.connect(), subscriber.connect()]);
  const broker = new RedisChatBroker({ redis, subscriber, prefix, time: clock, ...chat });
  return {
    limiter: new RedisRateLimiter(redis, prefix, clock),
    bans: new RedisChatBans(db, redis, prefix, now),
    broker,
    shared: true,
    async ping() {
      const started = performance.now();
      await redis.ping();
      return (performance.now() - started) / 1000;
    },
    async close() {
      await broker.close();
      await Promise.all([redis.quit(), subscriber.quit()]).catch(() => {});
    },
  };
}
