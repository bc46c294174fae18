import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { StoredChatBans } from "../../src/core/chat/bans.ts";
import { ChatFloodLimits } from "../../src/core/chat/flood.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { LINK_CHATS_TO_COOL_DOWN, sendChatMessage } from "../../src/core/chat/send.ts";
import { DomainError } from "../../src/core/errors.ts";
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

  async function refusal(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
      return "sent";
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return `${error.code}${error.retryAfterSeconds ? ` ${error.retryAfterSeconds}` : ""}`;
    }
  }

  test("links sent again into the same chat count once", async () => {
    await pair("s1", "p1");
    for (let i = 0; i < LINK_CHATS_TO_COOL_DOWN + 1; i++) await send("s1", `${LINK} ${i}`);
    expect(await deps.bans.until("s1", "ip-s1")).toBeNull();
  });

  test("a muted sender's links reach nobody and cool nobody down", async () => {
    await broker.mute("s1", "ip-s1", T0 + 60 * 60 * 1000);
    for (let i = 1; i <= LINK_CHATS_TO_COOL_DOWN + 1; i++) {
      await broker.end("s1");
      await pair("s1", `p${i}`);
      await send("s1", `${LINK} ${i}`);
    }
    expect(await deps.bans.until("s1", "ip-s1")).toBeNull();
  });

  test("the flood limit refuses at once, for a second", async () => {
    await pair("s1", "p1");
    for (let i = 0; i < 10; i++) await send("s1", "hi");
    expect(await refusal(send("s1", "hi"))).toBe("RATE_LIMITED 1");
  });

  test("a banned sender of a text the rules remember is refused with the seconds left", async () => {
    await pair("s1", "p1");
    await deps.bans.put([{ key: "visitor:s1", until: clock.now() + 1500 }], clock.now());
    expect(await refusal(send("s1", "a long enough text to remember"))).toBe("CHAT_BANNED 2");
    expect(await refusal(send("s1", LINK))).toBe("CHAT_BANNED 2");
  });

  test("a text the rules remember, sent outside a chat, is NOT_FOUND", async () => {
    expect(await refusal(send("s1", "a long enough text to remember"))).toBe("NOT_FOUND");
  });

  test("the same text into a fourth chat is refused; the second refusal mutes", async () => {
    const text = "the very same long text for everyone";
    for (let i = 1; i <= 3; i++) {
      await broker.end("s1");
      await pair("s1", `p${i}`);
      await send("s1", text);
    }
    await broker.end("s1");
    await pair("s1", "p4");
    expect(await refusal(send("s1", text))).toMatch(/^SPAM_REPEATED \d+$/);
    expect(await broker.mutedUntil("s1", "ip-s1")).toBeNull();
    expect(await refusal(send("s1", text))).toMatch(/^SPAM_REPEATED \d+$/);
    expect(await broker.mutedUntil("s1", "ip-s1")).not.toBeNull();
  });

  test("a text of exactly the shortest length remembered counts as a repeat", async () => {
    const text = "abcdefghij";
    for (let i = 1; i <= 3; i++) {
      await broker.end("s1");
      await pair("s1", `p${i}`);
      await send("s1", text);
    }
    await broker.end("s1");
    await pair("s1", "p4");
    expect(await refusal(send("s1", text))).toMatch(/^SPAM_REPEATED/);
  });

  test("the sender's country tells a short national number apart", async () => {
    await pair("s1", "p1");
    const message = await sendChatMessage(
      database.db,
      deps,
      { visitorId: "s1", ipKey: "ip-s1", country: { code: "SG", name: "Singapore" } },
      "call 9123 4567",
      clock.now(),
    );
    expect(message.contact).toBe(true);
  });

  test("the link ban ends the sender's chat at once", async () => {
    for (let i = 1; i <= LINK_CHATS_TO_COOL_DOWN; i++) {
      await broker.end("s1");
      await pair("s1", `p${i}`);
      await send("s1", `${LINK} ${i}`);
    }
    expect((await broker.status("s1")).state).toBe("idle");
  });
});
