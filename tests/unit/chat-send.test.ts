import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { StoredChatBans } from "../../src/core/chat/bans.ts";
import { ChatFloodLimits } from "../../src/core/chat/flood.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { LINK_CHATS_TO_COOL_DOWN, sendChatMessage } from "../../src/core/chat/send.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import { RepeatMemory } from "../../src/core/moderation/repeats.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

const T0 = Date.UTC(2026, 0, 15, 12);
const country = { code: "TW", name: "Taiwan" };
const LINK = "find me at example.com/me";

// Contact details sent into several chats within an hour cool the sender down (a ban): the rule
// counts each sender on their own, so others' links never add to it.
describe("links spread over chats", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let clock: VirtualClock;
  let broker: InMemoryChatBroker;
  let deps: Parameters<typeof sendChatMessage>[1];
  beforeEach(async () => {
    database = await openTestDatabase();
    clock = new VirtualClock(T0);
    broker = new InMemoryChatBroker({ time: clock });
    const now = () => clock.now();
    deps = {
      broker,
      bans: await StoredChatBans.load(database.db, now),
      flood: new ChatFloodLimits(now),
      repeats: new RepeatMemory(now),
      limiter: new MemoryRateLimiter(clock),
    };
  });
  afterEach(async () => {
    await broker.close();
    database.dispose();
  });

  async function pair(a: string, b: string) {
    for (const v of [a, b]) {
      broker.listen(v, undefined, () => {});
      await broker.start({ visitorId: v, ipKey: `ip-${v}`, country });
    }
    expect((await broker.status(a)).state).toBe("chatting");
  }
  const send = (visitorId: string, text: string) =>
    sendChatMessage(database.db, deps, { visitorId, ipKey: `ip-${visitorId}` }, text, clock.now());

  test("one sender's links into three chats ban them; three senders' links ban nobody", async () => {
    for (let i = 1; i <= LINK_CHATS_TO_COOL_DOWN; i++) {
      await pair(`s${i}`, `p${i}`);
      // Each in a chat of their own, a different text: only the rule on links could act.
      expect((await send(`s${i}`, `${LINK} ${i}`)).contact).toBe(true);
    }
    for (let i = 1; i <= LINK_CHATS_TO_COOL_DOWN; i++) {
      expect(await deps.bans.until(`s${i}`, `ip-s${i}`)).toBeNull();
    }
    for (let i = 1; i <= LINK_CHATS_TO_COOL_DOWN; i++) {
      await broker.end("s1");
      clock.advance(60 * 1000);
      await pair("s1", `q${i}`);
      await send("s1", `${LINK} again ${i}`).catch(() => {});
    }
    expect(await deps.bans.until("s1", "ip-s1")).not.toBeNull();
    for (const other of ["s2", "s3"])
      expect(await deps.bans.until(other, `ip-${other}`)).toBeNull();
  });
});
