import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { matchPreferencesOf } from "../../src/core/chat/preferences.ts";
import { RedisChatBroker } from "../../src/core/chat/redis/broker.ts";
import { RedisKeys } from "../../src/core/chat/redis/keys.ts";
import type { ChatSubscriptions } from "../../src/core/redis-bus.ts";
import {
  type BrokerUnderTest,
  brokerContract,
  type ContractOptions,
  type OpenStream,
  open,
  visitor,
} from "../helpers/broker-contract.ts";
import { isType } from "../helpers/chat-client.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { eventually } from "../helpers/eventually.ts";
import { monitorOf } from "../helpers/monitor.ts";
import { preferencesContract } from "../helpers/preferences-contract.ts";
import { redisConnections } from "../helpers/redis.ts";

// Run by `CLUSTER=1 ./scripts/test`, which starts a throwaway Redis (and a Redis Cluster) and
// names it in TEST_REDIS_URL.
const connections = redisConnections();
afterAll(() => connections.close());

const freshPrefix = () => `test:${randomBytes(6).toString("hex")}:`;

const make = async (
  options: ContractOptions,
  prefix = freshPrefix(),
  subscriptions: (bus: ChatSubscriptions) => ChatSubscriptions = (bus) => bus,
  /** Connections of its own, as another instance of the site has. */
  apart = false,
) => {
  const { redis, bus } = await (apart ? connections.separate() : connections.open());
  const time = new VirtualClock();
  /** Work its timers started, still running. */
  const background = new Set<Promise<unknown>>();
  const broker = new RedisChatBroker({
    ...options,
    redis,
    subscriptions: subscriptions(bus),
    // A fresh namespace per test: its own pool, streams and chats.
    prefix,
    time,
    sweepEveryMs: 100,
    onError: (what, error) => console.error(what, error),
    onBackground: (work) => {
      background.add(work);
      void work.finally(() => background.delete(work));
    },
  });
  await broker.connect();
  return {
    broker,
    now: time.now,
    async advance(ms: number) {
      time.advance(ms);
      while (background.size > 0) await Promise.all([...background]);
    },
    loseStore: () => connections.forget(prefix),
  } satisfies BrokerUnderTest;
};

/** Two instances of one site: the same key prefix, connections of their own each. */
const twoInstances = async (options: ContractOptions, prefix = freshPrefix()) =>
  [await make(options, prefix), await make(options, prefix, undefined, true)] as const;

/**
 * A visitor's own channel is a classic one, which a Cluster forwards over its bus: through this,
 * what it carries always comes 100 ms late, so an event sent on it alone falls behind what the
 * chat's own channel carries.
 */
const late =
  (prefix: string) =>
  (bus: ChatSubscriptions): ChatSubscriptions => ({
    onMessage: (channels, handler) =>
      bus.onMessage(
        channels,
        channels === new RedisKeys(prefix).visitorChannelPrefix
          ? (channel, payload) => void setTimeout(() => handler(channel, payload), 100)
          : handler,
      ),
    subscribe: (channel) => bus.subscribe(channel),
    unsubscribe: (channel) => bus.unsubscribe(channel),
    ssubscribe: (channel) => bus.ssubscribe(channel),
    sunsubscribe: (channel) => bus.sunsubscribe(channel),
    onReconnect: (handler) => bus.onReconnect(handler),
  });

brokerContract(`on ${connections.label}`, withoutClusterServers, make);
preferencesContract(`on ${connections.label}`, withoutClusterServers, make);

