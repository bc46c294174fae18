import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { BAN_STEPS_MS } from "../../src/core/chat/bans.ts";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
  visitorId,
} from "../helpers/chat-client.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { banStepOf } from "../helpers/database.ts";
import { rows, startTestServer, type TestServer } from "../helpers/server.ts";
import { distinctText } from "../helpers/texts.ts";

// Reports as an attacker would aim them at an innocent visitor: the same reporter again and
// again, reports while a ban holds, several cookies on one address, reports sent all at once.
const HOUR = BAN_STEPS_MS[0];
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" });
});
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});
afterAll(() => server.close());

let addresses = 0;
const nextAddress = () => `100.70.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
function tester(address = nextAddress(), site = server) {
  const t = chatTester(site.url, { address });
  open.push(t);
  return t;
}

let said = 0;
/** The victim sends `n` messages to a new partner (each a new text); answers their ids. */
async function chatWith(victim: ChatTester, partner: ChatTester, n: number) {
  await victim.api.chat.end.mutate().catch(() => {});
  await listening(partner);
  await pairListening(partner, victim);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const sent = await victim.api.chat.send.mutate({ content: distinctText(++said) });
    await partner.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    ids.push(sent.id);
  }
  return ids;
}

/** The ends of the bans on a visitor's own key and on their address's, each alone. */
async function bansOn(visitor: string) {
  const { bans } = server.app.services.chat;
  return {
    visitor: await bans.until(visitor, "no-such-address"),
    address: await bans.until(`nobody-${visitorId()}`, await ipKeyOf(visitor)),
  };
}

/** The address hash a reported visitor was recorded with. */
async function ipKeyOf(visitor: string): Promise<string> {
  const [row] = await rows(
    server,
    sql<{
      k: string;
    }>`SELECT reported_ip_key AS k FROM chat_reports WHERE reported_visitor_id = ${visitor} LIMIT 1`,
  );
  if (!row) throw new Error(`no report of ${visitor}`);
  return row.k;
}

async function stepsOf(key: string): Promise<number> {
  return (await banStepOf(server.app.services.db, key)) ?? 0;
}

describe("one reporter cannot climb the ladder", () => {
  test("five child-safety reports from one visitor on five messages hold the victim an hour, once", async () => {
    const victim = await listening(tester());
    const reporter = tester();
    const ids = await chatWith(victim, reporter, 5);
    const started = Date.now();
    for (const messageId of ids) {
      const answer = await reporter.api.chat.report.mutate({ messageId, reason: "childSafety" });
      expect(answer.outcome).toBe("recorded");
    }
    await victim.waitFor(isType("banned"));
    const bans = await bansOn(victim.visitorId);
    // The first rung, not the seventh day the ladder would reach after five escalations.
    expect(bans.visitor).toBeGreaterThanOrEqual(started + HOUR - 1000);
    expect(bans.visitor).toBeLessThanOrEqual(Date.now() + HOUR);
    // The address-wide part (a school, a mobile network) no longer than the first rung.
    expect(bans.address ?? 0).toBeLessThanOrEqual(Date.now() + HOUR);
    // A hold is not a step: only the operator's confirmation climbs from here.
    expect(await stepsOf(`visitor:${victim.visitorId}`)).toBe(0);
    expect(victim.events.filter(isType("banned"))).toHaveLength(1);
  });

  test("the same report five times is recorded once; another reason for the same message is recorded too", async () => {
    const victim = await listening(tester());
    const reporter = tester();
    const [messageId = ""] = await chatWith(victim, reporter, 1);
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push((await reporter.api.chat.report.mutate({ messageId, reason: "spam" })).outcome);
    }
    expect(outcomes).toEqual([
      "recorded",
      "alreadyReported",
      "alreadyReported",
      "alreadyReported",
      "alreadyReported",
    ]);
    const other = await reporter.api.chat.report.mutate({ messageId, reason: "harassment" });
    expect(other.outcome).toBe("recorded");
    const stored = await rows(
      server,
      sql<{
        reason: string;
      }>`SELECT reason FROM chat_reports WHERE message_id = ${messageId} ORDER BY reason`,
    );
    expect(stored.map((r) => r.reason)).toEqual(["harassment", "spam"]);
    // Neither a spam report nor a second reason from the same reporter bans anyone.
    expect(await server.app.services.chat.bans.until(victim.visitorId, "elsewhere")).toBeNull();
  });

  test("five reports sent at once from one reporter act at most once", async () => {
    const victim = await listening(tester());
    const reporter = tester();
    const ids = await chatWith(victim, reporter, 5);
    const answers = await Promise.all(
      ids.map((messageId) => reporter.api.chat.report.mutate({ messageId, reason: "childSafety" })),
    );
    expect(answers.map((a) => a.outcome)).toEqual(Array(5).fill("recorded"));
    await victim.waitFor(isType("banned"));
    expect(await server.app.services.chat.bans.until(victim.visitorId, "x")).toBeLessThanOrEqual(
      Date.now() + HOUR,
    );
    expect(await stepsOf(`visitor:${victim.visitorId}`)).toBe(0);
  });
});

describe("reporters are counted by visitor and by address", () => {
  test("three cookies on one address are one reporter: no ban; three addresses are three", async () => {
    const victim = await listening(tester());
    const shared = nextAddress();
    for (let i = 0; i < 3; i++) {
      const reporter = tester(shared);
      const [messageId = ""] = await chatWith(victim, reporter, 1);
      await reporter.api.chat.report.mutate({ messageId, reason: "harassment" });
    }
    expect(await server.app.services.chat.bans.until(victim.visitorId, "x")).toBeNull();
    // Two more reporters, each on an address of its own: three independent reporters now.
    for (let i = 0; i < 2; i++) {
      const reporter = tester();
      const [messageId = ""] = await chatWith(victim, reporter, 1);
      await reporter.api.chat.report.mutate({ messageId, reason: "harassment" });
    }
    await victim.waitFor(isType("banned"));
    expect(await stepsOf(`visitor:${victim.visitorId}`)).toBe(1);
  });

  // The offender's friend wants the offender never banned: before the honest reporters report,
  // the friend's one cookie reports the offender from each of their addresses (a shared network),
  // so that a count by chains would fold all of them into one reporter.
  test("a friend on each honest reporter's address cannot keep the offender from a ban", async () => {
    const offender = await listening(tester());
    const addresses = [nextAddress(), nextAddress(), nextAddress()];
    const friend = tester(addresses[0]);
    const messages = await chatWith(offender, friend, 3);
    for (const [i, address] of addresses.entries()) {
      // The same cookie, come back from the next address.
      const from = chatTester(server.url, { visitorId: friend.visitorId, address });
      open.push(from);
      await from.api.chat.report.mutate({ messageId: messages[i] ?? "", reason: "harassment" });
    }
    expect(await server.app.services.chat.bans.until(offender.visitorId, "x")).toBeNull();
    for (const address of addresses) {
      const reporter = tester(address);
      const [messageId = ""] = await chatWith(offender, reporter, 1);
      await reporter.api.chat.report.mutate({ messageId, reason: "harassment" });
    }
    expect(await server.app.services.chat.bans.until(offender.visitorId, "x")).not.toBeNull();
    expect(await stepsOf(`visitor:${offender.visitorId}`)).toBe(1);
  });

  test("reports while a ban is in force never escalate it", async () => {
    const victim = await listening(tester());
    // Three others chatted with the victim first and still hold their messages.
    const earlier: Array<{ reporter: ChatTester; messageId: string }> = [];
    for (let i = 0; i < 3; i++) {
      const reporter = tester();
      const [messageId = ""] = await chatWith(victim, reporter, 1);
      earlier.push({ reporter, messageId });
    }
    const first = earlier[0];
    if (!first) throw new Error("no reporter");
    await first.reporter.api.chat.report.mutate({
      messageId: first.messageId,
      reason: "childSafety",
    });
    await victim.waitFor(isType("banned"));
    const held = await server.app.services.chat.bans.until(victim.visitorId, "x");
    for (const { reporter, messageId } of earlier.slice(1)) {
      await reporter.api.chat.report.mutate({ messageId, reason: "harassment" });
    }
    expect(await server.app.services.chat.bans.until(victim.visitorId, "x")).toBe(held);
    expect(await stepsOf(`visitor:${victim.visitorId}`)).toBe(0);
    expect(victim.events.filter(isType("banned"))).toHaveLength(1);
  });
});

describe("a report keeps the two apart", () => {
  // A site whose clock the test moves: recent partners meet again once both have waited this
  // long alone, so only the report can keep these two apart after it.
  const MEET_AGAIN_MS = 1000;
  const clock = new VirtualClock();
  let site: TestServer;
  beforeAll(async () => {
    site = await startTestServer(
      { TRUST_PROXY: "true" },
      { clock, chat: { meetAgainAfterMs: MEET_AGAIN_MS } },
    );
  });
  afterAll(() => site.close());
  const onSite = () => tester(nextAddress(), site);

  test("the reporter is never paired with the reported visitor again, however long both wait", async () => {
    const victim = await listening(onSite());
    const reporter = await listening(onSite());
    await pairListening(reporter, victim);
    const sent = await victim.api.chat.send.mutate({ content: distinctText(++said) });
    await reporter.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    await reporter.api.chat.report.mutate({ messageId: sent.id, reason: "spam" });
    await victim.api.chat.end.mutate();
    expect(await victim.start()).toEqual({ state: "waiting" });
    expect(await reporter.start()).toEqual({ state: "waiting" });
    clock.advance(MEET_AGAIN_MS * 5);
    // Had they met again, nobody would be waiting for the third.
    const third = await listening(onSite());
    expect((await third.start()).state).toBe("chatting");
    expect(reporter.events.filter(isType("matched"))).toHaveLength(1);
  });
});
