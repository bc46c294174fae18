import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setOperator } from "../../src/core/admin/queue.ts";
import { chatTester, listening, pairListening } from "../helpers/chat-client.ts";
import { banStepOf } from "../helpers/database.ts";
import {
  bottleInput,
  CookieJar,
  failure,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// The operator's side of trust and safety: the moderation queue, its actions and the off
// switches, on whichever engine the suites run on.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" });
});
afterAll(() => server.close());

const HOUR = 60 * 60 * 1000;

/** How far a ban key has climbed the ladder. */
async function stepOf(key: string): Promise<number> {
  return (await banStepOf(server.app.services.db, key)) ?? 0;
}

/** When the ban on an address alone ends (asked for a visitor nobody banned). */
function addressBan(ipKey: string) {
  return server.app.services.chat.bans.until("nobody-at-this-address-00", ipKey);
}

let addresses = 0;
function browser() {
  const jar = new CookieJar();
  const api = trpcClient(server.url, { "X-Forwarded-For": `100.80.0.${++addresses}` }, jar);
  return { jar, api };
}

async function account(username: string, operator = false) {
  const b = browser();
  await b.api.auth.signUp.mutate({ username, password: "long-enough-pw" });
  if (operator) {
    await setOperator(server.app.services.db, username, true, Date.now());
    // The session is read again on the next request: the account is an operator from now on.
  }
  return b;
}

const bottle = (message: string) => bottleInput(message, { isPublic: true });

describe("who may moderate", () => {
  test("an operator may; a signed-in visitor gets 403, an anonymous one 401", async () => {
    const op = await account("harbour_master", true);
    expect((await op.api.auth.me.query()).isOperator).toBe(true);
    // Nothing reported yet: an empty queue, answered.
    expect((await op.api.moderation.queue.query()).groups).toEqual([]);
    const reader = await account("just_a_reader");
    expect((await reader.api.auth.me.query()).isOperator).toBe(false);
    expect((await failure(reader.api.moderation.queue.query())).status).toBe(403);
    expect(
      (await failure(reader.api.moderation.setFeature.mutate({ feature: "chat", enabled: false })))
        .status,
    ).toBe(403);
    expect((await failure(browser().api.moderation.queue.query())).status).toBe(401);
  });
});