describe.skipIf(withoutClusterServers)(`on ${connections.label}: a chat made ready`, () => {
  // Only a Cluster makes a chat ready (its events go on the chat's own slot there).
  test.skipIf(!connections.cluster)(
    "the visitor who waited is paired in the chat id their instance subscribed ahead, hears a message sent at once, and that id is never used again",
    async () => {
      const prefix = freshPrefix();
      const { broker: b, advance } = await make({ resumeGraceMs: 60_000 }, prefix, late(prefix));
      const { redis } = await connections.open();
      const vis = `${prefix}{pool}:visitors`;
      try {
        const a = open(b, "a");
        const other = open(b, "b");
        for (const stream of [a, other]) await stream.waitFor(isType("status"));
        // The subscriptions made ahead are done once the instance's background work is.
        await advance(0);
        await b.start(visitor("a"));
        // The ticket: "<number> <chat id> <instance>".
        const readyIn = async () => (await redis.hget(vis, "a|ticket"))?.split(" ")[1];
        const ready = await readyIn();
        expect(ready).toMatch(/^[A-Za-z0-9_-]{12}$/);
        const status = await b.start(visitor("b"));
        expect(status).toMatchObject({ state: "chatting", chatId: ready });
        const sent = await b.send("b", "right away");
        const heard = await a.waitFor(isType("message"));
        expect(heard).toMatchObject({ type: "message", message: { id: sent.id } });
        expect(await redis.hget(vis, "a|ticket")).toBe("");
        expect(await redis.hget(vis, "a|used_chat")).toBe(ready ?? "");

        // After the chat, another id is made ready, and one a chat already used is refused.
        await b.end("b");
        await a.waitFor(isType("partner-left"));
        await advance(0);
        // "matched" came on both of a's channels: heard once, ahead of what followed it.
        expect(a.types().filter((t) => t !== "status" && t !== "waiting")).toEqual([
          "matched",
          "message",
          "partner-left",
        ]);
        expect(await b.status("a")).toEqual({ state: "idle" });
        await b.start(visitor("a"));
        const next = await readyIn();
        expect(next).toMatch(/^[A-Za-z0-9_-]{12}$/);
        expect(next).not.toBe(ready);
        await b.end("a");
        await redis.hset(vis, "a|used_chat", next ?? "");
        await b.start(visitor("a"));
        expect(await redis.hget(vis, "a|ticket")).toMatch(/^\d+$/);
        await b.end("a");
        await advance(0);
        await b.start(visitor("a"));
        const fresh = await readyIn();
        expect(fresh).toMatch(/^[A-Za-z0-9_-]{12}$/);
        expect([ready, next]).not.toContain(fresh);
        for (const stream of [a, other]) await stream.stop();
      } finally {
        await b.close();
      }
    },
  );
});

describe.skipIf(withoutClusterServers)(`on ${connections.label}: a chat's stream`, () => {
  test("has the name a message needs no checks under only while nobody in the chat is muted", async () => {
    const prefix = freshPrefix();
    const t = await make({ resumeGraceMs: 60_000 }, prefix);
    const b = t.broker;
    const { redis } = await connections.open();
    try {
      const [a, p] = ["a", "b"].map((id) => open(b, id));
      for (const s of [a, p]) await s?.waitFor(isType("status"));
      await b.start(visitor("a"));
      await b.start(visitor("b"));
      const matched = await a?.waitFor(isType("matched"));
      const chat = matched?.type === "matched" ? matched.chatId : "";
      const [, fast, checked] = new RedisKeys(prefix).chat(chat);
      const names = async () => [await redis.exists(fast), await redis.exists(checked)];
      const heard = async (from: string, text: string, to: OpenStream | undefined) => {
        const sent = await b.send(from, text);
        await to?.waitFor((e) => e.type === "message" && e.message.id === sent.id);
      };
      await heard("a", "hello", p);
      expect(await names()).toEqual([1, 0]);

      // A mute of either side: every message is checked, and the muted side's reach no one.
      await b.mute("b", "ip-b", t.now() + 5_000);
      expect(await names()).toEqual([0, 1]);
      const muted = await b.send("b", "not heard");
      await heard("a", "still heard", p);
      expect(await names()).toEqual([0, 1]);
      await t.advance(5_001);
      await heard("b", "heard again", a);
      expect(await names()).toEqual([1, 0]);
      expect(
        a?.events.some((e) => e.event.type === "message" && e.event.message.id === muted.id),
      ).toBe(false);

      // An end: a message on the stream's old name is refused like any after an end.
      await b.end("a");
      await p?.waitFor(isType("partner-left"));
      expect(await names()).toEqual([0, 1]);
      await expect(b.send("b", "too late")).rejects.toThrow();
      // What the chat said is still there to resume from and to report: "matched", three
      // messages heard, b's mute and the end.
      expect(await redis.xlen(checked)).toBe(6);
      for (const s of [a, p]) await s?.stop();
    } finally {
      await b.close();
    }
  });
});

