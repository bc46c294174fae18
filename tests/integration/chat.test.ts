import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChatEvent, ChatMessage } from "../../src/common/chat.ts";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
  visitorId,
} from "../helpers/chat-client.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const GRACE_MS = 400;
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { chat: { resumeGraceMs: GRACE_MS } });
});
afterAll(async () => {
  for (const t of open) t.close();
  await server.close();
});

function tester(options: Parameters<typeof chatTester>[1] = {}, url = server.url) {
  const t = chatTester(url, options);
  open.push(t);
  return t;
}

/** Two visitors, listening, paired with each other. */
async function pair(a = tester({ address: "168.95.1.1" }), b = tester({ address: "8.8.8.8" })) {
  await Promise.all([listening(a), listening(b)]);
  await pairListening(a, b);
  return { a, b };
}

const messagesOf = (t: ChatTester) =>
  t.events.filter(isType("message")).map((e) => (e as { message: ChatMessage }).message);

describe("matching by language and interest", () => {
  test("bad or refused preferences change nothing; a shared language and interest are told to both", async () => {
    const a = tester({ address: "203.0.113.41" });
    const b = tester({ address: "203.0.113.42" });
    await Promise.all([listening(a), listening(b)]);
    const tooMany = ["a", "b", "c", "d", "e", "f"];
    for (const asked of [
      { languages: ["en"], interests: tooMany },
      { languages: ["en"], interests: ["x".repeat(25)] },
      { languages: ["en"], interests: ["   "] },
      { languages: ["xx"], interests: [] },
    ]) {
      // @ts-expect-error: what a page that is not ours could send
      await expect(a.start(asked)).rejects.toMatchObject({ data: { code: "BAD_REQUEST" } });
    }
    // Each refused interest is named by its place, so the page can mark it and keep the others.
    await expect(
      a.start({ languages: ["en"], interests: ["me@mail.com", "hiking", "line id: abc123"] }),
    ).rejects.toMatchObject({
      data: {
        code: "UNPROCESSABLE_CONTENT",
        appCode: "INTEREST_REFUSED",
        issues: [
          { field: "interests.0", kind: "invalid" },
          { field: "interests.2", kind: "invalid" },
        ],
      },
    });
    expect(a.events.filter(isType("waiting"))).toHaveLength(0);

    expect(await a.start({ languages: ["en", "ja"], interests: ["Hiking", "cats"] })).toEqual({
      state: "waiting",
    });
    expect((await b.start({ languages: ["zh-TW", "en"], interests: ["ＨＩＫＩＮＧ"] })).state).toBe(
      "chatting",
    );
    expect(await a.waitFor(isType("matched"))).toMatchObject({
      shared: { languages: ["en"], interests: ["hiking"] },
    });
    expect(await b.waitFor(isType("matched"))).toMatchObject({
      shared: { languages: ["en"], interests: ["hiking"] },
    });
    a.close();
    b.close();
  });

  test("one who asked for nothing waits for one who insists on a language, until they widen", async () => {
    const a = tester({ address: "203.0.113.43" });
    const b = tester({ address: "203.0.113.44" });
    await Promise.all([listening(a), listening(b)]);
    expect(await a.start({ languages: ["ko"], interests: [] })).toEqual({ state: "waiting" });
    expect(await b.start()).toEqual({ state: "waiting" });
    await a.api.chat.widen.mutate();
    const matched = await b.waitFor(isType("matched"));
    expect(matched).toMatchObject({ shared: { languages: [], interests: [] } });
    await a.waitFor(isType("matched"));
    // Widening when not waiting changes nothing: the chat goes on.
    await b.api.chat.widen.mutate();
    const sent = await b.api.chat.send.mutate({ content: "still here" });
    await a.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    a.close();
    b.close();
  });
});

