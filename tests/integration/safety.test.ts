import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { ChatEvent } from "../../src/common/chat.ts";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
  visitorId,
} from "../helpers/chat-client.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  bottleInput,
  failure,
  signedVisitorCookie,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// The safety rules a visitor meets, on whichever engine the suites
// run on: the age gates, blocks, links and contact details, repeats and mutes, child safety.
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" });
});
// Each test's visitors leave: a closed stream takes a waiting visitor out of the pool at once,
// and the next test starts once the server has seen them go.
afterEach(async () => {
  const leaving = open.splice(0);
  for (const t of leaving) t.close();
  const { broker } = server.app.services.chat;
  const waiting = async () =>
    (await Promise.all(leaving.map((t) => broker.status(t.visitorId)))).filter(
      (status) => status.state === "waiting",
    ).length;
  await eventually(async () => (await waiting()) === 0, "the pool without them");
});
afterAll(() => server.close());

let addresses = 0;
const nextAddress = () => `100.64.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
function tester(options: Parameters<typeof chatTester>[1] = {}) {
  const t = chatTester(server.url, { address: nextAddress(), ...options });
  open.push(t);
  return t;
}

/** A visitor's events of one type, counted. */
const count = (t: ChatTester, type: ChatEvent["type"]) => t.events.filter(isType(type)).length;

describe("the age gates", () => {
  test("chat needs the 18-or-older answer; 'under 18' refuses it, and answering again changes nothing", async () => {
    const cookie = signedVisitorCookie(visitorId());
    const api = trpcClient(server.url, { "X-Forwarded-For": nextAddress(), Cookie: cookie });
    expect((await failure(api.chat.start.mutate())).data.appCode).toBe("AGE_CONFIRMATION_REQUIRED");
    expect(await api.chat.confirmAge.mutate({ adult: false })).toEqual({ age: "refused" });
    expect((await failure(api.chat.start.mutate())).data.appCode).toBe("AGE_REFUSED");
    // A reload, a second answer: still refused, server-side.
    const again = trpcClient(server.url, { "X-Forwarded-For": nextAddress(), Cookie: cookie });
    expect(await again.chat.confirmAge.mutate({ adult: true })).toEqual({ age: "refused" });
    expect((await again.chat.me.query()).age).toBe("refused");
    expect((await failure(again.chat.start.mutate())).data.appCode).toBe("AGE_REFUSED");
  });

  test("the refusal is the visitor's, not the address's", async () => {
    const address = nextAddress();
    const young = trpcClient(server.url, {
      "X-Forwarded-For": address,
      Cookie: signedVisitorCookie(visitorId()),
    });
    await young.chat.confirmAge.mutate({ adult: false });
    const classmate = trpcClient(server.url, {
      "X-Forwarded-For": address,
      Cookie: signedVisitorCookie(visitorId()),
    });
    expect(await classmate.chat.confirmAge.mutate({ adult: true })).toEqual({ age: "confirmed" });
    expect((await classmate.chat.start.mutate()).state).toBe("waiting");
  });

  test("a visitor under 13 cannot throw bottles, and answering again changes nothing", async () => {
    const api = trpcClient(server.url, {
      "X-Forwarded-For": nextAddress(),
      Cookie: signedVisitorCookie(visitorId()),
    });
    const bottle = bottleInput("Hello ocean");
    expect(await api.bottles.age.query()).toEqual({ age: "unanswered" });
    expect(await api.bottles.confirmAge.mutate({ atLeast13: false })).toEqual({ age: "refused" });
    expect((await failure(api.bottles.throw.mutate(bottle))).data.appCode).toBe("AGE_REFUSED");
    expect(await api.bottles.confirmAge.mutate({ atLeast13: true })).toEqual({ age: "refused" });
    expect((await failure(api.bottles.throw.mutate(bottle))).data.appCode).toBe("AGE_REFUSED");
  });
});

describe("block", () => {
  test("a blocked partner is never paired again, not with a new cookie either, while others are", async () => {
    const address = nextAddress();
    const a = await listening(tester());
    const b = await listening(tester({ address }));
    await pairListening(a, b);
    await a.api.chat.block.mutate();
    await b.waitFor(isType("partner-left"));
    expect(await a.start()).toEqual({ state: "waiting" });
    // Both wait, each listening: had they been paired again, b's start would have said so.
    expect(await b.start()).toEqual({ state: "waiting" });
    expect(count(a, "matched")).toBe(1);
    await b.api.chat.end.mutate();
    // The blocked one again, with a fresh cookie from the same address.
    const bAgain = await listening(tester({ address }));
    expect(await bAgain.start()).toEqual({ state: "waiting" });
    await bAgain.api.chat.end.mutate();
    const c = await listening(tester());
    expect((await c.start()).state).toBe("chatting");
    await a.waitFor((e) => e.type === "matched" && count(a, "matched") === 2);
  });
});

describe("block after the chat ended", () => {
  test("the partner who left is blocked by one of their messages; never paired again", async () => {
    const address = nextAddress();
    const a = await listening(tester());
    const b = await listening(tester({ address }));
    await pairListening(a, b);
    const sent = await b.api.chat.send.mutate({ content: "rude words, then gone" });
    await a.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    await b.api.chat.end.mutate();
    await a.waitFor(isType("partner-left"));
    // No chat in progress: a plain block has no one to block; one naming the message does.
    expect((await failure(a.api.chat.block.mutate())).data.appCode).toBe("NOT_FOUND");
    expect((await failure(a.api.chat.block.mutate({ messageId: "not-theirs" }))).data.appCode).toBe(
      "NOT_FOUND",
    );
    await a.api.chat.block.mutate({ messageId: sent.id });
    const rows = await server.app.services.db
      .selectFrom("chat_blocks")
      .selectAll()
      .where("blocker_visitor_id", "=", a.visitorId)
      .execute();
    expect(rows.map((r) => r.blocked_visitor_id)).toEqual([b.visitorId]);
    // Their own message names nobody: a visitor cannot block themselves.
    expect((await failure(b.api.chat.block.mutate({ messageId: sent.id }))).data.appCode).toBe(
      "NOT_FOUND",
    );
    // Kept apart by the address too: a fresh cookie from it (no recent partner) finds the
    // blocker waiting and is still not paired with them (pairing is decided at the start).
    expect(await a.start()).toEqual({ state: "waiting" });
    const bAgain = await listening(tester({ address }));
    expect(await bAgain.start()).toEqual({ state: "waiting" });
    expect(count(a, "matched")).toBe(1);
    await bAgain.api.chat.end.mutate();
    await a.api.chat.end.mutate();
  });
});

describe("links and contact details", () => {
  test("a partner sees a message with contact details marked; links to three partners cool the sender down", async () => {
    const sender = await listening(tester());
    for (let chat = 1; chat <= 3; chat++) {
      const partner = await listening(tester());
      await pairListening(sender, partner);
      const sent = await sender.api.chat.send.mutate({ content: `add me: LINE ID mei_${chat}000` });
      const got = await partner.waitFor((e) => e.type === "message" && e.message.id === sent.id);
      expect(got).toMatchObject({ message: { contact: true } });
      if (chat < 3) await sender.api.chat.end.mutate();
      partner.close();
    }
    const banned = (await sender.waitFor(isType("banned"))) as Extract<
      ChatEvent,
      { type: "banned" }
    >;
    expect(banned.until).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect((await failure(sender.start())).data.appCode).toBe("CHAT_BANNED");
  });
});

describe("repeats and mutes", () => {
  test("the same text to a fourth partner is refused; refused twice, the sender is muted and reaches no one", async () => {
    const spammer = await listening(tester());
    const text = "Cheap followers at my shop!";
    const partners: ChatTester[] = [];
    const next = async () => {
      await spammer.api.chat.end.mutate().catch(() => {});
      const partner = await listening(tester());
      partners.push(partner);
      await pairListening(spammer, partner);
      return partner;
    };
    for (let i = 0; i < 3; i++) {
      await next();
      await spammer.api.chat.send.mutate({
        content: i === 1 ? "cheap FOLLOWERS at my shop" : text,
      });
    }
    await next();
    expect((await failure(spammer.api.chat.send.mutate({ content: text }))).data.appCode).toBe(
      "SPAM_REPEATED",
    );
    const fifth = await next();
    expect((await failure(spammer.api.chat.send.mutate({ content: text }))).data.appCode).toBe(
      "SPAM_REPEATED",
    );
    const muted = (await spammer.waitFor(isType("muted"))) as Extract<ChatEvent, { type: "muted" }>;
    expect(muted.until).toBeGreaterThan(Date.now() + 55 * 60_000);
    const quiet = await spammer.api.chat.send.mutate({ content: "anyone there?" });
    expect(quiet.content).toBe("anyone there?");
    // Typing still reaches the partner, after where the message would have been.
    await spammer.api.chat.typing.mutate({ isTyping: true });
    await fifth.waitFor((e) => e.type === "typing" && e.isTyping);
    expect(fifth.events.some((e) => e.type === "message" && e.message.id === quiet.id)).toBe(false);
  });

  test("the same bottle a fourth time in an hour is refused", async () => {
    const api = trpcClient(server.url, {
      "X-Forwarded-For": nextAddress(),
      Cookie: signedVisitorCookie(visitorId()),
    });
    await api.bottles.confirmAge.mutate({ atLeast13: true });
    for (const message of ["Same words again", "same words, again!", "SAME WORDS AGAIN"]) {
      await api.bottles.throw.mutate(bottleInput(message));
    }
    expect(
      (await failure(api.bottles.throw.mutate(bottleInput("Same words again")))).data.appCode,
    ).toBe("SPAM_REPEATED");
    expect((await api.bottles.throw.mutate(bottleInput("Something new"))).id).toBeGreaterThan(0);
  });
});

describe("child safety", () => {
  test("a child-safety report ends the chat and bans the sender at once", async () => {
    const a = await listening(tester());
    const b = await listening(tester());
    await pairListening(a, b);
    const message = await b.api.chat.send.mutate({ content: "how old are you?" });
    await a.waitFor((e) => e.type === "message" && e.message.id === message.id);
    await a.api.chat.report.mutate({ messageId: message.id, reason: "childSafety" });
    await b.waitFor(isType("banned"));
    await a.waitFor(isType("partner-left"));
  });
});
