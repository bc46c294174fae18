import { randomUUID } from "node:crypto";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { DB } from "../../db/schema.ts";
import { markRightsChanged, Revocations } from "../core/auth/rights.ts";
import { type ChatBans, StoredChatBans } from "../core/chat/bans.ts";
import { restoreBlocks } from "../core/chat/blocks.ts";
import type { BrokerOptions, ChatBroker } from "../core/chat/broker.ts";
import { InMemoryChatBroker } from "../core/chat/memory-broker.ts";
import { RedisChatBroker } from "../core/chat/redis/broker.ts";
import { RedisKeys } from "../core/chat/redis/keys.ts";
import { RedisChatBans } from "../core/chat/redis-bans.ts";
import type { Time } from "../core/clock.ts";
import { ReplicatedHolds } from "../core/holds/replicated.ts";
import { MemoryRateLimiter, type RateLimiter } from "../core/limits/rate-limiter.ts";
import { RedisRateLimiter } from "../core/limits/redis-rate-limiter.ts";
import { CHAT_PASS } from "../core/pow/proof-of-work.ts";
import {
  MemoryPassStore,
  type PassStore,
  RedisPassStore,
  RedisSolutionStore,
  type SolutionStore,
  SqlSolutionStore,
} from "../core/pow/stores.ts";
import { RedisBus } from "../core/redis-bus.ts";
import type { RedisClient } from "../core/redis-script.ts";
import { isAgeGate, rememberAgeAnswers } from "../core/safety/ages.ts";
import type { Config } from "./config.ts";
import { createErrorLog } from "./error-log.ts";

/** What every instance serving one site must agree on: rate limits, bans, the chat pool. */
export interface SharedState {
  limiter: RateLimiter;
  bans: ChatBans;
  broker: ChatBroker;
  /** Revocations of an account's rights, told to every instance (on Redis) at once. */
  revocations: Revocations;
  /** Proof of work's solved challenges (the database, or Redis) and chat passes. */
  pow: { solutions: SolutionStore; passes: PassStore };
  /** Several instances share this state (on Redis): a stopping one hands its chats over. */
  shared: boolean;
  /** Times a PING to Redis, in seconds (only when the state is on Redis). */
  ping?: () => Promise<number>;
  close(): Promise<void>;
}

type ChatOptions = Pick<BrokerOptions, "resumeGraceMs" | "meetAgainAfterMs">;

/** Reconnects soon and keeps trying every second: Redis may be restarting. */
const retryStrategy = (times: number) => Math.min(100 * times, 1000);

/**
 * How the connections behave while Redis cannot be reached: a command waits for one reconnect
 * at most, then fails (the visitor is asked to try again), instead of queueing for long.
 */
const whileAway: RedisOptions = { maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy };

/** A connection to the site's Redis, or to its Redis Cluster when REDIS_URL says so. */
export function connectRedis(
  redis: Pick<NonNullable<Config["redis"]>, "url" | "urls" | "cluster">,
  options: { pipelined: boolean; subscriber: boolean },
): RedisClient {
  if (!redis.cluster) {
    return new Redis(redis.url, {
      ...whileAway,
      lazyConnect: true,
      // Commands issued in the same turn of the event loop go to Redis in one write.
      enableAutoPipelining: options.pipelined,
    });
  }
  const first = new URL(redis.url);
  const nodes = redis.urls.map((url) => {
    const { hostname, port } = new URL(url);
    return { host: hostname, port: Number(port || 6379) };
  });
  return new Cluster(nodes, {
    lazyConnect: true,
    enableAutoPipelining: options.pipelined,
    // ioredis groups auto-pipelined commands by their first argument, which for a bare EVALSHA
    // is its hash, not a key: sent as they come. Ours are defined commands (RedisScript), whose
    // first argument is a key, and go in one write with the other calls to the same node.
    autoPipeliningIgnoredCommands: ["evalsha", "eval"],
    clusterRetryStrategy: retryStrategy,
    // While the Cluster reconnects a command fails at once, as on one Redis: held back until it
    // is ready (seconds), it would run late with the time it was sent at, and a heartbeat run
    // so would tell the other instances that this one had died.
    enableOfflineQueue: false,
    // Sharded channels (each instance's life channel) are subscribed on the node of their slot.
    shardedSubscribers: options.subscriber,
    redisOptions: {
      ...whileAway,
      username: first.username ? decodeURIComponent(first.username) : undefined,
      password: first.password ? decodeURIComponent(first.password) : undefined,
      tls: first.protocol === "rediss:" ? {} : undefined,
    },
  });
}

/** How long Redis must stay reachable before an outage counts as over (a Cluster's nodes
 * come back one by one, and its client may drop them again on the way). */
const BACK_FOR_MS = 2000;

/**
 * One line when Redis can no longer be reached and one when it is back, however long it stays
 * away and however many connections notice (ioredis reports each failed attempt).
 */
function watchOutages(clients: RedisClient[], write: (line: string) => void): void {
  let downSince: number | undefined;
  let failures = 0;
  let settling: ReturnType<typeof setTimeout> | undefined;
  const down = new Set<RedisClient>();
  for (const client of clients) {
    client.on("error", (error: Error) => {
      failures += 1;
      down.add(client);
      clearTimeout(settling);
      settling = undefined;
      if (downSince !== undefined) return;
      downSince = Date.now();
      write(
        `Redis cannot be reached (${error.message}): chat, limits and bans answer "try again" until it is back`,
      );
    });
    client.on("ready", () => {
      down.delete(client);
      if (downSince === undefined || down.size > 0) return;
      clearTimeout(settling);
      settling = setTimeout(() => {
        settling = undefined;
        if (downSince === undefined || down.size > 0) return;
        const seconds = ((Date.now() - downSince) / 1000).toFixed(1);
        write(`Redis is back after ${seconds} s (${failures} failed attempts)`);
        downSince = undefined;
        failures = 0;
      }, BACK_FOR_MS);
      settling.unref?.();
    });
  }
}

