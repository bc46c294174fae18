import { describe, expect, test } from "bun:test";
import { InMemoryChatBroker } from "../../src/core/chat/broker.ts";
import { FloodGate } from "../../src/core/chat/flood.ts";
import { Mailbox } from "../../src/core/chat/mailbox.ts";

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
  test("a reader resuming from an id gets exactly what followed", async () => {
    const box = new Mailbox("e1");
    box.push({ type: "waiting" });
    box.push({ type: "idle" });
    box.push({ type: "waiting" });
    const abort = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const { id } of box.stream("e1:1", abort.signal)) {
        seen.push(id);
        if (seen.length === 3) abort.abort();
      }
    })();
    box.push({ type: "idle" });
    await reading;
    expect(seen).toEqual(["e1:2", "e1:3", "e1:4"]);
  });

  test("an id from another epoch (a restart) starts from now", async () => {
    const box = new Mailbox("e2");
    box.push({ type: "waiting" });
    expect(box.knows("old:7")).toBe(false);
    expect(box.knows("e2:1")).toBe(true);
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
