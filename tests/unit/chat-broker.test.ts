import { describe, expect, test } from "bun:test";
import type { ChatEvent } from "../../src/common/chat.ts";
import { InMemoryChatBroker, RandomIds } from "../../src/core/chat/broker.ts";
import { FloodGate } from "../../src/core/chat/flood.ts";
import { Mailbox, type Numbered } from "../../src/core/chat/mailbox.ts";

const v = (id: string, ipKey = `ip-${id}`) => ({
  visitorId: id,
  ipKey,
  country: { countryCode: null, country: "Unknown" },
});

function broker(options: ConstructorParameters<typeof InMemoryChatBroker>[0] = {}) {
  return new InMemoryChatBroker({ resumeGraceMs: 60_000, ...options });
}

describe("matchmaker", () => {
  test("first come, first served: the newcomer pairs with the longest-waiting visitor", () => {
    const b = broker();
    expect(b.start(v("a"))).toEqual({ state: "waiting" });
    expect(b.start(v("b"))).toMatchObject({ state: "chatting" });
    expect(b.start(v("c"))).toEqual({ state: "waiting" });
    expect(b.start(v("d"))).toMatchObject({ state: "chatting" });
    expect(b.status("a")).toMatchObject({ state: "chatting" });
    expect(b.status("c")).toMatchObject({ state: "chatting" });
    // a and b are together, c and d are together.
    const chatOf = (id: string) => (b.status(id) as { chatId: string }).chatId;
    expect(chatOf("a")).toBe(chatOf("b"));
    expect(chatOf("c")).toBe(chatOf("d"));
    expect(chatOf("a")).not.toBe(chatOf("c"));
    b.close();
  });

  test("a visitor never meets themselves (another tab starting again changes nothing)", () => {
    const b = broker();
    b.start(v("a"));
    expect(b.start(v("a"))).toEqual({ state: "waiting" });
    expect(b.online()).toBe(1);
    b.close();
  });

  test("1,000 simultaneous starts pair everyone exactly once", async () => {
    const b = broker();
    const ids = Array.from({ length: 1000 }, (_, i) => `visitor-${i}`);
    await Promise.all(ids.map(async (id) => b.start(v(id))));
    const partnerOf = new Map<string, string>();
    const byChat = new Map<string, string[]>();
    for (const id of ids) {
      const status = b.status(id);
      expect(status.state).toBe("chatting");
      if (status.state !== "chatting") continue;
      byChat.set(status.chatId, [...(byChat.get(status.chatId) ?? []), id]);
    }
    expect(byChat.size).toBe(500);
    for (const members of byChat.values()) {
      expect(members).toHaveLength(2);
      const [x = "", y = ""] = members;
      expect(x).not.toBe(y);
      partnerOf.set(x, y);
      partnerOf.set(y, x);
    }
    expect(partnerOf.size).toBe(1000);
    expect(b.online()).toBe(1000);
    b.close();
  });

  test("leaving while waiting takes the visitor out of the pool", () => {
    const b = broker();
    b.start(v("a"));
    b.end("a");
    expect(b.status("a")).toEqual({ state: "idle" });
    expect(b.start(v("b"))).toEqual({ state: "waiting" });
    b.close();
  });

  test("partners who parted are skipped for ten minutes, then may meet again", () => {
    let now = 0;
    const b = broker({ now: () => now });
    b.start(v("a"));
    b.start(v("b"));
    b.end("a");
    expect(b.start(v("a"))).toEqual({ state: "waiting" });
    expect(b.start(v("b"))).toEqual({ state: "waiting" });
    expect(b.start(v("c"))).toMatchObject({ state: "chatting" }); // c takes a, the longest waiting
    expect(b.status("a")).toMatchObject({ state: "chatting" });
    b.end("c");
    b.end("a");
    now += 10 * 60 * 1000 + 1;
    expect(b.start(v("a"))).toMatchObject({ state: "chatting" }); // with b again
    b.close();
  });

  test("banned visitors cannot start, and banned waiting visitors are passed over", () => {
    const banned = new Set<string>();
    const b = broker({ isBanned: (id, ip) => banned.has(id) || banned.has(ip) });
    banned.add("x");
    expect(() => b.start(v("x"))).toThrow(/banned/);
    b.start(v("w"));
    banned.add("ip-w");
    expect(b.start(v("n"))).toEqual({ state: "waiting" });
    expect(b.status("w")).toEqual({ state: "idle" });
    b.close();
  });

  test("a ban ends the current chat and tells both sides", async () => {
    const b = broker();
    b.start(v("a"));
    b.start(v("b"));
    b.ban("a", 123);
    expect(b.status("a")).toEqual({ state: "idle" });
    expect(b.status("b")).toEqual({ state: "idle" });
    b.close();
  });

  test("reports can name only the partner's messages", () => {
    const b = broker();
    b.start(v("a"));
    b.start(v("b"));
    const fromA = b.send("a", "hello");
    expect(b.partnerMessage("b", fromA.id)?.content).toBe("hello");
    expect(b.partnerMessage("a", fromA.id)).toBeUndefined();
    expect(b.partnerMessage("c", fromA.id)).toBeUndefined();
    b.close();
  });

  test("each chat keeps only its last 50 messages", () => {
    const b = broker({ flood: { ratePerSecond: 1e9, burst: 1e9 } });
    b.start(v("a"));
    b.start(v("b"));
    const first = b.send("a", "first");
    for (let i = 0; i < 50; i++) b.send("a", `m${i}`);
    expect(b.partnerMessage("b", first.id)).toBeUndefined();
    b.close();
  });
});

