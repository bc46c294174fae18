import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { StoredChatBans } from "../../src/core/chat/bans.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { reportChatMessage } from "../../src/core/chat/reports.ts";
import { DomainError } from "../../src/core/errors.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import type { Moderator } from "../../src/core/moderation/moderator.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

const T0 = Date.UTC(2026, 0, 15, 12);
const country = { countryCode: "TW", country: "Taiwan" };
const safe: Moderator = { check: async () => ({ safe: true, reasons: [] }) };
const broken: Moderator = {
  check: async () => {
    throw new Error("the moderation service is down");
  },
};

// Reports of a partner's message, in core (tests/abuse/reports.test.ts tries the same rules
// over HTTP as an attacker would).
describe("reporting a chat message", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let clock: VirtualClock;
  let broker: InMemoryChatBroker;
  let bans: StoredChatBans;
  beforeEach(async () => {
    database = await openTestDatabase();
    clock = new VirtualClock(T0);
    broker = new InMemoryChatBroker({ time: clock });
    bans = await StoredChatBans.load(database.db, () => clock.now());
  });
  afterEach(async () => {
    await broker.close();
    database.dispose();
  });

  /** A chat between `reporter` and `offender`, and the ids of the messages the offender sent. */
  async function chat(reporter: string, offender: string, messages: string[]) {
    for (const v of [reporter, offender]) {
      broker.listen(v, undefined, () => {});
      await broker.start({ visitorId: v, ipKey: `ip-${v}`, country });
    }
    const sent: string[] = [];
    for (const text of messages) sent.push((await broker.send(offender, text)).id);
    return sent;
  }
  const report = (
    moderator: Moderator,
    limiter: MemoryRateLimiter,
    reporter: string,
    messageId: string,
  ) =>
    reportChatMessage(
      database.db,
      { broker, moderator, bans, limiter },
      { visitorId: reporter, ipKey: `ip-${reporter}` },
      { messageId, reason: "harassment" },
      clock.now(),
    );
  const acted = async () =>
    (await database.db.selectFrom("chat_reports").select("acted").execute()).map((r) => r.acted);

  test("a message that is not a partner's is NOT_FOUND, and nothing is recorded", async () => {
    await chat("r1", "o1", ["hello"]);
    const refused = await report(safe, new MemoryRateLimiter(clock), "r1", "no-such-id").catch(
      (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
    );
    expect(refused).toBe("NOT_FOUND");
    expect(await acted()).toEqual([]);
  });

  test("when moderation fails, the report is kept and punishes nobody", async () => {
    const [message = ""] = await chat("r1", "o1", ["you are awful"]);
    const answer = await report(broken, new MemoryRateLimiter(clock), "r1", message);
    expect(answer).toBe("recorded");
    expect(await bans.until("o1", "ip-o1")).toBeNull();
  });

  test("one reporter's reports of one visitor act once a day, sent together or not", async () => {
    const messages = await chat("r1", "o1", ["one", "two", "three", "four", "five"]);
    const limiter = new MemoryRateLimiter(clock);
    await Promise.all(messages.map((id) => report(safe, limiter, "r1", id)));
    expect((await acted()).sort()).toEqual([0, 0, 0, 0, 1]);
  });

  test("across a restart (limits in memory forgotten) the database remembers who acted", async () => {
    const [first = "", second = ""] = await chat("r1", "o1", ["one", "two"]);
    await report(safe, new MemoryRateLimiter(clock), "r1", first);
    clock.advance(60 * 1000);
    // A new process: its limiter has seen nothing.
    await report(safe, new MemoryRateLimiter(clock), "r1", second);
    expect((await acted()).sort()).toEqual([0, 1]);
  });
});
