import { describe as describeSuite, expect, test } from "bun:test";
import type { ChatEvent } from "../../src/common/chat.ts";
import type { BrokerOptions, ChatBroker } from "../../src/core/chat/broker.ts";
import type { Numbered } from "../../src/core/chat/mailbox.ts";
import { isType } from "./chat-client.ts";

/** Options every broker under the contract takes (timings shortened for tests). */
export type ContractOptions = Pick<
  BrokerOptions,
  "resumeGraceMs" | "meetAgainAfterMs" | "skipPartnerMs" | "time"
>;

/**
 * A broker under the contract, with its time: `now` as the broker reads it, and `advance`,
 * which moves it on, runs what falls due meanwhile, and resolves once the broker has done what
 * that started. No test waits for real time to pass.
 */
export interface BrokerUnderTest {
  broker: ChatBroker;
  now(): number;
  advance(ms: number): Promise<void>;
  /**
   * Where the broker keeps its state outside the process loses it all at once, as a Redis
   * restarted empty does (absent for a broker whose state is its process's own).
   */
  loseStore?(): Promise<void>;
}

export const visitor = (id: string, ipKey = `ip-${id}`) => ({
  visitorId: id,
  ipKey,
  country: { code: "TW", name: "Taiwan" },
});

/** A visitor's open stream, read in the background. */
export interface OpenStream {
  events: Numbered[];
  /** Closes the stream; resolves once the broker has let it go. */
  stop(): Promise<void>;
  /** An event matching, among those after the first `from` (all by default). */
  waitFor(match: (e: ChatEvent) => boolean, ms?: number, from?: number): Promise<ChatEvent>;
  types(): string[];
  /** The id a reconnecting stream would resume from. */
  lastId(): string | undefined;
}

export function open(b: ChatBroker, id: string, lastEventId?: string | null): OpenStream {
  const abort = new AbortController();
  const events: Numbered[] = [];
  const wakers = new Set<() => void>();
  const done = (async () => {
    for await (const batch of b.events(id, lastEventId, abort.signal)) {
      events.push(...batch);
      for (const wake of wakers) wake();
    }
  })();
  return {
    events,
    async stop() {
      abort.abort();
      await done;
    },
    types: () => events.map((e) => e.event.type),
    lastId: () => events.at(-1)?.id,
    waitFor(match, ms = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find((e) => match(e.event));
          if (!found) return;
          wakers.delete(check);
          clearTimeout(timer);
          resolve(found.event);
        };
        // A guard against a test that would hang, not a wait: it fails the test.
        const timer = setTimeout(() => {
          wakers.delete(check);
          reject(new Error(`timed out; events: ${JSON.stringify(events.map((e) => e.event))}`));
        }, ms);
        wakers.add(check);
        check();
      });
    },
  };
}

/** Opens a stream, waits for its first event, and presses start. */
async function join(b: ChatBroker, id: string, ipKey?: string) {
  const stream = open(b, id);
  await stream.waitFor(() => true);
  const status = await b.start(visitor(id, ipKey));
  return { stream, status };
}

const chatting = (e: ChatEvent) =>
  e.type === "matched" || (e.type === "status" && e.status.state === "chatting");

/**
 * The rules every chat broker keeps, in memory or on Redis, through its seams only (the pool,
 * the relay, the holds: broker.ts): the one suite both brokers pass, a part per seam. `make`
 * gives a fresh broker (with its own empty state) for each test.
 */
