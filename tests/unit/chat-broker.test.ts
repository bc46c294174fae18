import { describe, expect, test } from "bun:test";
import type { ChatEvent } from "../../src/common/chat.ts";
import { Mailbox, type Numbered } from "../../src/core/chat/mailbox.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { VirtualClock } from "../helpers/clock.ts";

// What only the in-memory broker does (its synchronous listeners, its mailbox, its ban check);
// the rules both brokers keep are the contract (tests/helpers/broker-contract.ts).

const v = (id: string, ipKey = `ip-${id}`) => ({
  visitorId: id,
  ipKey,
  country: { code: null, name: "Unknown" },
});

/** The virtual clock of the broker last made: tests move it instead of waiting. */
let clock = new VirtualClock(0);

function broker(options: ConstructorParameters<typeof InMemoryChatBroker>[0] = {}) {
  clock = new VirtualClock(0);
  return new InMemoryChatBroker({ resumeGraceMs: 60_000, time: clock, ...options });
}

/** A visitor with an open stream who presses start: only they can be paired. */
async function join(b: InMemoryChatBroker, id: string, ipKey?: string) {
  const events: Numbered[] = [];
  const stop = b.listen(id, null, (n) => events.push(n));
  const status = await b.start(v(id, ipKey));
  return { status, events, stop };
}

describe("matchmaker", () => {
  test("banned visitors cannot start, and banned waiting visitors are passed over", async () => {
    const banned = new Set<string>();
    const b = broker({ isBanned: (id, ip) => banned.has(id) || banned.has(ip) });
    banned.add("x");
    await expect(b.start(v("x"))).rejects.toThrow(/banned/);
    await join(b, "w");
    banned.add("ip-w");
    expect((await join(b, "n")).status).toEqual({ state: "waiting" });
    expect(await b.status("w")).toEqual({ state: "idle" });
    await b.close();
  });

  test("each chat keeps only its last 50 messages", async () => {
    const b = broker();
    await join(b, "a");
    await join(b, "b");
    const first = await b.send("a", "first");
    for (let i = 0; i < 50; i++) await b.send("a", `m${i}`);
    expect(await b.partnerMessage("b", first.id)).toBeUndefined();
    await b.close();
  });

  test("a visitor paired before their stream closed for good leaves after the grace period; the pool and presence empty", async () => {
    const b = broker({ resumeGraceMs: 20 });
    for (let i = 0; i < 100; i++) {
      const { stop } = await join(b, `x${i}`);
      stop();
      await b.start(v(`never-listens-${i}`));
    }
    const pair = [await join(b, "p"), await join(b, "q")];
    for (const { stop } of pair) stop();
    expect((await b.counts()).present).toBeGreaterThan(0);
    clock.advance(80);
    expect(await b.counts()).toMatchObject({ waiting: 0, present: 0, chatting: 0 });
    await b.close();
  });
});

describe("mailbox", () => {
  test("a reader resuming from an id gets exactly what followed", async () => {
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

  test("an id whose number this mailbox has reached, from another epoch or not whole, names nothing", async () => {
    const box = new Mailbox("e4");
    for (let i = 0; i < 5; i++) box.push({ type: "waiting" });
    // Before a restart the old mailbox had its own event 2: the new one's 3 to 5 are not what
    // that stream missed, and a number not whole names no event at all.
    for (const id of ["old:2", "e4:2.5", "e4:1e0x", "e4:-1"]) {
      expect(box.knows(id)).toBe(false);
      const seen: string[] = [];
      const stop = box.listen(id, (numbered) => seen.push(numbered.id));
      expect(seen).toEqual([]);
      stop();
    }
  });

  test("listeners hear each event inside push, in order, and only until they stop", async () => {
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

  test("the same listener listening twice counts, and hears, twice", async () => {
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

  test("resuming from further back than is kept replays what is kept, oldest first", async () => {
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
  const chatting = async () => {
    const b = broker({ resumeGraceMs: 30 });
    const a = await join(b, "a");
    const bb = await join(b, "b");
    return { b, events: { a: a.events, b: bb.events }, stop: { a: a.stop, b: bb.stop } };
  };
  const types = (list: Numbered[]) => list.map((n) => n.event.type);

  test("a fresh stream starts with the status, at the id a resumed stream continues from", async () => {
    const b = broker();
    const seen: Numbered[] = [];
    b.listen("a", undefined, (n) => seen.push(n));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.event).toEqual({ type: "status", status: { state: "idle" } });
    await b.start(v("a"));
    expect(types(seen)).toEqual(["status", "waiting"]);
    const statusId = seen[0]?.id ?? "";
    const resumed: Numbered[] = [];
    b.listen("a", statusId, (n) => resumed.push(n));
    expect(resumed.map((n) => n.id)).toEqual([seen[1]?.id ?? "missing"]);
    await b.close();
  });

  test("a message reaches the partner's stream before send returns; the sender has it as the answer only", async () => {
    const { b, events } = await chatting();
    const before = { a: events.a.length, b: events.b.length };
    const sent = await b.send("a", "hello");
    const got = (list: Numbered[], from: number) =>
      list.slice(from).map((n) => n.event as Extract<ChatEvent, { type: "message" }>);
    expect(got(events.b, before.b)).toEqual([
      { type: "message", chatId: expect.any(String), message: { ...sent, from: "partner" } },
    ]);
    expect(got(events.a, before.a)).toEqual([]);
    expect(sent).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      from: "me",
      content: "hello",
      timestamp: expect.any(Number),
      country: { code: null, name: "Unknown" },
    });
    await b.close();
  });

  test("with no stream left, the grace period runs out and the partner hears typing stop, then that they left", async () => {
    const { b, events, stop } = await chatting();
    stop.a();
    clock.advance(10);
    expect((await b.status("a")).state).toBe("chatting");
    clock.advance(60);
    expect(await b.status("b")).toEqual({ state: "idle" });
    expect(types(events.b).slice(-2)).toEqual(["typing", "partner-left"]);
    await b.close();
  });

  test("after the grace period an old id starts afresh, with the status, not mid-way", async () => {
    const b = broker({ resumeGraceMs: 10 });
    const seen: Numbered[] = [];
    const stop = b.listen("a", null, (n) => seen.push(n));
    await b.start(v("a"));
    await b.end("a");
    stop();
    clock.advance(40);
    const lastId = seen[seen.length - 1]?.id;
    const later: Numbered[] = [];
    b.listen("a", lastId, (n) => later.push(n));
    expect(types(later)).toEqual(["status"]);
    await b.close();
  });

  test("a listener that fails on the first event does not leave the visitor present forever", async () => {
    const b = broker({ resumeGraceMs: 10 });
    await b.start(v("w"));
    expect(() =>
      b.listen("w", null, () => {
        throw new Error("socket gone");
      }),
    ).toThrow("socket gone");
    clock.advance(40);
    expect(await b.status("w")).toEqual({ state: "idle" });
    await b.close();
  });
});