describe("mailbox", () => {
  test("a reader resuming from an id gets exactly what followed", () => {
    const box = new Mailbox("e1");
    box.push({ type: "waiting" });
    box.push({ type: "idle" });
    box.push({ type: "waiting" });
    const seen: string[] = [];
    const stop = box.listen("e1:1", ({ id }) => seen.push(id));
    expect(seen).toEqual(["e1:2", "e1:3"]);
    box.push({ type: "idle" });
    stop();
    box.push({ type: "waiting" });
    expect(seen).toEqual(["e1:2", "e1:3", "e1:4"]);
    expect(box.readers).toBe(0);
  });

  test("an id from another epoch (a restart) starts from now", async () => {
    const box = new Mailbox("e2");
    box.push({ type: "waiting" });
    expect(box.knows("old:7")).toBe(false);
    expect(box.knows("e2:1")).toBe(true);
    // A number this mailbox has not reached yet names no place in it either.
    expect(box.knows("e2:2")).toBe(false);
    const seen: string[] = [];
    box.listen("old:7", ({ id }) => seen.push(id));
    box.push({ type: "idle" });
    expect(seen).toEqual(["e2:2"]);
  });

  test("listeners hear each event inside push, in order, and only until they stop", () => {
    const box = new Mailbox("e3");
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = box.listen(null, ({ id }) => first.push(id));
    box.listen(null, ({ id }) => second.push(id));
    expect(box.readers).toBe(2);
    box.push({ type: "waiting" });
    // No await: the event was delivered during push.
    expect(first).toEqual(["e3:1"]);
    stopFirst();
    stopFirst(); // twice is harmless
    box.push({ type: "idle" });
    expect(first).toEqual(["e3:1"]);
    expect(second).toEqual(["e3:1", "e3:2"]);
    expect(box.readers).toBe(1);
  });

  test("the same listener listening twice counts, and hears, twice", () => {
    const box = new Mailbox("e4");
    const seen: string[] = [];
    const listener = ({ id }: Numbered) => seen.push(id);
    const stopA = box.listen(null, listener);
    box.listen(null, listener);
    box.push({ type: "waiting" });
    stopA();
    box.push({ type: "idle" });
    expect(seen).toEqual(["e4:1", "e4:1", "e4:2"]);
    expect(box.readers).toBe(1);
  });

  test("resuming from further back than is kept replays what is kept, oldest first", () => {
    const box = new Mailbox("e5", 3);
    for (let i = 0; i < 7; i++) box.push({ type: "typing", chatId: "c", isTyping: i % 2 === 0 });
    const seen: Numbered[] = [];
    box.listen("e5:1", (n) => seen.push(n));
    expect(seen.map((n) => n.id)).toEqual(["e5:5", "e5:6", "e5:7"]);
    expect(seen.map((n) => (n.event as { isTyping: boolean }).isTyping)).toEqual([
      true,
      false,
      true,
    ]);
  });
});