describe("the queue", () => {
  test("reports are grouped by bottle, child safety first; actions are recorded with the operator", async () => {
    const op = await account("queue_keeper", true);
    const writer = browser();
    await writer.api.bottles.confirmAge.mutate({ atLeast13: true });
    const plain = await writer.api.bottles.throw.mutate(bottle("A plain bottle about the sea"));
    const worrying = await writer.api.bottles.throw.mutate(
      bottle("A bottle someone worries about"),
    );
    const reporters = await Promise.all(["r_one", "r_two"].map((name) => account(name)));
    for (const r of reporters) {
      await r.api.bottles.report.mutate({ bottleId: plain.id, reason: "spam" });
    }
    await reporters[0]?.api.bottles.report.mutate({ bottleId: worrying.id, reason: "childSafety" });

    const { groups } = await op.api.moderation.queue.query();
    expect(groups[0]).toMatchObject({
      kind: "bottle",
      subject: `bottle:${worrying.id}`,
      childSafety: true,
      // A child-safety report takes the bottle out at once.
      hidden: true,
    });
    const spam = groups.find((g) => g.subject === `bottle:${plain.id}`);
    expect(spam).toMatchObject({ reporters: 2, reasons: { spam: 2 }, hidden: false });
    const found = await browser().api.bottles.discover.query();
    expect(found.bottle?.id).not.toBe(worrying.id);

    await op.api.moderation.hide.mutate({ subject: `bottle:${plain.id}` });
    await op.api.moderation.unhide.mutate({ subject: `bottle:${plain.id}` });
    await op.api.moderation.dismiss.mutate({ subject: `bottle:${worrying.id}` });
    const after = await op.api.moderation.queue.query();
    expect(after.groups.map((g) => g.subject)).not.toContain(`bottle:${worrying.id}`);
    expect(after.actions.slice(0, 3).map((a) => [a.action, a.subject, a.operator])).toEqual([
      ["dismiss", `bottle:${worrying.id}`, "queue_keeper"],
      ["unhide", `bottle:${plain.id}`, "queue_keeper"],
      ["hide", `bottle:${plain.id}`, "queue_keeper"],
    ]);
  });

  test("a child-safety report holds the sender an hour and tops the queue; the operator's confirmation climbs the ladder once, addresses too", async () => {
    const op = await account("ban_keeper", true);
    const reporter = chatTester(server.url, { address: "100.81.0.1" });
    const sender = chatTester(server.url, { address: "100.81.0.2" });
    try {
      await Promise.all([listening(reporter), listening(sender)]);
      await pairListening(reporter, sender);
      const message = await sender.api.chat.send.mutate({ content: "which school are you at?" });
      await reporter.waitFor((e) => e.type === "message" && e.message.id === message.id);
      await reporter.api.chat.report.mutate({ messageId: message.id, reason: "childSafety" });
      await sender.waitFor((e) => e.type === "banned");

      const subject = `visitor:${sender.visitorId}` as const;
      const group = (await op.api.moderation.queue.query()).groups.find(
        (g) => g.subject === subject,
      );
      expect(group).toMatchObject({ kind: "visitor", childSafety: true });
      if (group?.kind !== "visitor" || group.bannedUntil === null) {
        throw new Error("the child-safety report held no one");
      }
      const held = group.bannedUntil;
      expect(held).toBeLessThanOrEqual(Date.now() + HOUR);
      expect(await stepOf(subject)).toBe(0);
      // The operator confirms: one step on the ladder, for the visitor and their addresses.
      const { until } = await op.api.moderation.ban.mutate({ subject });
      expect(until).toBeGreaterThanOrEqual(held);
      expect(await stepOf(subject)).toBe(1);
      expect(await addressBan(group.ipKey)).toBe(until);
      const after = await op.api.moderation.queue.query();
      expect(after.groups.map((g) => g.subject)).not.toContain(subject);
    } finally {
      reporter.close();
      sender.close();
    }
  });

  test("an automatic ban covers the address for no more than an hour until confirmed; confirming the same reports does not climb again", async () => {
    const op = await account("ladder_keeper", true);
    const reporter = chatTester(server.url, { address: "100.81.0.3" });
    const sender = chatTester(server.url, { address: "100.81.0.4" });
    try {
      await Promise.all([listening(reporter), listening(sender)]);
      // Banned twice before (and a month ago): the next ban is the third rung, a day.
      await server.app.services.db
        .insertInto("ban_steps")
        .values({ key: `visitor:${sender.visitorId}`, step: 2, last_at: Date.now() - 1000 })
        .execute();
      await pairListening(reporter, sender);
      const message = await sender.api.chat.send.mutate({ content: "fuck off" });
      await reporter.waitFor((e) => e.type === "message" && e.message.id === message.id);
      await reporter.api.chat.report.mutate({ messageId: message.id, reason: "harassment" });
      await sender.waitFor((e) => e.type === "banned");
      const subject = `visitor:${sender.visitorId}` as const;
      const group = (await op.api.moderation.queue.query()).groups.find(
        (g) => g.subject === subject,
      );
      if (group?.kind !== "visitor" || group.bannedUntil === null) {
        throw new Error("the unsafe message banned no one");
      }
      expect(group.bannedUntil).toBeGreaterThan(Date.now() + 23 * HOUR);
      expect(await stepOf(subject)).toBe(3);
      // The address (perhaps a school) is held out an hour at most, until an operator confirms.
      expect(await addressBan(group.ipKey)).toBeLessThanOrEqual(Date.now() + HOUR);
      const { until } = await op.api.moderation.ban.mutate({ subject });
      expect(until).toBe(group.bannedUntil);
      expect(await stepOf(subject)).toBe(3);
      expect(await addressBan(group.ipKey)).toBe(until);
    } finally {
      reporter.close();
      sender.close();
    }
  });

  test("a reader whose reports were dismissed three times stops counting toward hiding a bottle", async () => {
    const op = await account("fair_keeper", true);
    const writer = browser();
    await writer.api.bottles.confirmAge.mutate({ atLeast13: true });
    const noisy = await account("noisy_reader");
    for (let i = 0; i < 3; i++) {
      const { id } = await writer.api.bottles.throw.mutate(
        bottle(`An innocent bottle number ${i}`),
      );
      await noisy.api.bottles.report.mutate({ bottleId: id, reason: "offensive" });
      await op.api.moderation.dismiss.mutate({ subject: `bottle:${id}` });
    }
    const target = await writer.api.bottles.throw.mutate(bottle("Yet another innocent bottle"));
    const others = await Promise.all(["fair_one", "fair_two"].map((name) => account(name)));
    await noisy.api.bottles.report.mutate({ bottleId: target.id, reason: "offensive" });
    for (const r of others)
      await r.api.bottles.report.mutate({ bottleId: target.id, reason: "offensive" });
    const group = (await op.api.moderation.queue.query()).groups.find(
      (g) => g.subject === `bottle:${target.id}`,
    );
    // Three reporters, but one of them counts no more: still in the ocean.
    expect(group).toMatchObject({ reporters: 3, hidden: false });
  });
});

