import { randomBytes } from "node:crypto";
import type Redis from "ioredis";
import {
  CHAT_LIMITS,
  type ChatEvent,
  type ChatMessage,
  type ChatStatus,
} from "../../common/chat.ts";
import { CHAT_TIMINGS } from "../../common/chat-timings.ts";
import type { AppErrorCode } from "../../common/errors.ts";
import { systemTime, type Time, type TimerHandle } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { RedisScript } from "../redis-script.ts";
import type { KeyBan } from "./bans.ts";
import type {
  BrokerCounts,
  BrokerOptions,
  ChatBroker,
  ChatVisitor,
  HeldMessage,
} from "./broker.ts";
import type { Numbered } from "./mailbox.ts";
import { RandomIds } from "./memory-broker.ts";
import { anyoneFrom } from "./preferences.ts";
import { prelude, SCRIPTS, type ScriptName } from "./redis-lua.ts";
import { TypingWindows } from "./typing.ts";

export interface RedisBrokerOptions extends Omit<BrokerOptions, "isBanned"> {
  /** Commands and scripts. */
  redis: Redis;
  /** A second connection, for subscribing (a subscribed connection takes no commands). */
  subscriber: Redis;
  /** Keys and channels start with this, so several sites (or tests) can share one Redis. */
  prefix?: string;
  /** How long an open stream keeps its visitor alive between refreshes. */
  aliveTtlMs?: number;
  /** How often one instance at a time looks for visitors gone past the grace period. */
  sweepEveryMs?: number;
}

/** A stream id of Redis ("<ms>-<seq>") as a pair that compares in order. */
function streamOrder(id: string): [number, number] {
  const dash = id.indexOf("-");
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}
function after(a: string, b: string): boolean {
  const [am, as] = streamOrder(a);
  const [bm, bs] = streamOrder(b);
  return am > bm || (am === bm && as > bs);
}
const STREAM_ID = /^\d{1,16}-\d{1,10}$/;

interface LocalStream {
  push(numbered: Numbered): void;
  /** Events may have been missed: read them back from the visitor's Redis stream. */
  resync(): void;
}
type Timer = ReturnType<typeof setTimeout>;

/**
 * The chat on Redis, for several instances serving one site: pairing, relay, presence and
 * limits are Lua scripts (see redis-lua.ts), each one atomic step for every instance. A
 * visitor's events go into a Redis stream whose ids are the event ids a reconnecting socket
 * resumes from, on any instance; each instance hears of new events for the streams it holds
 * through a pub/sub channel of its own. Presence is a key with a TTL that the holding instance
 * refreshes; one instance at a time (a lease) sweeps visitors gone past the grace period, so the
 * partners of an instance that dies are told too.
 */
export class RedisChatBroker implements ChatBroker {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #prefix: string;
  readonly #instance = randomBytes(9).toString("base64url");
  readonly #time: Time;
  readonly #now: () => number;
  readonly #graceMs: number;
  readonly #aliveTtlMs: number;
  readonly #meetAgainAfterMs: number;
  readonly #messageIds = new RandomIds();
  readonly #scripts: Record<ScriptName, RedisScript>;
  /** Streams open on this instance, by visitor. */
  readonly #local = new Map<string, Set<LocalStream>>();
  readonly #typing = new TypingWindows(
    { ...systemTime, now: () => this.#now() },
    async (visitorId, isTyping) => {
      await this.#run("typing", visitorId, isTyping ? "1" : "0");
    },
  );
  /**
   * Looks again at a waiting visitor once their fallback delay ends and once a recent partner
   * may be met again.
   */
  readonly #rematch = new Set<TimerHandle>();
  readonly #timers: Timer[] = [];
  #closed = false;

  constructor(options: RedisBrokerOptions) {
    this.#redis = options.redis;
    this.#subscriber = options.subscriber;
    this.#prefix = options.prefix ?? "tidings:";
    this.#time = options.time ?? systemTime;
    this.#now = () => this.#time.now();
    this.#graceMs = options.resumeGraceMs ?? CHAT_TIMINGS.resumeGraceMs;
    this.#aliveTtlMs = options.aliveTtlMs ?? 3000;
    this.#meetAgainAfterMs = options.meetAgainAfterMs ?? 20_000;
    const head = prelude({
      skipPartnerMs: options.skipPartnerMs ?? 10 * 60 * 1000,
      keepEndedMs: options.keepEndedMs ?? 10 * 60 * 1000,
      meetAgainAfterMs: this.#meetAgainAfterMs,
    });
    this.#scripts = Object.fromEntries(
      Object.entries(SCRIPTS).map(([name, body]) => [
        name,
        new RedisScript(this.#redis, `${head}\n${body}`),
      ]),
    ) as Record<ScriptName, RedisScript>;

    this.#subscriber.on("message", (_channel: string, payload: string) => this.#deliver(payload));
    // After a reconnect, ioredis subscribes again; what was published meanwhile is read back.
    this.#subscriber.on("ready", () => this.#catchUp());
    void this.#subscriber.subscribe(this.#channel());
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const timer = setInterval(() => void fn().catch(() => {}), ms);
      timer.unref?.();
      this.#timers.push(timer);
    };
    every(Math.floor(this.#aliveTtlMs / 3), () => this.#refresh());
    every(options.sweepEveryMs ?? 500, () => this.#sweep());
  }

  #channel(): string {
    return `${this.#prefix}inbox:${this.#instance}`;
  }

  #run(name: ScriptName, ...args: Array<string | number>): Promise<unknown> {
    return this.#scripts[name].run([], [this.#prefix, this.#now(), ...args]);
  }