describe.skipIf(withoutClusterServers)(`on ${connections.label}: preferences`, () => {
  test("languages and interests are kept in the pool only: gone from Redis once paired", async () => {
    const prefix = freshPrefix();
    const { broker: b } = await make({ resumeGraceMs: 60_000 }, prefix);
    const { redis } = await connections.open();
    const vis = `${prefix}{pool}:visitors`;
    const asked = async (id: string) => {
      const fields = await redis.hgetall(vis);
      return Object.entries(fields).filter(
        ([field]) =>
          field.startsWith(`${id}|`) &&
          ["anyone_from", "languages", "interest_keys", "asked"].includes(
            field.slice(id.length + 1),
          ),
      );
    };
    try {
      const preferences = matchPreferencesOf({ languages: ["en"], interests: ["hiking"] });
      const streams = [];
      for (const id of ["a", "b"]) {
        const stream = open(b, id);
        await stream.waitFor(isType("status"));
        streams.push(stream);
      }
      await b.start({ ...visitor("a"), ...(preferences ? { preferences } : {}) });
      expect(await redis.hget(vis, "a|interest_keys")).toBe("\nhiking\n");
      expect(await redis.hget(vis, "a|languages")).toBe(" en ");
      await b.start({ ...visitor("b"), ...(preferences ? { preferences } : {}) });
      for (const stream of streams) await stream.waitFor(isType("matched"));
      for (const id of ["a", "b"]) expect(await asked(id)).toEqual([]);
      expect(JSON.stringify(await redis.hgetall(vis))).not.toContain("hiking");
      for (const stream of streams) await stream.stop();
    } finally {
      await b.close();
    }
  });

  test("two who pressed start before their instance's life channel was heard are paired at the next heartbeats once it is", async () => {
    const prefix = freshPrefix();
    const lifePrefix = new RedisKeys(prefix).lifeChannelPrefix;
    let underlying: ChatSubscriptions | undefined;
    let life: string | undefined;
    // As after its Redis node restarted: the client subscribes the instance's life channel
    // again by itself, later, unseen by the instance; until then the pool pairs none of its
    // visitors.
    const { broker: one } = await make({ resumeGraceMs: 60_000 }, prefix, (bus) => {
      underlying = bus;
      return {
        onMessage: (channels, handler) => bus.onMessage(channels, handler),
        subscribe: (channel) => bus.subscribe(channel),
        unsubscribe: (channel) => bus.unsubscribe(channel),
        ssubscribe: async (channel) => {
          if (channel.startsWith(lifePrefix)) life = channel;
          else await bus.ssubscribe(channel);
        },
        sunsubscribe: (channel) => bus.sunsubscribe(channel),
        onReconnect: (handler) => bus.onReconnect(handler),
      };
    });
    const { broker: two } = await make({ resumeGraceMs: 60_000 }, prefix, undefined, true);
    try {
      const a = open(one, "a");
      const b = open(two, "b");
      for (const stream of [a, b]) await stream.waitFor(isType("status"));
      expect((await one.start(visitor("a"))).state).toBe("waiting");
      // The other instance does not pair with a visitor of one it does not hear.
      expect((await two.start(visitor("b"))).state).toBe("waiting");
      if (!underlying || !life) throw new Error("no life channel");
      await underlying.ssubscribe(life);
      for (const instance of [one, two, one, two]) await instance.beatNow();
      for (const stream of [a, b]) await stream.waitFor(isType("matched"));
      for (const stream of [a, b]) await stream.stop();
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  test("a start does not drop from the line a visitor whose instance has not beaten since Redis came back", async () => {
    const prefix = freshPrefix();
    const [one, two] = await twoInstances({ resumeGraceMs: 60_000 }, prefix);
    const { redis } = await connections.open();
    try {
      const a = open(two.broker, "a");
      const b = open(one.broker, "b");
      for (const stream of [a, b]) await stream.waitFor(isType("status"));
      // As when Redis restarted empty: no instance has beaten since.
      await redis.del(new RedisKeys(prefix).pool("hb"));
      expect((await two.broker.start(visitor("a"))).state).toBe("waiting");
      // The other instance cannot tell the first is alive yet: it does not pair with its
      // visitor, nor throw them out of the line as if their instance had died.
      expect((await one.broker.start(visitor("b"))).state).toBe("waiting");
      for (const instance of [one, two, one, two]) await instance.broker.beatNow();
      for (const stream of [a, b]) await stream.waitFor(isType("matched"));
      for (const stream of [a, b]) await stream.stop();
    } finally {
      await Promise.all([one.broker.close(), two.broker.close()]);
    }
  });

  test("Redis restarting empty puts a waiting visitor back with what they asked", async () => {
    const prefix = freshPrefix();
    const { broker: b } = await make({ resumeGraceMs: 60_000 }, prefix);
    const { redis } = await connections.open();
    const korean = matchPreferencesOf({ languages: ["ko"], interests: ["go"] });
    if (!korean) throw new Error("no preferences");
    try {
      const streams = new Map<string, ReturnType<typeof open>>();
      for (const id of ["a", "b", "c"]) {
        const stream = open(b, id);
        await stream.waitFor(isType("status"));
        streams.set(id, stream);
      }
      expect((await b.start({ ...visitor("a"), preferences: korean })).state).toBe("waiting");
      // The instance knows them as waiting once their stream has heard so.
      await streams.get("a")?.waitFor(isType("waiting"));
      // Everything the pool held is gone, as after a restart without persistence.
      await redis.del(...new RedisKeys(prefix).poolKeys());
      await b.beatNow();
      // Back in the pool still asking for Korean: one who asked for nothing waits (the
      // countdown to anyone has not run out), one who asks for Korean is paired, and both
      // hear what they share.
      expect((await b.start(visitor("b"))).state).toBe("waiting");
      expect((await b.start({ ...visitor("c"), preferences: korean })).state).toBe("chatting");
      for (const id of ["a", "c"]) {
        expect(await streams.get(id)?.waitFor(isType("matched"))).toMatchObject({
          shared: { languages: ["ko"], interests: ["go"] },
        });
      }
      for (const stream of streams.values()) await stream.stop();
    } finally {
      await b.close();
    }
  });
});

/** The texts of the messages a stream was given, in order. */
const messages = (s: OpenStream | undefined) =>
  (s?.events ?? []).flatMap(({ event }) =>
    event.type === "message" ? [event.message.content] : [],
  );

// On one Redis a message is a transaction whose announcement carries no stream id; on a Cluster
// it is the send script (the test above).
describe.skipIf(withoutClusterServers)(`on ${connections.label}: a message`, () => {
  test.skipIf(connections.cluster)(
    "on one Redis is one transaction, no script; the partner resumes from it on another instance",
    async () => {
      const [one, two] = await twoInstances({ resumeGraceMs: 60_000 });
      const { redis } = await connections.separate();
      const monitor = await monitorOf(redis as Redis);
      const seen: string[] = [];
      let opened = 0;
      monitor.on("monitor", (_time: string, args: string[]) => {
        seen.push(String(args[0]).toLowerCase());
        if (String(args[2]).includes('"matched"')) opened += 1;
      });
      try {
        const a = open(one.broker, "a");
        const p = open(two.broker, "b");
        for (const s of [a, p]) await s.waitFor(isType("status"));
        await one.broker.start(visitor("a"));
        await two.broker.start(visitor("b"));
        for (const s of [a, p]) await s.waitFor(isType("matched"));
        // The chat's opening, as MONITOR reports it (on a connection of its own, late).
        await eventually(() => opened === 2, "the opening seen");
        seen.length = 0;
        const sent = await one.broker.send("a", "kept in one step");
        await p.waitFor((e) => e.type === "message" && e.message.id === sent.id);
        expect(seen).toEqual(["multi", "xadd", "publish", "exec"]);
        // The partner's event id names the message; a stream resuming from it on the other
        // instance gets what followed it, once.
        const mark = p.lastId();
        expect(mark).toContain(sent.id.slice(12));
        await p.stop();
        await one.broker.send("a", "while away");
        const back = open(one.broker, "b", mark);
        await back.waitFor((e) => e.type === "message" && e.message.content === "while away");
        await one.broker.send("a", "and after");
        await back.waitFor((e) => e.type === "message" && e.message.content === "and after");
        expect(messages(back)).toEqual(["while away", "and after"]);
        for (const s of [a, back]) await s.stop();
      } finally {
        monitor.disconnect();
        redis.disconnect();
        await one.broker.close();
        await two.broker.close();
      }
    },
  );

  test("of a muted side reaches no tab, however late it opened; once the mute is over, each comes once", async () => {
    const [one, two] = await twoInstances({ resumeGraceMs: 60_000 });
    try {
      const early = open(one.broker, "a");
      const b = open(one.broker, "b");
      for (const s of [early, b]) await s.waitFor(isType("status"));
      await one.broker.start(visitor("a"));
      await one.broker.start(visitor("b"));
      await early.waitFor(isType("matched"));
      await one.broker.send("b", "before");
      await one.broker.mute("b", "ip-b", one.now() + 5_000);
      // A tab opened on another instance while b is muted: its first read says so.
      const late = open(two.broker, "a");
      await late.waitFor(isType("status"));
      await one.broker.send("b", "not heard");
      await one.broker.send("b", "not heard either");
      // a's own messages still reach b.
      await one.broker.send("a", "to b");
      await b.waitFor((e) => e.type === "message" && e.message.content === "to b");
      await one.advance(5_001);
      await two.advance(0);
      await one.broker.send("b", "heard again");
      await one.broker.send("b", "and again");
      for (const s of [early, late]) {
        await s.waitFor((e) => e.type === "message" && e.message.content === "and again");
      }
      expect(messages(early)).toEqual(["before", "heard again", "and again"]);
      expect(messages(late)).toEqual(["heard again", "and again"]);
      expect(messages(b)).toEqual(["to b"]);
      for (const s of [early, late, b]) await s.stop();
    } finally {
      await one.broker.close();
      await two.broker.close();
    }
  });
});

describe.skipIf(withoutClusterServers)(`on ${connections.label}: Redis back empty`, () => {
  test("a message its append could not keep reaches nobody, and the chat is lost for both", async () => {
    const prefix = freshPrefix();
    // The instance's subscriptions, whose "back after a lost connection" the test calls.
    const reconnects: Array<() => void> = [];
    const t = await make({ resumeGraceMs: 60_000 }, prefix, (bus) => ({
      onMessage: (channels, handler) => bus.onMessage(channels, handler),
      subscribe: (channel) => bus.subscribe(channel),
      unsubscribe: (channel) => bus.unsubscribe(channel),
      ssubscribe: (channel) => bus.ssubscribe(channel),
      sunsubscribe: (channel) => bus.sunsubscribe(channel),
      onReconnect: (handler) => {
        reconnects.push(handler);
        bus.onReconnect(handler);
      },
    }));
    const { redis } = await connections.open();
    try {
      const [a, b] = ["a", "b"].map((id) => open(t.broker, id)) as [OpenStream, OpenStream];
      for (const s of [a, b]) await s.waitFor(isType("status"));
      await t.broker.start(visitor("a"));
      await t.broker.start(visitor("b"));
      const matched = await a.waitFor(isType("matched"));
      const chat = matched.type === "matched" ? matched.chatId : "";
      await t.broker.send("b", "kept");
      await a.waitFor((e) => e.type === "message" && e.message.content === "kept");
      // The chat's keys gone, as after Redis came back empty, and the subscriptions back.
      for (const key of new RedisKeys(prefix).chat(chat)) await redis.del(key);
      for (const reconnected of reconnects) reconnected();
      await expect(t.broker.send("b", "not kept")).rejects.toThrow();
      // Both told they are idle again (after the status each stream opened with).
      const idle = (s: OpenStream) =>
        s.events.filter((e) => e.event.type === "status" && e.event.status.state === "idle");
      await eventually(() => idle(a).length === 2 && idle(b).length === 2, "both told");
      expect(messages(a)).toEqual(["kept"]);
      for (const s of [a, b]) await s.stop();
    } finally {
      await t.broker.close();
    }
  });
});

describe.skipIf(withoutClusterServers)(`on ${connections.label}: mutes`, () => {
  test("a mute made on one instance is known on every other without asking Redis", async () => {
    const prefix = freshPrefix();
    const [one, two] = await twoInstances({}, prefix);
    const brokers = [one.broker, two.broker];
    try {
      const until = one.now() + 60_000;
      await one.broker.mute("v", "ip-x", until);
      expect(await one.broker.mutedUntil("v", "ip-x")).toBe(until);
      await eventually(
        async () => (await two.broker.mutedUntil("v", "ip-x")) === until,
        "the other instance hears of the mute",
      );
      // Everyone on the address, and nobody else.
      expect(await two.broker.mutedUntil("w", "ip-x")).toBe(until);
      expect(await two.broker.mutedUntil("w", "ip-y")).toBeNull();
      // An instance started afterwards reads the mutes in force as it connects.
      const three = await make({}, prefix, undefined, true);
      brokers.push(three.broker);
      expect(await three.broker.mutedUntil("w", "ip-x")).toBe(until);
      // Each answers from its copy: with the pool's mutes gone from Redis, they still know.
      const { redis } = await connections.open();
      await redis.del(new RedisKeys(prefix).pool("mutes"));
      for (const b of brokers) expect(await b.mutedUntil("v", "ip-x")).toBe(until);
      // And once it ends, it is over everywhere.
      await two.advance(60_000);
      expect(await two.broker.mutedUntil("v", "ip-x")).toBeNull();
    } finally {
      for (const b of brokers) await b.close();
    }
  });
});

/** A broker whose visitors' own channels come late (see `late`): a and b listen, a waits. */
async function lateWithOneWaiting() {
  const prefix = freshPrefix();
  const { broker, advance } = await make({}, prefix, late(prefix));
  const a = open(broker, "a");
  const b = open(broker, "b");
  for (const stream of [a, b]) await stream.waitFor(isType("status"));
  await advance(0);
  await broker.start(visitor("a"));
  return { broker, advance, a, b };
}

describe.skipIf(withoutClusterServers)(`on ${connections.label}: the visitor who pairs`, () => {
  test('hears "matched" before whatever the chat says next, however late their own channel is', async () => {
    const { broker: b, advance, a: waiter, b: starter } = await lateWithOneWaiting();
    try {
      // b pairs with a by pressing start; a leaves at once.
      expect(await b.start(visitor("b"))).toMatchObject({ state: "chatting" });
      await b.end("a");
      await starter.waitFor(isType("partner-left"));
      await advance(0);
      expect(starter.types().filter((t) => t === "matched" || t === "partner-left")).toEqual([
        "matched",
        "partner-left",
      ]);
      for (const stream of [waiter, starter]) await stream.stop();
    } finally {
      await b.close();
    }
  });

  test('hears "matched" in each of their tabs, on whichever instance holds it', async () => {
    const [one, two] = await twoInstances({});
    try {
      const waiter = open(one.broker, "a");
      const here = open(one.broker, "b");
      const there = open(two.broker, "b");
      for (const stream of [waiter, here, there]) await stream.waitFor(isType("status"));
      await one.advance(0);
      await one.broker.start(visitor("a"));
      expect(await one.broker.start(visitor("b"))).toMatchObject({ state: "chatting" });
      for (const stream of [here, there]) await stream.waitFor(isType("matched"));
      await one.broker.send("a", "hello, both tabs");
      for (const stream of [here, there]) await stream.waitFor(isType("message"));
      expect(there.types().filter((t) => t === "matched")).toHaveLength(1);
      for (const stream of [waiter, here, there]) await stream.stop();
    } finally {
      await one.broker.close();
      await two.broker.close();
    }
  });
});

describe.skipIf(withoutClusterServers)(`on ${connections.label}: typing`, () => {
  test("typing and messages reach the partner in the order they were said", async () => {
    const { broker: b, advance, a, b: partner } = await lateWithOneWaiting();
    try {
      await b.start(visitor("b"));
      await partner.waitFor(isType("matched"));
      await b.send("a", "first");
      await b.typing("a", true);
      await b.send("a", "second");
      await partner.waitFor((e) => e.type === "message" && e.message.content === "second");
      await advance(1000);
      await b.typing("a", false);
      await partner.waitFor((e) => e.type === "typing" && !e.isTyping);
      const said = partner.events.flatMap(
        ({ event: e }): Array<string | boolean> =>
          e.type === "message" ? [e.message.content] : e.type === "typing" ? [e.isTyping] : [],
      );
      expect(said).toEqual(["first", true, "second", false]);
      for (const stream of [a, partner]) await stream.stop();
    } finally {
      await b.close();
    }
  });
});

describe.skipIf(withoutClusterServers)(`on ${connections.label}: a message it cannot read`, () => {
  test("is dropped and told, and the instance goes on relaying", async () => {
    const prefix = freshPrefix();
    const dropped: string[] = [];
    const { redis, bus } = await connections.separate((what) => dropped.push(what));
    const b = new RedisChatBroker({
      resumeGraceMs: 60_000,
      redis,
      subscriptions: bus,
      prefix,
      time: new VirtualClock(),
      onError: (what, error) => console.error(what, error),
    });
    await b.connect();
    try {
      const a = open(b, "a");
      const other = open(b, "b");
      for (const stream of [a, other]) await stream.waitFor(isType("status"));
      await b.start(visitor("a"));
      await b.start(visitor("b"));
      await a.waitFor(isType("matched"));
      // What another version of the site might publish: no tab, then JSON that is not JSON.
      const channel = new RedisKeys(prefix).visitorChannel("a");
      await redis.publish(channel, "an event of another kind");
      await redis.publish(channel, "~\t{not json");
      await eventually(() => dropped.length === 2, "both dropped");
      expect(dropped).toEqual(Array(2).fill(`reading a message on ${prefix}v:`));
      await b.send("b", "still here");
      await a.waitFor((e) => e.type === "message" && e.message.content === "still here");
      for (const stream of [a, other]) await stream.stop();
    } finally {
      await b.close();
    }
  });
});
