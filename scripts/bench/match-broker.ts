/**
 * Matching inside one broker, without the network: `visitors` visitors listen, then each
 * presses start in turn; the time of each start call (the pool scan and the pairing, one atomic
 * step) is measured, with and without preferences (drawn as load-match.ts draws them). On
 * Redis too when REDIS_URL is set.
 *
 *   bun scripts/bench/match-broker.ts [visitors]
 */
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { matchPreferencesInput } from "../../src/common/chat-preferences.ts";
import type { ChatBroker } from "../../src/core/chat/broker.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { matchPreferencesOf } from "../../src/core/chat/preferences.ts";
import { RedisChatBroker } from "../../src/core/chat/redis-broker.ts";
import { RedisBus } from "../../src/core/redis-bus.ts";
import { readRedis } from "./cluster/lib.ts";
import { round, summarize } from "./lib.ts";
import { drawPreferences } from "./load-match.ts";

const count = Number(process.argv[2] ?? 2000);

/** Redis's CPU so far, in µs, when a Redis is given. */
const redisCpuUs = async (redis: Redis | undefined) =>
  redis ? (await readRedis([redis])).cpu * 1e6 : 0;

async function run(
  name: string,
  make: () => Promise<ChatBroker>,
  withPreferences: boolean,
  redis?: Redis,
) {
  const broker = await make();
  const asked = drawPreferences(count, 2026).map((json) =>
    matchPreferencesOf(matchPreferencesInput.parse(JSON.parse(json))),
  );
  const abort = new AbortController();
  const ids = Array.from({ length: count }, (_, i) => `bench-${i}`);
  // Each visitor listening, its first batch read (the stream is open).
  await Promise.all(
    ids.map(async (id) => {
      const stream = broker.events(id, null, abort.signal);
      await stream.next();
      void (async () => {
        for await (const _ of stream);
      })();
    }),
  );
  const times: number[] = [];
  let paired = 0;
  const cpuBefore = await redisCpuUs(redis);
  for (const [i, id] of ids.entries()) {
    const preferences = withPreferences ? asked[i] : undefined;
    const started = performance.now();
    const status = await broker.start({
      visitorId: id,
      ipKey: `ip-${id}`,
      country: { countryCode: "TW", country: "Taiwan" },
      ...(preferences ? { preferences } : {}),
    });
    times.push(performance.now() - started);
    if (status.state === "chatting") paired += 2;
  }
  const cpu = (await redisCpuUs(redis)) - cpuBefore;
  const t = summarize(times);
  console.log(
    JSON.stringify({
      broker: name,
      preferences: withPreferences,
      visitors: count,
      pairedAtOnce: paired,
      p50: round(t.p50, 3),
      p99: round(t.p99, 3),
      max: round(t.max, 3),
      ...(redis ? { redisCpuUsPerStart: round(cpu / count, 1) } : {}),
    }),
  );
  abort.abort();
  await broker.close();
}

for (const prefs of [false, true]) {
  await run("memory", async () => new InMemoryChatBroker({ resumeGraceMs: 600_000 }), prefs);
}
const url = process.env.REDIS_URL;
if (url) {
  const probe = new Redis(url);
  const connections: Redis[] = [probe];
  for (const prefs of [false, true]) {
    await run(
      "redis",
      async () => {
        const redis = new Redis(url);
        const subscriber = new Redis(url);
        connections.push(redis, subscriber);
        const broker = new RedisChatBroker({
          redis,
          subscriptions: new RedisBus(subscriber),
          prefix: `bench:${randomBytes(6).toString("hex")}:`,
          resumeGraceMs: 600_000,
        });
        await broker.connect();
        return broker;
      },
      prefs,
      probe,
    );
  }
  for (const c of connections) c.disconnect();
}
process.exit(0);