describe("pairing and messages", () => {
  test("two visitors are paired and see only each other's country", async () => {
    const { a, b } = await pair();
    const matchedA = (await a.waitFor(isType("matched"))) as Extract<
      ChatEvent,
      { type: "matched" }
    >;
    const matchedB = (await b.waitFor(isType("matched"))) as Extract<
      ChatEvent,
      { type: "matched" }
    >;
    expect(matchedA.partner).toEqual({ code: "US", name: "United States" });
    expect(matchedB.partner).toEqual({ code: "TW", name: "Taiwan" });
    expect(matchedA.chatId).toBe(matchedB.chatId);
    a.close();
    b.close();
  });

  test("messages go both ways with server ids and times, and typing is relayed", async () => {
    const { a, b } = await pair();
    await b.api.chat.typing.mutate({ isTyping: true });
    // The first typing event the partner sees says "typing".
    const typing = await a.waitFor(isType("typing"));
    expect(typing).toMatchObject({ type: "typing", isTyping: true });
    const sent = await a.api.chat.send.mutate({ content: "  Hello from the shore  " });
    expect(sent).toMatchObject({
      from: "me",
      content: "Hello from the shore",
      country: { code: "TW", name: "Taiwan" },
    });
    // A random id; on Redis the chat's own id comes first, so a report finds the chat's slot.
    expect(sent.id).toMatch(/^([A-Za-z0-9_-]{12})?[A-Za-z0-9_-]{12}$/);
    const got = await b.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    expect(got).toMatchObject({
      message: { from: "partner", content: "Hello from the shore", timestamp: sent.timestamp },
    });
    await b.api.chat.send.mutate({ content: "Hi back" });
    await a.waitFor(
      (e) =>
        e.type === "message" && e.message.content === "Hi back" && e.message.from === "partner",
    );
    a.close();
    b.close();
  });

  test("bad messages are refused: empty, whitespace, over 1,000 characters", async () => {
    const { a, b } = await pair();
    for (const content of ["", "   \n ", "x".repeat(1001)]) {
      await expect(a.api.chat.send.mutate({ content })).rejects.toThrow();
    }
    await a.api.chat.send.mutate({ content: "x".repeat(1000) });
    a.close();
    b.close();
  });

  test("ending the chat tells the partner", async () => {
    const { a, b } = await pair();
    await a.api.chat.end.mutate();
    await b.waitFor(isType("partner-left"));
    await a.waitFor(isType("idle"));
    await expect(a.api.chat.send.mutate({ content: "anyone?" })).rejects.toThrow();
    a.close();
    b.close();
  });

  test("the online count covers waiting and chatting visitors, and the others than the asker", async () => {
    // A server of its own: the earlier tests' visitors leave this one's count when their grace
    // runs out, at a moment of the machine's choosing.
    const own = await startTestServer({ TRUST_PROXY: "true" });
    try {
      const counter = tester({}, own.url);
      const online = async () => (await counter.api.chat.online.query()).count;
      expect(await online()).toBe(0);
      const { a, b } = await pair(
        tester({ address: "168.95.1.1" }, own.url),
        tester({ address: "8.8.8.8" }, own.url),
      );
      expect(await online()).toBe(2);
      // Each of the two counts only the other; a visitor alone in the pool counts nobody.
      expect(await a.api.chat.online.query()).toEqual({ count: 2, others: 1 });
      expect(await counter.api.chat.online.query()).toEqual({ count: 2, others: 2 });
      await a.api.chat.end.mutate();
      await b.waitFor(isType("partner-left"));
      expect(await online()).toBe(0);
      await a.api.chat.start.mutate();
      expect(await a.api.chat.online.query()).toEqual({ count: 1, others: 0 });
      expect(await b.api.chat.online.query()).toEqual({ count: 1, others: 1 });
      a.close();
      b.close();
    } finally {
      await own.close();
    }
  });
});