export function brokerContract(
  name: string,
  /** The broker's servers cannot be reached here: the suite is skipped. */
  skip: boolean,
  make: (options: ContractOptions) => Promise<BrokerUnderTest>,
): void {
  const describe = skip ? describeSuite.skip : describeSuite;
  const withBroker =
    (options: ContractOptions, body: (b: ChatBroker, t: BrokerUnderTest) => Promise<void>) =>
    async () => {
      const t = await make({ resumeGraceMs: 60_000, ...options });
      try {
        await body(t.broker, t);
      } finally {
        await t.broker.close();
      }
    };

  describe(`${name}: the pool: pairing`, () => {
    test(
      "first come, first served; never oneself (another tab starting again changes nothing); everyone once",
      withBroker({}, async (b) => {
        expect((await join(b, "a")).status).toEqual({ state: "waiting" });
        expect(await b.start(visitor("a"))).toEqual({ state: "waiting" });
        expect(await b.online()).toBe(1);
        expect((await join(b, "b")).status).toMatchObject({ state: "chatting" });
        expect((await join(b, "c")).status).toEqual({ state: "waiting" });
        expect(await b.start(visitor("c"))).toEqual({ state: "waiting" });
        expect((await join(b, "d")).status).toMatchObject({ state: "chatting" });
        const chatOf = async (id: string) => ((await b.status(id)) as { chatId: string }).chatId;
        expect(await chatOf("a")).toBe(await chatOf("b"));
        expect(await chatOf("c")).toBe(await chatOf("d"));
        expect(await chatOf("a")).not.toBe(await chatOf("c"));
        expect(await b.online()).toBe(4);
      }),
    );

    test(
      "leaving while waiting takes the visitor out of the pool",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        await b.end("a");
        await a.stream.waitFor(isType("idle"));
        expect(await b.status("a")).toEqual({ state: "idle" });
        expect((await join(b, "b")).status).toEqual({ state: "waiting" });
      }),
    );

    test(
      "only visitors with an open stream are paired; one who started first is paired when it opens",
      withBroker({}, async (b) => {
        expect(await b.start(visitor("ghost"))).toEqual({ state: "waiting" });
        // The ghost's stream never opened: the newcomer waits instead of meeting nobody.
        expect((await join(b, "n")).status).toEqual({ state: "waiting" });
        const ghost = open(b, "ghost");
        // Paired as the stream opens: told by its first status or a "matched" right after.
        await ghost.waitFor(chatting);
        expect(await b.status("n")).toMatchObject({ state: "chatting" });
      }),
    );

    test(
      "one who starts before their stream opens is not paired with those waiting until it opens",
      withBroker({}, async (b) => {
        await join(b, "n");
        expect(await b.start(visitor("late"))).toEqual({ state: "waiting" });
        expect(await b.status("n")).toEqual({ state: "waiting" });
        const late = open(b, "late");
        await late.waitFor(chatting);
        expect(await b.status("n")).toMatchObject({ state: "chatting" });
      }),
    );

    test(
      "starting again in a chat (another tab) changes nothing: the next stranger is not paired with them",
      withBroker({}, async (b) => {
        await join(b, "a");
        await join(b, "p");
        const chat = await b.status("a");
        expect(chat).toMatchObject({ state: "chatting" });
        expect(await b.start(visitor("a"))).toEqual(chat);
        expect((await join(b, "c")).status).toEqual({ state: "waiting" });
        expect(await b.status("a")).toEqual(chat);
      }),
    );

    test(
      "a waiting visitor whose stream closes leaves the pool at once; coming back, they hear it",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        const mark = a.stream.lastId();
        await a.stream.stop();
        expect(await b.status("a")).toEqual({ state: "idle" });
        const back = open(b, "a", mark);
        await back.waitFor(
          (e) => e.type === "idle" || (e.type === "status" && e.status.state === "idle"),
        );
        expect((await join(b, "b")).status).toEqual({ state: "waiting" });
      }),
    );

    test(
      "recent partners prefer anyone else, and meet again once both waited long enough alone",
      withBroker({ meetAgainAfterMs: 300 }, async (b, t) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        await b.end("a");
        expect(await b.start(visitor("a"))).toEqual({ state: "waiting" });
        expect(await b.start(visitor("b"))).toEqual({ state: "waiting" });
        // c takes a, the longest waiting, not b.
        expect((await join(b, "c")).status).toMatchObject({ state: "chatting" });
        expect(await b.status("a")).toMatchObject({ state: "chatting" });
        await b.end("c");
        expect(await b.start(visitor("a"))).toEqual({ state: "waiting" });
        // Only b is there; neither has waited long enough yet.
        await t.advance(100);
        expect(await b.status("a")).toEqual({ state: "waiting" });
        await t.advance(600);
        // a met b, then c, then b again.
        await a.stream.waitFor(
          () => a.stream.types().filter((type) => type === "matched").length === 3,
        );
        expect(await b.status("a")).toMatchObject({ state: "chatting" });
        expect(await b.status("b")).toMatchObject({ state: "chatting" });
        // b hears it too (on a Cluster, over another channel than a: not necessarily first).
        await p.stream.waitFor(
          () => p.stream.types().filter((type) => type === "matched").length === 2,
        );
        expect(await b.status("a")).toMatchObject({ state: "chatting" });
      }),
    );

    test(
      "recent partners meet again only once both have waited long enough, not when one has",
      withBroker({ meetAgainAfterMs: 300 }, async (b, t) => {
        await join(b, "a");
        await join(b, "b");
        await b.end("a");
        expect(await b.start(visitor("b"))).toEqual({ state: "waiting" });
        await t.advance(200);
        expect(await b.start(visitor("a"))).toEqual({ state: "waiting" });
        // b has waited 350 ms, a only 150.
        await t.advance(150);
        expect(await b.status("b")).toEqual({ state: "waiting" });
        expect(await b.status("a")).toEqual({ state: "waiting" });
        await t.advance(200);
        expect(await b.status("a")).toMatchObject({ state: "chatting" });
        expect(await b.status("b")).toMatchObject({ state: "chatting" });
      }),
    );

    test(
      "1,000 simultaneous starts pair everyone exactly once",
      withBroker({}, async (b) => {
        const ids = Array.from({ length: 1000 }, (_, i) => `v${i}`);
        const streams = ids.map((id) => open(b, id));
        await Promise.all(streams.map((s) => s.waitFor(() => true)));
        await Promise.all(ids.map((id) => b.start(visitor(id))));
        const members = new Map<string, string[]>();
        for (const id of ids) {
          const status = await b.status(id);
          expect(status.state).toBe("chatting");
          if (status.state === "chatting") {
            members.set(status.chatId, [...(members.get(status.chatId) ?? []), id]);
          }
        }
        expect(members.size).toBe(500);
        for (const pair of members.values()) expect(new Set(pair).size).toBe(2);
        expect(await b.online()).toBe(1000);
        await Promise.all(streams.map((s) => s.stop()));
      }),
    );

    test(
      "starts with no stream open stand in nobody's way: after 80 of them, two who listen are paired at once; the first of them to open a stream is the next one paired",
      withBroker({ resumeGraceMs: 60_000 }, async (b) => {
        // A script can press start without ever listening (and again, past the limits' reach,
        // from many cookies): none of them can be told of a match until a stream opens.
        for (let i = 0; i < 80; i++) await b.start(visitor(`ghost-${i}`));
        expect(await b.counts()).toMatchObject({ waiting: 0 });
        const a = await join(b, "a");
        const c = await join(b, "c");
        expect(c.status).toMatchObject({ state: "chatting" });
        await a.stream.waitFor(chatting);
        const ghost = open(b, "ghost-0");
        await ghost.waitFor(() => true);
        const d = await join(b, "d");
        expect(d.status).toMatchObject({ state: "chatting" });
        await ghost.waitFor(chatting);
        expect(await b.counts()).toMatchObject({ chatting: 2 });
        for (const stream of [a.stream, c.stream, ghost, d.stream]) await stream.stop();
      }),
    );
  });

  describe(`${name}: the relay: messages and streams`, () => {
    test(
      "a message reaches the partner (the sender has it as the answer); only the partner's messages can be reported",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        const sent = await b.send("a", "hello there");
        expect(sent).toMatchObject({
          from: "me",
          content: "hello there",
          country: { code: "TW", name: "Taiwan" },
        });
        const got = await p.stream.waitFor((e) => e.type === "message" && e.message.id === sent.id);
        expect(got).toMatchObject({ message: { ...sent, from: "partner" } });
        // The partner's reply arrives after it: had the sender's own copy been sent, it came first.
        const reply = await b.send("b", "hello back");
        await a.stream.waitFor((e) => e.type === "message" && e.message.id === reply.id);
        expect(a.stream.types().filter((type) => type === "message")).toHaveLength(1);
        expect((await b.partnerMessage("b", sent.id))?.content).toBe("hello there");
        expect(await b.partnerMessage("b", sent.id)).toMatchObject({
          senderVisitorId: "a",
          senderIpKey: "ip-a",
        });
        expect(await b.partnerMessage("a", sent.id)).toBeUndefined();
        expect(await b.partnerMessage("c", sent.id)).toBeUndefined();
      }),
    );

    test(
      "after the chat ends, its messages can still be reported; a visitor not in a chat sends nothing",
      withBroker({}, async (b) => {
        await join(b, "a");
        const p = await join(b, "b");
        const sent = await b.send("a", "said before leaving");
        await b.end("a");
        await p.stream.waitFor(isType("partner-left"));
        expect((await b.partnerMessage("b", sent.id))?.content).toBe("said before leaving");
        await expect(b.send("a", "anyone?")).rejects.toThrow();
      }),
    );

    test(
      "typing reaches the partner at most twice a second, the last state last",
      withBroker({}, async (b, t) => {
        await join(b, "a");
        const p = await join(b, "b");
        for (let i = 0; i < 200; i++) await b.typing("a", i % 2 === 0);
        await b.typing("a", false);
        await t.advance(800);
        await p.stream.waitFor((e) => e.type === "typing" && !e.isTyping);
        const typing = p.stream.events
          .map((e) => e.event)
          .filter((e): e is Extract<ChatEvent, { type: "typing" }> => e.type === "typing");
        expect(typing.length).toBeLessThanOrEqual(3);
        expect(typing[0]?.isTyping).toBe(true);
        expect(typing.at(-1)?.isTyping).toBe(false);
      }),
    );

    test(
      "a stream resuming from an id gets exactly what followed; an unknown id starts with the status",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        await join(b, "b");
        await a.stream.waitFor(isType("matched"));
        const mark = a.stream.lastId();
        await a.stream.stop();
        await b.send("b", "while away 1");
        await b.send("b", "while away 2");
        const back = open(b, "a", mark);
        await back.waitFor((e) => e.type === "message" && e.message.content === "while away 2");
        expect(back.types()).toEqual(["message", "message"]);
        const fresh = open(b, "a", "nonsense");
        await fresh.waitFor(isType("status"));
        expect(fresh.events[0]?.event).toMatchObject({
          type: "status",
          status: { state: "chatting" },
        });
        // And from the status's id, what follows it.
        await b.send("b", "after the status");
        const again = open(b, "a", fresh.events[0]?.id);
        await again.waitFor(
          (e) => e.type === "message" && e.message.content === "after the status",
        );
        expect(again.types()).toEqual(["message"]);
      }),
    );

    test(
      "a stream resuming from a message's id gets exactly what followed that message",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        await join(b, "b");
        await a.stream.waitFor(isType("matched"));
        await b.send("b", "one");
        await b.send("b", "two");
        await a.stream.waitFor((e) => e.type === "message" && e.message.content === "two");
        const idOf = (text: string) =>
          a.stream.events.find(
            (e) => e.event.type === "message" && e.event.message.content === text,
          )?.id;
        await a.stream.stop();
        await b.send("b", "three");
        const said = (s: OpenStream) =>
          s.events.map((e) =>
            e.event.type === "message" ? e.event.message.content : e.event.type,
          );
        for (const [from, followed] of [
          ["two", ["three"]],
          ["one", ["two", "three"]],
        ] as const) {
          const back = open(b, "a", idOf(from));
          await back.waitFor((e) => e.type === "message" && e.message.content === "three");
          expect(said(back)).toEqual([...followed]);
          await back.stop();
        }
      }),
    );
  });

  describe(`${name}: the holds: blocks, mutes and contact details`, () => {
    test(
      "a block ends the chat and keeps the two apart, by visitor and by address; others still meet them",
      withBroker({ meetAgainAfterMs: 100 }, async (b, t) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        const blocked = await b.block("a", t.now() + 60_000);
        expect(blocked).toMatchObject({ visitorId: "b", ipKey: "ip-b" });
        await p.stream.waitFor(isType("partner-left"));
        expect(await b.status("a")).toEqual({ state: "idle" });
        await b.start(visitor("a"));
        await b.start(visitor("b"));
        await t.advance(400);
        expect(await b.status("a")).toEqual({ state: "waiting" });
        await b.end("b");
        // The same person with a new cookie, from the same address.
        expect((await join(b, "b-again", "ip-b")).status).toEqual({ state: "waiting" });
        await b.end("b-again");
        expect((await join(b, "c")).status).toMatchObject({ state: "chatting" });
        expect(await b.status("a")).toMatchObject({ state: "chatting" });
        await a.stream.stop();
      }),
    );

    test(
      "a block remembered from before keeps the two apart",
      withBroker({}, async (b, t) => {
        await b.rememberBlock("a", { visitorId: "b", ipKey: "ip-b" }, t.now() + 60_000);
        await join(b, "a");
        expect((await join(b, "b")).status).toEqual({ state: "waiting" });
        expect((await join(b, "c")).status).toMatchObject({ state: "chatting" });
        expect(await b.status("a")).toMatchObject({ state: "chatting" });
      }),
    );

    test(
      "a muted sender's messages reach no one; they are told until when",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        await b.mute("a", "ip-a", 4_000_000_000_000);
        await a.stream.waitFor((e) => e.type === "muted" && e.until === 4_000_000_000_000);
        expect(await b.mutedUntil("a", "ip-a")).toBe(4_000_000_000_000);
        const sent = await b.send("a", "into the void");
        expect(sent.content).toBe("into the void");
        const reply = await b.send("b", "still here");
        await a.stream.waitFor((e) => e.type === "message" && e.message.id === reply.id);
        const back = await b.send("b", "and here");
        await a.stream.waitFor((e) => e.type === "message" && e.message.id === back.id);
        expect(
          p.stream.events.some((e) => e.event.type === "message" && e.event.message.id === sent.id),
        ).toBe(false);
      }),
    );

    test(
      "once a mute runs out, the sender's messages reach the partner again; the partner's always did",
      withBroker({}, async (b, t) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        await b.mute("a", "ip-a", t.now() + 5_000);
        await a.stream.waitFor(isType("muted"));
        await b.send("a", "not yet");
        const meanwhile = await b.send("b", "meanwhile");
        await a.stream.waitFor((e) => e.type === "message" && e.message.id === meanwhile.id);
        await t.advance(5_001);
        const heard = await b.send("a", "now heard");
        await p.stream.waitFor((e) => e.type === "message" && e.message.id === heard.id);
        const again = await b.send("a", "and again");
        await p.stream.waitFor((e) => e.type === "message" && e.message.id === again.id);
        expect(
          p.stream.events.flatMap(({ event: e }) => (e.type === "message" ? [e.message.id] : [])),
        ).toEqual([heard.id, again.id]);
      }),
    );

    test(
      "a mute holds for the address too: a new cookie there is muted as well",
      withBroker({}, async (b) => {
        await join(b, "a", "shared");
        await b.mute("a", "shared", 4_000_000_000_000);
        await b.end("a");
        const c = await join(b, "c", "shared");
        const p = await join(b, "d");
        expect(await b.mutedUntil("c", "shared")).toBe(4_000_000_000_000);
        expect(await b.mutedUntil("d", "ip-d")).toBeNull();
        const sent = await b.send("c", "a fresh cookie, the same address");
        const reply = await b.send("d", "anyone there?");
        await c.stream.waitFor((e) => e.type === "message" && e.message.id === reply.id);
        expect(
          p.stream.events.some((e) => e.event.type === "message" && e.event.message.id === sent.id),
        ).toBe(false);
      }),
    );

    test(
      "a message with contact details carries the mark to both copies",
      withBroker({}, async (b) => {
        await join(b, "a");
        const p = await join(b, "b");
        const sent = await b.send("a", "mail me", { contact: true });
        expect(sent.contact).toBe(true);
        const got = await p.stream.waitFor((e) => e.type === "message" && e.message.id === sent.id);
        expect(got).toMatchObject({ message: { contact: true, from: "partner" } });
        const plain = await b.send("a", "hello");
        expect(plain.contact).toBeUndefined();
      }),
    );
  });

  describe(`${name}: the pool and holds: leaving and bans`, () => {
    test(
      "with no stream left past the grace period, the partner hears they left; the pool and presence empty",
      withBroker({ resumeGraceMs: 200 }, async (b, t) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        await a.stream.stop();
        await t.advance(50);
        expect((await b.status("a")).state).toBe("chatting");
        await t.advance(1000);
        await p.stream.waitFor(isType("partner-left"));
        expect(await b.status("b")).toEqual({ state: "idle" });
        await p.stream.stop();
        await b.start(visitor("never-listens"));
        await t.advance(1500);
        expect(await b.counts()).toMatchObject({ waiting: 0, chatting: 0, present: 0 });
      }),
    );

    test(
      "a crowd leaving at once (one side of 12 chats): past the grace period every partner hears it, and the left are let go",
      withBroker({ resumeGraceMs: 200 }, async (b, t) => {
        const chats: Array<{ left: OpenStream; stays: OpenStream }> = [];
        for (let i = 0; i < 12; i++) {
          const left = await join(b, `left-${i}`);
          const stays = await join(b, `stays-${i}`);
          chats.push({ left: left.stream, stays: stays.stream });
        }
        for (const { left } of chats) await left.stop();
        // One sweep after the grace period: it takes them all, a few at a time.
        await t.advance(300);
        for (const { stays } of chats) await stays.waitFor(isType("partner-left"));
        expect(await b.counts()).toMatchObject({ waiting: 0, chatting: 0, present: 12 });
      }),
    );

    test(
      "coming back within the grace period keeps the chat",
      withBroker({ resumeGraceMs: 1000 }, async (b, t) => {
        const a = await join(b, "a");
        const p = await join(b, "b");
        await a.stream.stop();
        await t.advance(100);
        const back = open(b, "a");
        await back.waitFor(isType("status"));
        await t.advance(1500);
        expect((await b.status("a")).state).toBe("chatting");
        expect(p.stream.types()).not.toContain("partner-left");
      }),
    );

    test(
      "a ban ends the visitor's chat and tells them; a ban on an address covers all its visitors",
      withBroker({}, async (b) => {
        const a = await join(b, "a");
        const partner = await join(b, "b");
        await b.ban([{ key: "visitor:a", until: 123 }]);
        await a.stream.waitFor((e) => e.type === "banned" && e.until === 123);
        await partner.stream.waitFor(isType("partner-left"));
        expect(await b.status("a")).toEqual({ state: "idle" });
        expect(await b.status("b")).toEqual({ state: "idle" });
        const x = await join(b, "x", "shared");
        await join(b, "p");
        const y = await join(b, "y", "shared");
        await join(b, "q");
        await b.ban([{ key: "ip:shared", until: 456 }]);
        await x.stream.waitFor(isType("banned"));
        await y.stream.waitFor(isType("banned"));
        for (const id of ["p", "q"]) expect(await b.status(id)).toEqual({ state: "idle" });
        // Keys that cover one visitor twice tell them once, with the latest end.
        await b.ban([
          { key: "visitor:x", until: 789 },
          { key: "ip:shared", until: 700 },
        ]);
        await x.stream.waitFor((e) => e.type === "banned" && e.until === 789);
        await y.stream.waitFor((e) => e.type === "banned" && e.until === 700);
        const told = x.stream.events.filter(
          (e) => e.event.type === "banned" && e.event.until >= 700,
        );
        expect(told).toHaveLength(1);
      }),
    );
  });

  /**
   * Every change of where a visitor stands reaches every open stream of theirs (two tabs here),
   * whichever path made it.
   */
  describe(`${name}: every tab hears every change`, () => {
    /** a (two tabs) chatting with b. */
    const twoTabs = async (b: ChatBroker) => {
      const first = await join(b, "a");
      const second = open(b, "a");
      await second.waitFor(isType("status"));
      const partner = await join(b, "b");
      for (const tab of [first.stream, second]) await tab.waitFor(chatting);
      return { tabs: [first.stream, second], partner: partner.stream };
    };
    /** Each tab hears, after what it had heard when `heard` was called, an event matching. */
    const heard = (tabs: OpenStream[]) => {
      const from = tabs.map((tab) => tab.events.length);
      return (match: (e: ChatEvent) => boolean) =>
        Promise.all(tabs.map((tab, i) => tab.waitFor(match, 5000, from[i])));
    };
    const idle = (e: ChatEvent) =>
      e.type === "idle" || (e.type === "status" && e.status.state === "idle");

    test(
      "ending in one tab: the other tab hears it too",
      withBroker({}, async (b) => {
        const { tabs, partner } = await twoTabs(b);
        const eachTab = heard(tabs);
        await b.end("a");
        await eachTab(idle);
        await partner.waitFor(isType("partner-left"));
      }),
    );

    test(
      "a block in one tab: both tabs leave the chat",
      withBroker({}, async (b) => {
        const { tabs } = await twoTabs(b);
        const eachTab = heard(tabs);
        expect((await b.block("a", 10 ** 13))?.visitorId).toBe("b");
        await eachTab(idle);
      }),
    );

    test(
      "a ban: both tabs hear it",
      withBroker({}, async (b) => {
        const { tabs, partner } = await twoTabs(b);
        const eachTab = heard(tabs);
        await b.ban([{ key: "visitor:a", until: 123 }]);
        await eachTab((e) => e.type === "banned" && e.until === 123);
        await partner.waitFor(isType("partner-left"));
      }),
    );

    test(
      "the partner gone past the grace period: both tabs hear they left",
      withBroker({ resumeGraceMs: 200 }, async (b, t) => {
        const { tabs, partner } = await twoTabs(b);
        const eachTab = heard(tabs);
        await partner.stop();
        await t.advance(1500);
        await eachTab(isType("partner-left"));
      }),
    );

    test(
      "the store lost: a send is refused as no chat, and at once every tab of the sender hears the chat was lost",
      withBroker({}, async (b, t) => {
        if (!t.loseStore) return;
        const { tabs } = await twoTabs(b);
        const eachTab = heard(tabs);
        await t.loseStore();
        const refused = await b.send("a", "still typing").then(
          () => undefined,
          (error: { code?: string }) => error.code,
        );
        expect(refused).toBe("NOT_FOUND");
        await eachTab(idle);
      }),
    );

    test(
      "the store lost and nobody sends: the next heartbeat's restore tells every tab of both sides",
      withBroker({}, async (b, t) => {
        if (!t.loseStore) return;
        const { tabs, partner } = await twoTabs(b);
        const everyTab = heard([...tabs, partner]);
        await t.loseStore();
        await t.advance(2500);
        await everyTab(idle);
        // And they can be paired again.
        await b.start(visitor("a"));
        expect((await b.start(visitor("b"))).state).toBe("chatting");
      }),
    );
  });
}
