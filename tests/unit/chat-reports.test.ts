import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { StoredChatBans } from "../../src/core/chat/bans.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import {
  CHAT_REPORT_RATE,
  independentReporters,
  reportChatMessage,
} from "../../src/core/chat/reports.ts";
import { DomainError } from "../../src/core/errors.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import type { Moderator } from "../../src/core/moderation/moderator.ts";
import { DISCOUNT_MS, independentSources } from "../../src/core/moderation/reporters.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

const T0 = Date.UTC(2026, 0, 15, 12);
const country = { code: "TW", name: "Taiwan" };
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
    ipKey = `ip-${reporter}`,
  ) =>
    reportChatMessage(
      database.db,
      { broker, moderator, bans, limiter },
      { visitorId: reporter, ipKey },
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

  test("one report of a message moderation finds unsafe bans its sender at once", async () => {
    const unsafe: Moderator = { check: async () => ({ safe: false, reasons: ["profanity"] }) };
    const [message = ""] = await chat("r1", "o1", ["you are a piece of shit"]);
    expect(await report(unsafe, new MemoryRateLimiter(clock), "r1", message)).toBe("recorded");
    expect(await bans.until("o1", "ip-o1")).toBe(T0 + 60 * 60 * 1000);
    const [row] = await database.db.selectFrom("chat_reports").select("is_safe").execute();
    expect(row?.is_safe).toBe(0);
  });

  test(`a visitor's reports are limited to ${CHAT_REPORT_RATE.limit} an hour`, () => {
    expect(CHAT_REPORT_RATE).toEqual({ limit: 20, windowMs: 60 * 60 * 1000 });
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

  test("a reporter the operator keeps dismissing never takes an address's turn", async () => {
    const dismissed = [1, 2, 3].map((i) => ({
      reported_visitor_id: `someone-${i}`,
      reported_ip_key: "ip-someone",
      reporter_visitor_id: "d1",
      reporter_ip_key: "shared",
      message_id: `old-${i}`,
      message_content: "hello",
      reason: "spam",
      is_safe: 1,
      created_at: clock.now() - 1000,
      handled_at: clock.now() - 1000,
      dismissed: 1,
    }));
    await database.db.insertInto("chat_reports").values(dismissed).execute();
    const limiter = new MemoryRateLimiter(clock);
    const [first = ""] = await chat("d1", "o1", ["one"]);
    await report(safe, limiter, "d1", first, "shared");
    await broker.end("o1");
    const [second = ""] = await chat("r2", "o1", ["two"]);
    await report(safe, limiter, "r2", second, "shared");
    const rows = await database.db
      .selectFrom("chat_reports")
      .select(["reporter_visitor_id", "acted"])
      .where("reported_visitor_id", "=", "o1")
      .orderBy("id")
      .execute();
    expect(rows).toEqual([
      { reporter_visitor_id: "d1", acted: 0 },
      { reporter_visitor_id: "r2", acted: 1 },
    ]);
  });
});

/**
 * The shape that made the old count slow: each cookie files 20 reports, each from a new /64, and
 * each cookie's last address is the next cookie's first, so all of them chain into one group.
 */
function chainedReports(rows: number) {
  const reports: Array<{ reporter_visitor_id: string; reporter_ip_key: string }> = [];
  let address = 0;
  for (let cookie = 0; reports.length < rows; cookie++) {
    for (let i = 0; i < 20 && reports.length < rows; i++) {
      reports.push({
        reporter_visitor_id: `chain-${cookie}`,
        reporter_ip_key: `chain-ip-${address}`,
      });
      if (i < 19) address++;
    }
  }
  return reports;
}

describe("counting independent reporters", () => {
  // Near-linear, not a time budget (which a busy machine breaks): ten times the reports may take
  // about ten times as long, where a count that walks the chain for each report takes a hundred.
  // The bound leaves room for a busy machine's pauses, which once took a run past 30.
  test("the chained shape is counted in near-linear time: 10× the reports, under 50× the time", () => {
    const fastest = (rows: number) => {
      const reports = chainedReports(rows);
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        independentReporters(reports);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    fastest(40_000);
    const small = fastest(4_000);
    const large = fastest(40_000);
    expect(large / Math.max(small, 0.05)).toBeLessThan(50);
  });

  test("cookies on one address, or one cookie on several, are one reporter", () => {
    const row = (v: string, ip: string) => ({ reporter_visitor_id: v, reporter_ip_key: ip });
    expect(independentReporters([row("a", "x"), row("b", "x"), row("c", "x")])).toBe(1);
    expect(independentReporters([row("a", "x"), row("a", "y"), row("a", "z")])).toBe(1);
    expect(independentReporters([row("a", "x"), row("b", "y"), row("c", "z")])).toBe(3);
  });

  // As the offender's friend would try: one cookie reports from the address of each honest
  // reporter before they do. A chain would fold all of them into one reporter; here the friend
  // counts once and shadows one address, and the honest reporters elsewhere still count.
  test("a friend who shares an address with each honest reporter cannot fold them into one", () => {
    const friend = ["h1", "h2", "h3"].map((ip) => ({
      reporter_visitor_id: "friend",
      reporter_ip_key: ip,
    }));
    const honest = ["h1", "h2", "h3"].map((ip, i) => ({
      reporter_visitor_id: `honest-${i}`,
      reporter_ip_key: ip,
    }));
    expect(independentReporters([...friend, ...honest])).toBeGreaterThanOrEqual(3);
    // However many cookies the friend chains through, no fewer than the honest reporters.
    const chain = chainedReports(2_000).map((r, i) =>
      i % 500 === 0 ? { ...r, reporter_ip_key: `h${i / 500}` } : r,
    );
    expect(independentReporters([...chain, ...honest])).toBeGreaterThanOrEqual(3);
  });
});

describe("a visitor reported from a flood of reports", () => {
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

  async function chat(reporter: string, ipKey: string, offender: string) {
    broker.listen(reporter, undefined, () => {});
    broker.listen(offender, undefined, () => {});
    await broker.start({ visitorId: reporter, ipKey, country });
    await broker.start({ visitorId: offender, ipKey: `ip-${offender}`, country });
    const { id } = await broker.send(offender, "you are awful");
    return id;
  }

  // 20k chained reports of the offender in the last day, marked as the gate marks them: only a
  // report whose visitor and address had no turn yet acted.
  async function flood(offender: string) {
    const claimed = new Set<string>();
    const reports = chainedReports(20_000).map((r, i) => {
      const acted = !claimed.has(r.reporter_visitor_id) && !claimed.has(r.reporter_ip_key);
      if (acted) claimed.add(r.reporter_visitor_id).add(r.reporter_ip_key);
      return {
        ...r,
        reported_visitor_id: offender,
        reported_ip_key: `ip-${offender}`,
        message_id: `flood-${i}`,
        message_content: "hello",
        reason: "spam",
        is_safe: 1,
        acted: acted ? 1 : 0,
        created_at: clock.now() - 60 * 60 * 1000 + i,
      };
    });
    for (let i = 0; i < reports.length; i += 500) {
      await database.db
        .insertInto("chat_reports")
        .values(reports.slice(i, i + 500))
        .execute();
    }
  }

  test("a report is counted quickly among 20k others, only from those that acted", async () => {
    const offender = "offender";
    await flood(offender);
    const limiter = new MemoryRateLimiter(clock);
    const messageId = await chat("honest", "ip-honest", offender);
    const started = performance.now();
    await reportChatMessage(
      database.db,
      { broker, moderator: safe, bans, limiter },
      { visitorId: "honest", ipKey: "ip-honest" },
      { messageId, reason: "harassment" },
      clock.now(),
    );
    // Generous: the report's other steps (a block, a ban) run on a shared machine too.
    expect(performance.now() - started).toBeLessThanOrEqual(250);
  });
});

describe("independent sources", () => {
  test("an empty key (kept before addresses were) claims nothing: two such reporters are two", () => {
    expect(
      independentSources([
        ["v:a", ""],
        ["v:b", ""],
      ]),
    ).toBe(2);
    expect(
      independentSources([
        ["v:a", "ip:x"],
        ["v:a", ""],
      ]),
    ).toBe(1);
  });

  test("counting stops at enough, not one later", () => {
    const rows = [["v:a"], ["v:b"], ["v:c"], ["v:d"]];
    expect(independentSources(rows, 3)).toBe(3);
    expect(independentSources(rows)).toBe(4);
  });

  test("a reporter the operator dismissed is discounted for 30 days", () => {
    expect(DISCOUNT_MS).toBe(30 * 24 * 60 * 60 * 1000);
  });
});
