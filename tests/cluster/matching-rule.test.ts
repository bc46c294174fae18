import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { INTEREST_WINDOW_MS, MATCH_FALLBACK_MS } from "../../src/common/chat-preferences.ts";
import type { ChatBroker } from "../../src/core/chat/broker.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import {
  anyoneFrom,
  bestTierOf,
  type MatchPreferences,
  type Seeker,
  tierOf,
} from "../../src/core/chat/preferences.ts";
import { RedisChatBroker } from "../../src/core/chat/redis/broker.ts";
import { MATCHING_RULE } from "../../src/core/chat/redis/lua/pool/matching-rule.ts";
import { open, visitor } from "../helpers/broker-contract.ts";
import { isType } from "../helpers/chat-client.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { redisConnections } from "../helpers/redis.ts";

// The matching rule is stated in TypeScript (preferences.ts: the memory broker's) and in Lua
// (the pool's scripts): these check the two give the same answers, on random visitors.
const connections = redisConnections();
afterAll(() => connections.close());

const LANGUAGES = ["en", "ja", "ko", "zh", "fr"];
const INTERESTS = ["hiking", "music", "chess", "cooking", "films"];

/** A small random generator of our own, so a failing run can be repeated from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomPreferences(next: () => number): MatchPreferences | undefined {
  if (next() < 0.2) return undefined;
  // One language, sometimes more: visitors who share none wait side by side in the pool.
  const first = LANGUAGES[Math.floor(next() * LANGUAGES.length)];
  return {
    languages: LANGUAGES.filter((language) => language === first || next() < 0.2),
    interests: INTERESTS.filter(() => next() < 0.3).map((key) => ({ key, label: key })),
  };
}

/** A seeker as the pool's Lua holds one (redis/pairing.ts writes what they asked so). */
const asLua = (seeker: Seeker) => ({
  languages: seeker.preferences?.languages.length
    ? ` ${seeker.preferences.languages.join(" ")} `
    : undefined,
  interest_keys: seeker.preferences?.interests.length
    ? `\n${seeker.preferences.interests.map((i) => i.key).join("\n")}\n`
    : undefined,
  anyone_from: seeker.anyoneFrom,
  waiting_since: seeker.since,
});

// The rule's Lua, with `now` and the cases as its inputs; answers each case's tiers.
const RULE_CHECK = `
local now = tonumber(ARGV[1])
${MATCHING_RULE}
local out = {}
for _, case in ipairs(cjson.decode(ARGV[2])) do
  out[#out + 1] = { tier_of(case[1], case[2]), best_tier_of(case[1]) }
end
return cjson.encode(out)
`;

describe.skipIf(withoutClusterServers)(`on ${connections.label}: the matching rule`, () => {
  test("the Lua tiers are preferences.ts's, for 3,000 random pairs of visitors", async () => {
    const { redis } = await connections.open();
    const next = random(7);
    const now = 100_000;
    const cases: Array<[Seeker, Seeker]> = Array.from({ length: 3000 }, () => {
      const seeker = (): Seeker => {
        const preferences = randomPreferences(next);
        const since = now - Math.floor(next() * 2 * MATCH_FALLBACK_MS);
        // Some just inside or outside their interest window, to the millisecond.
        const edge = next() < 0.1 ? now - INTEREST_WINDOW_MS + Math.floor(next() * 3) - 1 : since;
        return {
          ...(preferences ? { preferences } : {}),
          since: edge,
          anyoneFrom: next() < 0.2 ? 0 : anyoneFrom(preferences, edge),
        };
      };
      return [seeker(), seeker()];
    });
    const answer = await redis.eval(
      RULE_CHECK,
      0,
      now,
      JSON.stringify(cases.map(([a, b]) => [asLua(a), asLua(b)])),
    );
    const lua = JSON.parse(String(answer)) as Array<[number, number]>;
    const typescript = cases.map(([a, b]): [number, number] => [tierOf(a, b, now), bestTierOf(a)]);
    expect(lua).toEqual(typescript);
    // The random pairs reach every tier.
    expect(new Set(typescript.map(([tier]) => tier))).toEqual(new Set([-1, 0, 1, 2]));
  });

  test("the Redis pool pairs as the memory broker does: random starts and widenings", async () => {
    const { redis, bus } = await connections.open();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const redisTime = new VirtualClock();
      const memoryTime = new VirtualClock();
      /** Work the Redis broker's timers started, still running. */
      const background = new Set<Promise<unknown>>();
      const onRedis = new RedisChatBroker({
        resumeGraceMs: 60_000,
        redis,
        subscriptions: bus,
        prefix: `test:${randomBytes(6).toString("hex")}:`,
        time: redisTime,
        sweepEveryMs: 100,
        onError: (what, error) => console.error(what, error),
        onBackground: (work) => {
          background.add(work);
          void work.finally(() => background.delete(work));
        },
      });
      await onRedis.connect();
      const inMemory = new InMemoryChatBroker({ resumeGraceMs: 60_000, time: memoryTime });
      const brokers: ChatBroker[] = [onRedis, inMemory];
      try {
        const next = random(seed);
        const ids = Array.from({ length: 30 }, (_, i) => `v${i}`);
        const streams = brokers.flatMap((b) => ids.map((id) => open(b, id)));
        await Promise.all(streams.map((s) => s.waitFor(isType("status"))));
        const pairing = async (b: ChatBroker) => {
          const partners: Record<string, string> = {};
          const chats = new Map<string, string>();
          for (const id of ids) {
            const status = await b.status(id);
            if (status.state === "waiting") partners[id] = "waiting";
            if (status.state !== "chatting") continue;
            const other = chats.get(status.chatId);
            if (other) {
              partners[id] = other;
              partners[other] = id;
            } else {
              chats.set(status.chatId, id);
            }
          }
          return partners;
        };
        for (const id of ids) {
          const preferences = randomPreferences(next);
          const widenSomeone = next() < 0.3;
          const step = Math.floor(next() * 90);
          const pick = Math.floor(next() * ids.length);
          for (const b of brokers) {
            await b.start({ ...visitor(id), ...(preferences ? { preferences } : {}) });
          }
          // Someone waiting takes anyone from now on (the same one on both).
          const waiting = Object.entries(await pairing(inMemory))
            .filter(([, partner]) => partner === "waiting")
            .map(([waiter]) => waiter);
          const widened = waiting[pick % Math.max(1, waiting.length)];
          if (widenSomeone && widened) for (const b of brokers) await b.widen(widened);
          // Time passes, but less than an interest window all told (the instance looks again a
          // moment after a stage ends, which a step could fall between): only widening makes a
          // language or anyone do. The first test covers stages ending.
          redisTime.advance(step);
          memoryTime.advance(step);
          while (background.size > 0) await Promise.all([...background]);
          expect({ seed, id, pairs: await pairing(onRedis) }).toEqual({
            seed,
            id,
            pairs: await pairing(inMemory),
          });
        }
        await Promise.all(streams.map((s) => s.stop()));
      } finally {
        await onRedis.close();
        await inMemory.close();
      }
    }
  }, 60_000);
});