describe("drops and departures", () => {
  test("a socket that comes back within the grace period resumes with nothing lost or twice", async () => {
    const id = visitorId();
    const { a, b } = await pair(tester({ visitorId: id, address: "168.95.1.1" }));
    await b.api.chat.send.mutate({ content: "before the drop" });
    await a.waitFor((e) => e.type === "message" && e.message.content === "before the drop");
    const resumeFrom = a.lastEventId;
    a.close();
    await b.api.chat.send.mutate({ content: "while you were away 1" });
    await b.api.chat.send.mutate({ content: "while you were away 2" });
    // Another pair parts after the drop: once its partner is told, the drop's grace period
    // has run out too, and the resumed visitor's partner must still have been told nothing.
    const after = await pair(tester(), tester());
    const back = tester({ visitorId: id, address: "168.95.1.1" });
    back.listen(resumeFrom);
    await back.waitFor(
      (e) => e.type === "message" && e.message.content === "while you were away 2",
    );
    after.a.close();
    await after.b.waitFor(isType("partner-left"), GRACE_MS + 5000);
    // Each side's stream keeps its order: anything owed before these would have come first.
    const last = await b.api.chat.send.mutate({ content: "last of the tide" });
    await back.waitFor((e) => e.type === "message" && e.message.id === last.id);
    expect(messagesOf(back).map((m) => m.content)).toEqual([
      "while you were away 1",
      "while you were away 2",
      "last of the tide",
    ]);
    const still = await back.api.chat.send.mutate({ content: "still here" });
    await b.waitFor((e) => e.type === "message" && e.message.id === still.id);
    expect(b.events.some((e) => e.type === "partner-left")).toBe(false);
    back.close();
    b.close();
    after.b.close();
  });

  test("after the grace period the partner is told", async () => {
    const { a, b } = await pair();
    a.close();
    await b.waitFor(isType("partner-left"), GRACE_MS + 2000);
    b.close();
  });

  test("a page that goes away (close code 1001) tells the partner at once, not after the grace", async () => {
    // Its own server, with a grace far longer than the wait: only the close code can tell.
    const site = await startTestServer(
      { TRUST_PROXY: "true" },
      { chat: { resumeGraceMs: 60_000 } },
    );
    const at = (address: string, id?: string) =>
      tester({ address, ...(id ? { visitorId: id } : {}) }, site.url);
    try {
      const gone = await pair(at("203.0.113.61"), at("203.0.113.62"));
      gone.a.leave(1001);
      await gone.b.waitFor(isType("partner-left"), 3000);

      // A dropped network (no close frame, or a client's own close) keeps the grace.
      const dropped = await pair(at("203.0.113.63"), at("203.0.113.64"));
      dropped.a.leave(3000);
      // Another pair parting by going away after the drop: once it is told, the dropped
      // socket's close has long been handled, and its partner must still have heard nothing.
      const later = await pair(at("203.0.113.65"), at("203.0.113.66"));
      later.a.leave(1001);
      await later.b.waitFor(isType("partner-left"), 3000);
      expect(dropped.b.events.some((e) => e.type === "partner-left")).toBe(false);

      // The same visitor's other tab, still open on this server, keeps the chat.
      const id = visitorId();
      const twoTabs = await pair(at("203.0.113.67", id), at("203.0.113.68"));
      const otherTab = await listening(at("203.0.113.67", id));
      twoTabs.a.leave(1001);
      const last = await twoTabs.b.api.chat.send.mutate({ content: "still there?" });
      await otherTab.waitFor((e) => e.type === "message" && e.message.id === last.id);
      expect(twoTabs.b.events.some((e) => e.type === "partner-left")).toBe(false);
    } finally {
      await site.close();
    }
  });

  test("partners who just parted are not paired again; the next stranger is", async () => {
    const { a, b } = await pair();
    await a.api.chat.end.mutate();
    await b.waitFor(isType("partner-left"));
    expect(await a.start()).toEqual({ state: "waiting" });
    expect(await b.start()).toEqual({ state: "waiting" });
    const c = tester();
    c.listen();
    await c.waitFor(isType("status"));
    expect((await c.start()).state).toBe("chatting");
    await a.waitFor(isType("matched"));
    await a.api.chat.end.mutate();
    await b.api.chat.end.mutate();
    for (const t of [a, b, c]) t.close();
  });
});

describe("the socket", () => {
  async function upgradeStatus(origin: string | null): Promise<number> {
    const headers: Record<string, string> = {
      Connection: "Upgrade",
      Upgrade: "websocket",
      "Sec-WebSocket-Version": "13",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    };
    if (origin !== null) headers.Origin = origin;
    const response = await fetch(`${server.url}/trpc`, { headers });
    return response.status;
  }

  test("foreign, null and missing Origins are refused with 403", async () => {
    expect(await upgradeStatus("https://evil.example")).toBe(403);
    expect(await upgradeStatus("null")).toBe(403);
    expect(await upgradeStatus(null)).toBe(403);
  });

  test("a frame over 64 KB closes the socket", async () => {
    const socket = new WebSocket(`${server.url.replace("http", "ws")}/trpc`, {
      headers: { Origin: server.url },
    } as unknown as string[]);
    await new Promise((resolve) => socket.addEventListener("open", resolve));
    const closed = new Promise<number>((resolve) =>
      socket.addEventListener("close", (e) => resolve(e.code)),
    );
    socket.send("x".repeat(65 * 1024));
    expect(await closed).toBe(1009);
  });
});