describe("off switches", () => {
  test("chat, bottles and public bottles rest when switched off, and come back when switched on", async () => {
    const op = await account("switch_keeper", true);
    const visitor = browser();
    await visitor.api.bottles.confirmAge.mutate({ atLeast13: true });
    await visitor.api.chat.confirmAge.mutate({ adult: true });
    await op.api.moderation.setFeature.mutate({ feature: "chat", enabled: false });
    await op.api.moderation.setFeature.mutate({ feature: "bottles", enabled: false });
    await op.api.moderation.setFeature.mutate({ feature: "publicBottles", enabled: false });
    expect(await visitor.api.site.features.query()).toEqual({
      chat: false,
      bottles: false,
      publicBottles: false,
    });
    // Every switched procedure rests, signed in or not (reporting and liking bottles too).
    const reader = await account("resting_reader");
    for (const call of [
      () => visitor.api.chat.start.mutate(),
      () => visitor.api.chat.send.mutate({ content: "anyone?" }),
      () => visitor.api.bottles.throw.mutate(bottle("Resting sea")),
      () => visitor.api.bottles.discover.query(),
      () => visitor.api.bottles.publicList.query(),
      () => reader.api.bottles.report.mutate({ bottleId: 1, reason: "spam" }),
      () => reader.api.bottles.toggleLike.mutate({ bottleId: 1 }),
      () => visitor.api.bottles.report.mutate({ bottleId: 1, reason: "spam" }),
    ]) {
      expect((await failure(call())).data.appCode).toBe("FEATURE_RESTING");
    }
    // What is not switched stays: a writer's own bottles, the queue.
    expect((await visitor.api.bottles.mine.query({})).bottles).toBeArray();
    expect((await op.api.moderation.queue.query()).features.bottles).toBe(false);
    for (const feature of ["chat", "bottles", "publicBottles"] as const) {
      await op.api.moderation.setFeature.mutate({ feature, enabled: true });
    }
    expect((await visitor.api.chat.start.mutate()).state).toBe("waiting");
    await visitor.api.chat.end.mutate();
  });
});

describe("the audit trail of the page", () => {
  test("every action taken from the page is recorded with the operator and its facts", async () => {
    const op = await account("audit_keeper", true);
    const writer = browser();
    await writer.api.bottles.confirmAge.mutate({ atLeast13: true });
    const { id } = await writer.api.bottles.throw.mutate(bottle("A bottle to hide and put back"));
    const reporter = await account("audit_reporter");
    await reporter.api.bottles.report.mutate({ bottleId: id, reason: "spam" });
    const [sender, partner] = await Promise.all([
      listening(chatTester(server.url, { address: "100.82.0.1" })),
      listening(chatTester(server.url, { address: "100.82.0.2" })),
    ]);
    await pairListening(partner, sender);
    const message = await sender.api.chat.send.mutate({ content: "a perfectly calm message" });
    await partner.waitFor((e) => e.type === "message" && e.message.id === message.id);
    await partner.api.chat.report.mutate({ messageId: message.id, reason: "harassment" });
    const visitor = `visitor:${sender.visitorId}`;

    await op.api.moderation.hide.mutate({ subject: `bottle:${id}` });
    await op.api.moderation.unhide.mutate({ subject: `bottle:${id}` });
    await (await account("audit_reporter_two")).api.bottles.report.mutate({
      bottleId: id,
      reason: "scam",
    });
    await op.api.moderation.dismiss.mutate({ subject: `bottle:${id}` });
    const { until } = await op.api.moderation.ban.mutate({ subject: visitor });
    await sender.waitFor((e) => e.type === "banned");
    const { lifted } = await op.api.moderation.unban.mutate({ subject: visitor });
    await op.api.moderation.setFeature.mutate({ feature: "publicBottles", enabled: false });
    await op.api.moderation.setFeature.mutate({ feature: "publicBottles", enabled: true });
    // A refused action leaves no record.
    await failure(op.api.moderation.hide.mutate({ subject: "bottle:987654" }));
    sender.close();
    partner.close();

    const actions = (await op.api.moderation.queue.query()).actions
      .filter((a) => a.operator === "audit_keeper")
      .reverse();
    expect(actions.map((a) => [a.action, a.subject, a.details])).toEqual([
      ["hide", `bottle:${id}`, { closed: 1 }],
      ["unhide", `bottle:${id}`, {}],
      ["dismiss", `bottle:${id}`, { closed: 1 }],
      ["ban", visitor, { keys: expect.arrayContaining([visitor]), until }],
      ["unban", visitor, { lifted }],
      ["switch off", "feature:publicBottles", {}],
      ["switch on", "feature:publicBottles", {}],
    ]);
    expect(lifted).toContain(visitor);
  });
});
