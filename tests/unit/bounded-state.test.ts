import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { CHAT_CONNECTIONS, ChatFloodLimits, FloodLimit } from "../../src/core/chat/flood.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { TypingWindows } from "../../src/core/chat/typing.ts";
import { ExpiringMap } from "../../src/core/limits/expiring-map.ts";
import {
  MUTE_MS,
  REPEATS_PER_HOUR,
  RepeatMemory,
  refuseRepeats,
  SPAM_REFUSALS_TO_MUTE,
  TEXTS_PER_SENDER,
  throwPlace,
} from "../../src/core/moderation/repeats.ts";
import { VirtualClock } from "../helpers/clock.ts";

const HOUR = 60 * 60 * 1000;

function clock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

describe("expiring map", () => {
  test("an entry touched within its window stays; one left alone for two windows is gone", () => {
    const c = clock();
    const map = new ExpiringMap<string, number>(1000, c.now);
    map.set("kept", 1);
    map.set("left", 2);
    for (let i = 0; i < 5; i++) {
      c.advance(900);
      expect(map.get("kept")).toBe(1);
    }
    expect(map.get("left")).toBeUndefined();
    expect(map.size).toBe(1);
    c.advance(2000);
    expect(map.size).toBe(0);
  });

  test("its size counts both generations; delete and clear let go of either", () => {
    const c = clock();
    const map = new ExpiringMap<string, number>(1000, c.now);
    map.set("older", 1);
    map.set("gone", 2);
    c.advance(1000);
    map.set("newer", 3);
    expect(map.size).toBe(3);
    map.delete("gone");
    map.delete("newer");
    expect(map.size).toBe(1);
    expect(map.get("gone")).toBeUndefined();
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get("older")).toBeUndefined();
  });

  test("a flood of new keys within one window lets the oldest go first, never past the bound", () => {
    const c = clock();
    const map = new ExpiringMap<number, number>(HOUR, c.now, 1000);
    for (let i = 0; i < 10_000; i++) map.set(i, i);
    expect(map.size).toBeLessThanOrEqual(2000);
    expect(map.get(9999)).toBe(9999);
    expect(map.get(0)).toBeUndefined();
  });

  test("a generation swaps when a whole window has passed, not a moment later", () => {
    const c = clock();
    const map = new ExpiringMap<string, number>(1000, c.now);
    map.set("left", 1);
    c.advance(1000);
    expect(map.size).toBe(1);
    c.advance(999);
    expect(map.size).toBe(1);
    // Two windows since the swap at 1000: had that swap come later, the entry would still be here.
    c.advance(1);
    expect(map.size).toBe(0);
  });

  test("a generation holds as many new keys as the bound, and swaps at the next one", () => {
    const c = clock();
    const map = new ExpiringMap<number, number>(HOUR, c.now, 3);
    for (let i = 1; i <= 6; i++) map.set(i, i);
    // 1 to 4 filled the first generation past its bound; 5 and 6 the next, which has room.
    expect(map.size).toBe(6);
    expect(map.get(1)).toBe(1);
  });
});

describe("flood limit", () => {
  test("a burst of 10, then 5 a second", () => {
    const c = clock();
    const gate = new FloodLimit({ ratePerSecond: 5, burst: 10 }, c.now);
    expect(Array.from({ length: 12 }, () => gate.allow("k")).filter(Boolean)).toHaveLength(10);
    c.advance(1000);
    expect(Array.from({ length: 6 }, () => gate.allow("k")).filter(Boolean)).toHaveLength(5);
    expect(gate.allow("other")).toBe(true);
  });

  test("an address's visitors together meet its own gate", () => {
    const c = clock();
    const gate = new ChatFloodLimits(c.now, {
      perVisitor: { ratePerSecond: 5, burst: 10 },
      perAddress: { ratePerSecond: 1, burst: 3 },
    });
    expect(gate.allow("a", "one-address")).toBe(true);
    expect(gate.allow("c", "one-address")).toBe(true);
    expect(gate.allow("a", "one-address")).toBe(true);
    expect(gate.allow("c", "one-address")).toBe(false);
    expect(gate.allow("b", "elsewhere")).toBe(true);
  });

  test("100,000 distinct visitors leave no buckets once their window has passed", () => {
    const c = clock();
    const gate = new ChatFloodLimits(c.now);
    for (let i = 0; i < 100_000; i++) gate.allow(`visitor-${i}`, `address-${i % 5000}`);
    expect(gate.size).toBe(105_000);
    // Twice the time a bucket takes to refill: every one of them is full again, so gone.
    c.advance(5000);
    gate.prune();
    expect(gate.size).toBe(0);
  });

  test("sockets opened from one address with a new visitor each time: past the address's burst, no visitor's bucket is added", () => {
    const c = clock();
    const gate = new ChatFloodLimits(c.now, CHAT_CONNECTIONS);
    let opened = 0;
    for (let i = 0; i < 100_000; i++)
      if (gate.allowAddressFirst(randomUUID(), "one-address")) opened += 1;
    expect(opened).toBe(CHAT_CONNECTIONS.perAddress.burst);
    expect(gate.size).toBe(1 + CHAT_CONNECTIONS.perAddress.burst);
  });

  test("a dropped bucket is full again: forgetting it gives nobody more than the burst", () => {
    const c = clock();
    const gate = new FloodLimit({ ratePerSecond: 5, burst: 10 }, c.now);
    for (let i = 0; i < 10; i++) gate.allow("k");
    expect(gate.allow("k")).toBe(false);
    c.advance(10_000);
    expect(Array.from({ length: 11 }, () => gate.allow("k")).filter(Boolean)).toHaveLength(10);
  });
});