  async #json<T>(name: ScriptName, ...args: Array<string | number>): Promise<T | null> {
    const answer = await this.#run(name, ...args);
    return typeof answer === "string" ? (JSON.parse(answer) as T) : null;
  }

  #chatId(): string {
    return randomBytes(9).toString("base64url");
  }

  /** An event announced on this instance's channel: "<visitor> <id> <event JSON>". */
  #deliver(payload: string): void {
    const first = payload.indexOf(" ");
    const second = payload.indexOf(" ", first + 1);
    const visitorId = payload.slice(0, first);
    const streams = this.#local.get(visitorId);
    if (!streams) return;
    const numbered: Numbered = {
      id: payload.slice(first + 1, second),
      event: JSON.parse(payload.slice(second + 1)) as ChatEvent,
    };
    for (const stream of streams) stream.push(numbered);
  }

  /** Events published while the subscription was down are read back from the streams. */
  #catchUp(): void {
    for (const streams of this.#local.values()) for (const stream of streams) stream.resync();
  }

  async status(visitorId: string): Promise<ChatStatus> {
    return (await this.#json<ChatStatus>("status", visitorId)) ?? { state: "idle" };
  }

  async *events(
    visitorId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered[], void, undefined> {
    const queue: Numbered[] = [];
    let wake: (() => void) | undefined;
    let resync = false;
    const stream: LocalStream = {
      push(numbered) {
        queue.push(numbered);
        wake?.();
      },
      resync() {
        resync = true;
        wake?.();
      },
    };
    let streams = this.#local.get(visitorId);
    if (!streams) {
      streams = new Set();
      this.#local.set(visitorId, streams);
    }
    streams.add(stream);
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      // Announced from here on; then what came before is read, so nothing falls between.
      const attached = await this.#json<{ status: ChatStatus; lastId: string }>(
        "attach",
        visitorId,
        this.#instance,
        this.#aliveTtlMs,
        this.#chatId(),
      );
      let last = attached?.lastId ?? "0-0";
      const known =
        lastEventId && STREAM_ID.test(lastEventId)
          ? (await this.#redis.xrange(`${this.#prefix}ev:${visitorId}`, lastEventId, lastEventId))
              .length > 0
          : false;
      if (known && lastEventId) {
        const missed = await this.#read(visitorId, lastEventId);
        if (missed.length > 0) {
          last = missed.at(-1)?.id ?? last;
          yield missed;
        }
      } else {
        yield [
          { id: last, event: { type: "status", status: attached?.status ?? { state: "idle" } } },
        ];
      }
      while (!signal.aborted) {
        if (resync) {
          resync = false;
          queue.length = 0;
          queue.push(...(await this.#read(visitorId, last)));
        }
        // Everything waiting leaves in one batch; what an earlier read already gave is skipped.
        const batch = queue.splice(0).filter((numbered) => {
          if (!after(numbered.id, last)) return false;
          last = numbered.id;
          return true;
        });
        if (batch.length > 0) {
          yield batch;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      streams.delete(stream);
      if (streams.size === 0) this.#local.delete(visitorId);
      if (!this.#closed) await this.#run("detach", visitorId, this.#instance).catch(() => {});
    }
  }

  /** The visitor's events after `from`, from their Redis stream. */
  async #read(visitorId: string, from: string): Promise<Numbered[]> {
    const entries = await this.#redis.xrange(`${this.#prefix}ev:${visitorId}`, `(${from}`, "+");
    return entries.map(([id, fields]) => ({
      id,
      event: JSON.parse(fields[1] ?? "{}") as ChatEvent,
    }));
  }

  async start(visitor: ChatVisitor): Promise<ChatStatus> {
    const { preferences } = visitor;
    // Languages and interest keys between separators, so the pool script compares them with a
    // plain find; the labels (the visitor's own words) only for the "matched" event.
    const languages = preferences?.languages.length ? ` ${preferences.languages.join(" ")} ` : "";
    const interests = preferences?.interests.length
      ? `\n${preferences.interests.map((i) => i.key).join("\n")}\n`
      : "";
    const fallbackMs = anyoneFrom(preferences, 0);
    const answer = await this.#json<ChatStatus | { banned: true }>(
      "start",
      visitor.visitorId,
      visitor.ipKey,
      visitor.country.countryCode ?? "",
      visitor.country.country,
      fallbackMs,
      languages,
      interests,
      preferences ? JSON.stringify(preferences) : "",
      this.#chatId(),
    );
    if (!answer || "banned" in answer) {
      throw new DomainError("CHAT_BANNED", "user is banned from chat");
    }
    if (answer.state === "waiting") this.#matchLater(visitor.visitorId, fallbackMs);
    return answer;
  }

  async widen(visitorId: string): Promise<void> {
    await this.#run("widen", visitorId, this.#chatId());
  }

  /**
   * When the visitor's fallback delay ends and when a recent partner may be met again, this
   * instance looks at the pool once more for them (a no-op if they were paired meanwhile).
   */
  #matchLater(visitorId: string, fallbackMs: number): void {
    for (const ms of new Set([fallbackMs, this.#meetAgainAfterMs])) {
      if (ms <= 0) continue;
      const timer = this.#time.setTimeout(() => {
        this.#rematch.delete(timer);
        void this.#run("match", visitorId, this.#chatId()).catch(() => {});
      }, ms + 50);
      timer.unref();
      this.#rematch.add(timer);
    }
  }

  async send(
    visitorId: string,
    content: string,
    options: { contact?: boolean } = {},
  ): Promise<ChatMessage> {
    const answer = await this.#json<{ message?: ChatMessage; error?: AppErrorCode }>(
      "send",
      visitorId,
      content.slice(0, CHAT_LIMITS.message),
      this.#messageIds.next(),
      options.contact ? "1" : "0",
    );
    if (answer?.message) return answer.message;
    if (answer?.error === "CHAT_BANNED") throw new DomainError("CHAT_BANNED", "user is banned");
    throw new DomainError("NOT_FOUND", "not in a chat");
  }

  /** Tells the partner whether the visitor is typing (coalesced on this instance: see TypingWindows). */
  async typing(visitorId: string, isTyping: boolean): Promise<void> {
    await this.#typing.note(visitorId, isTyping);
  }

  async end(visitorId: string): Promise<void> {
    await this.#run("end", visitorId);
  }

  async partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined> {
    const chats = await this.#redis.lrange(`${this.#prefix}vchats:${visitorId}`, 0, -1);
    for (const chatId of chats) {
      const messages = await this.#redis.lrange(`${this.#prefix}msgs:${chatId}`, 0, -1);
      for (const json of messages) {
        const held = JSON.parse(json) as HeldMessage;
        if (held.id === messageId) return held.senderVisitorId === visitorId ? undefined : held;
      }
    }
    return undefined;
  }

  async block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    return (await this.#json<ChatVisitor>("block", visitorId, until)) ?? undefined;
  }

  async rememberBlock(
    blocker: string,
    blocked: { visitorId: string; ipKey: string },
    until: number,
  ): Promise<void> {
    await this.#run("rememberBlock", blocker, blocked.visitorId, blocked.ipKey, until);
  }

  async mute(visitorId: string, ipKey: string, until: number): Promise<void> {
    await this.#run("mute", visitorId, ipKey, until);
  }

  async mutedUntil(visitorId: string, ipKey: string): Promise<number | null> {
    const values = await this.#redis.mget(
      `${this.#prefix}mute:${visitorId}`,
      `${this.#prefix}mute:ip:${ipKey}`,
    );
    const until = Math.max(0, ...values.map(Number).filter(Number.isFinite));
    return until > this.#now() ? until : null;
  }

  async ban(bans: readonly KeyBan[]): Promise<void> {
    if (bans.length > 0) {
      await this.#run("ban", ...bans.flatMap(({ key, until }) => [key, until]));
    }
  }

  async online(): Promise<number> {
    const counts = await this.counts();
    return counts.waiting + 2 * counts.chatting;
  }

  async counts(): Promise<BrokerCounts> {
    const counts = await this.#json<Omit<BrokerCounts, "ended">>("counts");
    return { waiting: 0, chatting: 0, present: 0, ...counts, ended: 0 };
  }

  /** In slices, so that no one script holds Redis for long (each visitor costs a few commands). */
  async #refresh(): Promise<void> {
    const visitors = [...this.#local.keys()];
    for (let i = 0; i < visitors.length; i += 500) {
      await this.#run("refresh", this.#instance, this.#aliveTtlMs, ...visitors.slice(i, i + 500));
    }
  }

  /** One instance at a time, by a lease that lapses if its holder dies. */
  async #sweep(): Promise<void> {
    const lease = `${this.#prefix}lease:sweep`;
    // Short, so another instance takes over soon after the holder dies.
    const ttl = 2000;
    const got = await this.#redis.set(lease, this.#instance, "PX", ttl, "NX");
    if (!got) {
      if ((await this.#redis.get(lease)) !== this.#instance) return;
      await this.#redis.pexpire(lease, ttl);
    }
    await this.#run("sweep", this.#graceMs, 500);
  }

  /**
   * The server is stopping. On Redis the chats go on: the visitors' sockets reconnect to
   * another instance and resume there, within the grace period.
   */
  async endAll(): Promise<void> {}

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const timer of this.#rematch) this.#time.clearTimeout(timer);
    this.#typing.close();
    await this.#subscriber.unsubscribe(this.#channel()).catch(() => {});
  }
}