describe("chat streams", () => {
  const chatting = () => {
    const b = broker({ resumeGraceMs: 30 });
    const events = { a: [] as Numbered[], b: [] as Numbered[] };
    const stop = {
      a: b.listen("a", null, (n) => events.a.push(n)),
      b: b.listen("b", null, (n) => events.b.push(n)),
    };
    b.start(v("a"));
    b.start(v("b"));
    return { b, events, stop };
  };
  const types = (list: Numbered[]) => list.map((n) => n.event.type);

  test("a fresh stream starts with the status, at the id a resumed stream continues from", () => {
    const b = broker();
    const seen: Numbered[] = [];
    b.listen("a", undefined, (n) => seen.push(n));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.event).toEqual({ type: "status", status: { state: "idle" } });
    b.start(v("a"));
    expect(types(seen)).toEqual(["status", "waiting"]);
    const statusId = seen[0]?.id ?? "";
    const resumed: Numbered[] = [];
    b.listen("a", statusId, (n) => resumed.push(n));
    expect(resumed.map((n) => n.id)).toEqual([seen[1]?.id ?? "missing"]);
    b.close();
  });

  test("a message reaches the partner's and the sender's streams before send returns", () => {
    const { b, events } = chatting();
    const before = { a: events.a.length, b: events.b.length };
    const sent = b.send("a", "hello");
    const got = (list: Numbered[], from: number) =>
      list.slice(from).map((n) => n.event as Extract<ChatEvent, { type: "message" }>);
    expect(got(events.b, before.b)).toEqual([
      { type: "message", chatId: expect.any(String), message: { ...sent, from: "partner" } },
    ]);
    expect(got(events.a, before.a)).toEqual([
      { type: "message", chatId: expect.any(String), message: sent },
    ]);
    expect(sent).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      from: "me",
      content: "hello",
      timestamp: expect.any(Number),
      countryCode: null,
      country: "Unknown",
    });
    b.close();
  });

  test("with no stream left, the grace period runs out and the partner hears they left", async () => {
    const { b, events, stop } = chatting();
    stop.a();
    await Bun.sleep(10);
    expect(b.status("a").state).toBe("chatting");
    await Bun.sleep(60);
    expect(b.status("b")).toEqual({ state: "idle" });
    expect(types(events.b).slice(-2)).toEqual(["typing", "partner-left"]);
    b.close();
  });

  test("coming back within the grace period keeps the chat", async () => {
    const { b, stop } = chatting();
    stop.a();
    stop.a(); // stopping twice does not count twice
    const again: Numbered[] = [];
    b.listen("a", null, (n) => again.push(n));
    await Bun.sleep(60);
    expect(b.status("a").state).toBe("chatting");
    expect(again[0]?.event).toMatchObject({ type: "status", status: { state: "chatting" } });
    b.close();
  });

  test("after the grace period an old id starts afresh, with the status, not mid-way", async () => {
    const b = broker({ resumeGraceMs: 10 });
    const seen: Numbered[] = [];
    const stop = b.listen("a", null, (n) => seen.push(n));
    b.start(v("a"));
    b.end("a");
    stop();
    await Bun.sleep(40);
    const lastId = seen[seen.length - 1]?.id;
    const later: Numbered[] = [];
    b.listen("a", lastId, (n) => later.push(n));
    expect(types(later)).toEqual(["status"]);
    b.close();
  });

  test("a listener that fails on the first event does not leave the visitor present forever", async () => {
    const b = broker({ resumeGraceMs: 10 });
    b.start(v("w"));
    expect(() =>
      b.listen("w", null, () => {
        throw new Error("socket gone");
      }),
    ).toThrow("socket gone");
    await Bun.sleep(40);
    expect(b.status("w")).toEqual({ state: "idle" });
    b.close();
  });
});

describe("message ids", () => {
  test("12 base64url characters, all different, across many draws", () => {
    const ids = new RandomIds(4);
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = ids.next();
      expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });
});

describe("flood gate", () => {
  test("a burst of 10, then 5 a second", () => {
    let now = 0;
    const gate = new FloodGate(5, 10, () => now);
    const burst = Array.from({ length: 12 }, () => gate.allow("k"));
    expect(burst.filter(Boolean)).toHaveLength(10);
    now += 1000;
    expect(Array.from({ length: 6 }, () => gate.allow("k")).filter(Boolean)).toHaveLength(5);
    expect(gate.allow("other")).toBe(true);
  });
});