describe("flooding", () => {
  test("past the burst, messages are refused, while another pair's messages still arrive", async () => {
    const flood = await pair();
    const calm = await pair(tester(), tester());
    // Four frames of ten calls, as many as a frame may hold.
    const results = [];
    for (let frame = 0; frame < 4; frame++) {
      results.push(
        ...(await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) =>
            flood.a.api.chat.send.mutate({ content: `flood ${frame * 10 + i}` }),
          ),
        )),
      );
    }
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.length).toBeGreaterThanOrEqual(25);
    expect(refused.length).toBeLessThan(40);
    const sent = await calm.a.api.chat.send.mutate({ content: "calm waters" });
    await calm.b.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    // A refused message takes nothing, so the flooder may try until the bucket has refilled.
    const breath = await eventually(
      () => flood.a.api.chat.send.mutate({ content: "after a breath" }),
      "a message after a breath",
    );
    await flood.b.waitFor((e) => e.type === "message" && e.message.id === breath.id);
    for (const t of [flood.a, flood.b, calm.a, calm.b]) t.close();
  });
});

describe("reports and bans", () => {
  test("a report carries the server's copy of the message; an unsafe one bans the sender", async () => {
    const { a, b } = await pair(tester({ address: "198.51.100.77" }), tester());
    const sent = await a.api.chat.send.mutate({ content: "you are a fucking idiot" });
    await b.waitFor((e) => e.type === "message" && e.message.id === sent.id);
    await b.api.chat.report.mutate({ messageId: sent.id, reason: "harassment" });

    const db = server.app.services.db;
    const row = await db
      .selectFrom("chat_reports")
      .selectAll()
      .where("message_id", "=", sent.id)
      .executeTakeFirst();
    const bans = await db.selectFrom("chat_bans").select("key").execute();
    expect(row).toMatchObject({
      reported_visitor_id: a.visitorId,
      reporter_visitor_id: b.visitorId,
      message_content: "you are a fucking idiot",
      reason: "harassment",
      context: "chat",
      is_safe: 0,
    });
    expect(bans.map((r) => r.key)).toContain(`visitor:${a.visitorId}`);

    const banned = (await a.waitFor(isType("banned"))) as Extract<ChatEvent, { type: "banned" }>;
    // A first ban lasts an hour (bans escalate from there).
    expect(banned.until).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect(banned.until).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    await b.waitFor(isType("partner-left"));
    await expect(a.start()).rejects.toThrow(/banned/);
    await expect(a.api.chat.send.mutate({ content: "hello?" })).rejects.toThrow();

    // The ban follows the address too: a fresh cookie from the same address is still banned.
    const sameAddress = tester({ address: "198.51.100.77" });
    await expect(sameAddress.start()).rejects.toThrow(/banned/);
    expect((await sameAddress.api.chat.me.query()).bannedUntil).toBe(banned.until);
    // Opening the chat stream is refused as forbidden, with the ban's own code.
    const refused = await new Promise<unknown>((resolve) => {
      sameAddress.api.chat.events.subscribe(undefined, { onError: resolve });
    });
    expect(refused).toMatchObject({ data: { code: "FORBIDDEN", appCode: "CHAT_BANNED" } });
    for (const t of [a, b, sameAddress]) t.close();
  });

  test("one's own message or an unknown id cannot be reported", async () => {
    const { a, b } = await pair();
    const sent = await a.api.chat.send.mutate({ content: "a perfectly nice message" });
    await expect(
      a.api.chat.report.mutate({ messageId: sent.id, reason: "spam" }),
    ).rejects.toThrow();
    await expect(b.api.chat.report.mutate({ messageId: "nope", reason: "spam" })).rejects.toThrow();
    a.close();
    b.close();
  });

  test("three different reporters in a day ban the sender", async () => {
    const senderId = visitorId();
    const address = "198.51.100.88";
    let sender = tester({ visitorId: senderId, address });
    for (let round = 0; round < 3; round++) {
      const { a, b } = await pair(sender, tester());
      const sent = await a.api.chat.send.mutate({ content: `polite message ${round}` });
      await b.waitFor((e) => e.type === "message" && e.message.id === sent.id);
      await b.api.chat.report.mutate({ messageId: sent.id, reason: "spam" });
      b.close();
      if (round < 2) {
        await a.api.chat.end.mutate();
        a.close();
        sender = tester({ visitorId: senderId, address });
      }
    }
    await sender.waitFor(isType("banned"));
    await expect(sender.start()).rejects.toThrow(/banned/);
    sender.close();
  });
});