describe("typing windows", () => {
  test("100,000 visitors who typed once hold no window after it ended", async () => {
    const c = new VirtualClock(1_000_000);
    const told: string[] = [];
    const windows = new TypingWindows(c, (id) => {
      told.push(id);
    });
    for (let i = 0; i < 100_000; i++) await windows.note(`visitor-${i}`, true);
    expect(told).toHaveLength(100_000);
    expect(windows.size).toBe(100_000);
    c.advance(5000);
    expect(windows.size).toBe(0);
    windows.close();
  });
});

describe("repeat memory", () => {
  const sender = (n: number) => ({ visitorId: `visitor-${n}`, ipKey: `address-${n}` });
  const text = "buy cheap pills at my shop today";

  test(`the same text to ${REPEATS_PER_HOUR} chats passes, to a fourth is refused; the same chat again is no new place`, () => {
    const c = clock();
    const memory = new RepeatMemory(c.now);
    for (const chat of ["c1", "c2", "c3", "c3"]) expect(memory.note(sender(1), text, chat)).toBe(0);
    expect(memory.note(sender(1), text, "c4")).toBeGreaterThan(0);
    // Punctuation, case and spaces do not make it new.
    expect(memory.note(sender(1), "BUY cheap pills, at my shop TODAY!!", "c5")).toBeGreaterThan(0);
    c.advance(HOUR);
    expect(memory.note(sender(1), text, "c6")).toBe(0);
  });

  test("a chat the text already went to is no new place, even before the others", () => {
    const memory = new RepeatMemory(clock().now);
    for (const chat of ["c1", "c1", "c2", "c3"]) expect(memory.note(sender(1), text, chat)).toBe(0);
    expect(memory.note(sender(1), text, "c4")).toBeGreaterThan(0);
  });

  test("each bottle throw is a place of its own", () => {
    const memory = new RepeatMemory(clock().now);
    const places = Array.from({ length: REPEATS_PER_HOUR + 1 }, () => throwPlace());
    expect(new Set(places).size).toBe(places.length);
    for (const place of places.slice(0, REPEATS_PER_HOUR)) {
      expect(memory.note(sender(1), text, place)).toBe(0);
    }
    expect(memory.note(sender(1), text, places.at(-1) ?? "")).toBeGreaterThan(0);
  });

  test("one changed character, a zero-width space or a look-alike does not make a new text", () => {
    const memory = new RepeatMemory(clock().now);
    const forms = [
      "join my channel for free crypto tips",
      "join my channel for free crypto tipz",
      "join my\u200B channel for free crypto tips",
      "jоin my channel for free crypto tips", // a Cyrillic о
    ];
    for (const [i, text] of forms.slice(0, 3).entries()) {
      expect(memory.note(sender(1), text, `c${i}`)).toBe(0);
    }
    expect(memory.note(sender(1), forms[3] ?? "", "c3")).toBeGreaterThan(0);
    // A different sentence is a different text.
    expect(memory.note(sender(1), "the sea was calm and blue this morning", "c4")).toBe(0);
  });

  test("a new cookie on the same address counts with the old one", () => {
    const memory = new RepeatMemory(clock().now);
    for (const [n, chat] of [
      [1, "c1"],
      [2, "c2"],
      [3, "c3"],
    ] as const) {
      expect(memory.note({ visitorId: `cookie-${n}`, ipKey: "shared" }, text, chat)).toBe(0);
    }
    expect(memory.note({ visitorId: "cookie-4", ipKey: "shared" }, text, "c4")).toBeGreaterThan(0);
  });

  test(`refused ${SPAM_REFUSALS_TO_MUTE} times within the hour is the refusal that mutes`, () => {
    const memory = new RepeatMemory(clock().now);
    const mutes = Array.from({ length: 4 }, () => memory.refused("v"));
    expect(mutes.indexOf(true)).toBe(SPAM_REFUSALS_TO_MUTE - 1);
    expect(mutes.filter(Boolean)).toHaveLength(1);
  });

  test(`a sender is remembered for at most ${TEXTS_PER_SENDER} texts, and nobody past two hours`, () => {
    const c = clock();
    const memory = new RepeatMemory(c.now);
    // One spammer cycling through many texts keeps only the last few.
    for (let i = 0; i < 1000; i++) memory.note(sender(1), `advert number ${i} for you`, `c${i}`);
    for (let i = 0; i < 20_000; i++) memory.note(sender(i + 2), `hello there ${i} friend`, "c");
    expect(memory.size).toBe(2 * 20_001);
    c.advance(2 * HOUR);
    memory.prune();
    expect(memory.size).toBe(0);
  });

  test(`a text is forgotten once ${TEXTS_PER_SENDER} newer ones came after it, not before`, () => {
    const memory = new RepeatMemory(clock().now);
    const others = (n: number, from: number) => {
      for (let i = 0; i < n; i++) memory.note(sender(from), `offer ${randomUUID()}`, "x");
    };
    for (const n of [1, 2])
      for (const chat of ["c1", "c2", "c3"]) memory.note(sender(n), text, chat);
    others(TEXTS_PER_SENDER - 1, 1);
    expect(memory.note(sender(1), text, "c4")).toBeGreaterThan(0);
    others(TEXTS_PER_SENDER, 2);
    expect(memory.note(sender(2), text, "c4")).toBe(0);
  });

  test("a refused text waits until the hour of its first sending is over", () => {
    const c = clock();
    const memory = new RepeatMemory(c.now);
    for (const chat of ["c1", "c2", "c3"]) memory.note(sender(1), text, chat);
    c.advance(20 * 60 * 1000);
    expect(memory.note(sender(1), text, "c4")).toBe(40 * 60);
    c.advance(40 * 60 * 1000 - 500);
    expect(memory.note(sender(1), text, "c5")).toBe(1);
  });

  test("refusals are counted within an hour: one an hour never mutes", () => {
    const c = clock();
    const memory = new RepeatMemory(c.now);
    for (let i = 0; i < 4; i++) {
      expect(memory.refused("v")).toBe(false);
      c.advance(HOUR);
    }
    expect(memory.refused("v")).toBe(false);
    expect(memory.refused("v")).toBe(true);
  });

  test(`sending a text to a ${REPEATS_PER_HOUR + 1}th chat is refused with the wait; the ${SPAM_REFUSALS_TO_MUTE}nd refusal mutes visitor and address for an hour`, async () => {
    const time = new VirtualClock(1_000_000);
    const repeats = new RepeatMemory(time.now);
    const broker = new InMemoryChatBroker({ time });
    const deps = { repeats, mutes: broker };
    const who = sender(1);
    for (const chat of ["c1", "c2", "c3"]) await refuseRepeats(deps, who, text, chat, time.now());
    const refusal = async (chat: string) =>
      refuseRepeats(deps, who, text, chat, time.now()).then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(await refusal("c4")).toMatchObject({ code: "SPAM_REPEATED", retryAfterSeconds: 3600 });
    expect(await broker.mutedUntil(who.visitorId, who.ipKey)).toBeNull();
    expect(await refusal("c5")).toMatchObject({ code: "SPAM_REPEATED" });
    for (const [visitorId, ipKey] of [
      [who.visitorId, "elsewhere"],
      ["someone-else", who.ipKey],
    ] as const) {
      expect(await broker.mutedUntil(visitorId, ipKey)).toBe(time.now() + MUTE_MS);
    }
    await broker.close();
  });

  test("short greetings are never remembered", () => {
    const memory = new RepeatMemory(clock().now);
    for (let i = 0; i < 10; i++) expect(memory.note(sender(1), "hi!", `c${i}`)).toBe(0);
    expect(memory.size).toBe(0);
  });
});