/**
 * Each instance keeps the age answers it read or wrote, and tells the others of every answer it
 * writes, as news of a hold on "<gate>:<visitor>" (a refusal until its end, or a lift), so what
 * they kept of that visitor is read again (its own news comes back to it and is let pass). The
 * holds keep no copy: the answers are kept by ages.ts. After a lost connection news may have
 * been missed: everything kept is let go.
 *
 * The instance answered "under 18" ends the visitor's search or chat; a start another instance
 * let in from what it kept, landing after that end, is ended by `onRefused` when the news comes.
 */
async function shareAgeAnswers(
  db: DB,
  redis: RedisClient,
  bus: RedisBus,
  channel: string,
  now: () => number,
  onRefused: (visitorId: string) => void,
): Promise<void> {
  const news = new ReplicatedHolds({
    bus,
    publish: (to, payload) => redis.publish(to, payload),
    channel,
    self: randomUUID(),
    max: 0,
    now,
    onNews: ({ key, until }) => {
      const colon = key.indexOf(":");
      const gate = key.slice(0, colon);
      const visitorId = key.slice(colon + 1);
      if (colon < 0 || !visitorId || !isAgeGate(gate)) return;
      forget(visitorId, gate);
      if (gate === "chat" && until !== null) onRefused(visitorId);
    },
  });
  const forget = rememberAgeAnswers(db, now, (visitorId, gate, refusedUntil) => {
    news.announce(`${gate}:${visitorId}`, refusedUntil).catch(() => {});
  });
  bus.onReconnect(() => forget());
  await news.subscribe();
}

/**
 * Each revocation made on an instance is told to the others at once, which read that account's
 * rights again on its sockets' next calls. After a lost connection news may have been missed:
 * every socket reads its rights again. When the news cannot be sent, the database's mark is
 * moved instead, which every instance reads within a moment (see startApp).
 */
async function shareRevocations(
  db: DB,
  redis: RedisClient,
  bus: RedisBus,
  channel: string,
  revocations: Revocations,
  now: () => number,
  onError: (what: string, error: unknown) => void,
): Promise<void> {
  const self = randomUUID();
  revocations.tellOthersWith((accountId) => {
    redis
      .publish(channel, `${self} ${accountId}`)
      .catch(() =>
        markRightsChanged(db, now()).catch((error) => onError("telling of a revocation", error)),
      );
  });
  bus.onMessage(channel, (_channel, payload) => {
    const [from, accountId] = payload.split(" ");
    if (from === self || !accountId) return;
    revocations.heard(accountId);
  });
  bus.onReconnect(() => revocations.forgetAll());
  await bus.subscribe(channel);
}

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
      pow: {
        solutions: new SqlSolutionStore(db),
        passes: new MemoryPassStore(now, CHAT_PASS.ttlMs),
      },
      revocations: new Revocations(now),
      broker: new InMemoryChatBroker({
        time: clock,
        isBanned: (visitorId, ipKey) => bans.isBanned(visitorId, ipKey),
        ...chat,
      }),
      shared: false,
      async close() {},
    };
  }
  const { prefix } = config.redis;
  const redis = connectRedis(config.redis, { pipelined: true, subscriber: false });
  // A subscribed connection takes no other commands; ioredis subscribes it again after a drop.
  const subscriber = connectRedis(config.redis, { pipelined: false, subscriber: true });
  const errors = createErrorLog({ scheduler: clock });
  watchOutages([redis, subscriber], (line) => console.error(line));
  await Promise.all([redis.connect(), subscriber.connect()]);
  // Everything that runs scripts is made before the first command (see RedisScript).
  const bus = new RedisBus(subscriber, (what, error) => errors.fault(what, error));
  const keys = new RedisKeys(prefix);
  const limiter = new RedisRateLimiter(redis, prefix, clock);
  const pow = {
    solutions: new RedisSolutionStore(redis, prefix, clock),
    passes: new RedisPassStore(redis, prefix),
  };
  const bans = new RedisChatBans(db, redis, bus, keys, now);
  const broker: RedisChatBroker = new RedisChatBroker({
    redis,
    subscriptions: bus,
    prefix,
    time: clock,
    ...chat,
    // Redis came back empty: the bans and blocks it held are written to it again.
    onRestored: async () => {
      await bans.refresh();
      await restoreBlocks(db, broker, now());
    },
    onError: (what, error) => errors.fault(what, error),
  });
  // After a reconnect, the instance beats at once: an empty Redis is noticed without waiting.
  redis.on("ready", () => void broker.beatNow());
  const endRefused = (visitorId: string) =>
    void broker.end(visitorId).catch((error) => errors.fault("ending an under-18 chat", error));
  const revocations = new Revocations(now);
  await Promise.all([
    bans.subscribed,
    shareAgeAnswers(db, redis, bus, keys.agesChannel, now, endRefused),
    shareRevocations(db, redis, bus, keys.rightsChannel, revocations, now, (what, error) =>
      errors.fault(what, error),
    ),
  ]);
  await broker.connect();
  await bans.load();
  return {
    limiter,
    bans,
    pow,
    broker,
    revocations,
    shared: true,
    async ping() {
      const started = performance.now();
      await redis.ping();
      return (performance.now() - started) / 1000;
    },
    async close() {
      await broker.close();
      errors.close();
      await Promise.all([redis.quit(), subscriber.quit()]).catch(() => {});
    },
  };
}
