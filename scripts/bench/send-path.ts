/**
 * What our own rules cost a chat message, without the transport: sendChatMessage on the memory
 * broker, 1,000 pairs each sending in turn, timed per call. `bun scripts/bench/send-path.ts`
 */

import { StoredChatBans } from "../../src/core/chat/bans.ts";
import { ChatFloodGate } from "../../src/core/chat/flood.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { RepeatMemory } from "../../src/core/chat/repeats.ts";
import { sendChatMessage } from "../../src/core/chat/send.ts";
import { systemTime } from "../../src/core/clock.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import { openTestDatabase } from "../../tests/helpers/database.ts";

const PAIRS = 1000;
const ROUNDS = Number(process.argv[2] ?? 60);
const database = await openTestDatabase();
let clock = Date.now();
const now = () => clock;
const broker = new InMemoryChatBroker({ time: { ...systemTime, now } });
const deps = {
  broker,
  bans: await StoredChatBans.load(database.db, now),
  flood: new ChatFloodGate(now),
  repeats: new RepeatMemory(now),
  limiter: new MemoryRateLimiter({ now }),
};
const country = { countryCode: "TW", country: "Taiwan" };
for (let i = 0; i < PAIRS * 2; i++) {
  broker.listen(`v${i}`, undefined, () => {});
  await broker.start({ visitorId: `v${i}`, ipKey: `ip${i}`, country });
}
const texts = (stamp: number) => [
  `t:${stamp.toFixed(3)} how is the weather where you are today?`,
  "how is the weather where you are today, is it raining?",
  "ok",
];
for (const [label, pick] of [
  ["stamped (the chat benchmark's line)", 0],
  ["plain sentence", 1],
  ["short", 2],
] as const) {
  let calls = 0;
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    // A visitor sends one message every 300 ms: well inside the flood gate's rate.
    clock += 300;
    const started = performance.now();
    for (let i = 0; i < PAIRS * 2; i++) {
      const sender = { visitorId: `v${i}`, ipKey: `ip${i}`, countryCode: "TW" };
      await sendChatMessage(database.db, deps, sender, texts(clock + i)[pick] as string, clock);
      calls++;
    }
    const perCall = ((performance.now() - started) * 1000) / (PAIRS * 2);
    if (round >= 5) best = Math.min(best, perCall);
  }
  console.log(`${label}: best round ${best.toFixed(2)} µs per message (${calls} sent)`);
}
await broker.close();
database.dispose();
