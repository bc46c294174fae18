import { randomBytes } from "node:crypto";
import {
  CHAT_LIMITS,
  type ChatEvent,
  type ChatMessage,
  type ChatPartner,
  type ChatStatus,
} from "../../common/chat.ts";
import { CHAT_TIMINGS } from "../../common/chat-timings.ts";
import { systemTime, type Time, type TimerHandle } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { isCluster, type RedisClient, RedisScript } from "../redis-script.ts";
import type { VisitorKeys } from "../requester.ts";
import type { KeyBan } from "./bans.ts";
import type {
  BrokerCounts,
  BrokerOptions,
  ChatBroker,
  ChatVisitor,
  HeldMessage,
} from "./broker.ts";
import { holdKeys } from "./holds.ts";
import { RandomIds } from "./ids.ts";
import type { Numbered } from "./mailbox.ts";
import { MuteCopy } from "./mute-copy.ts";
import { anyoneFrom, type MatchPreferences, sharedGround } from "./preferences.ts";
import { CHAT_SCRIPTS, type ChatScript, chatScriptSource } from "./redis-chat-lua.ts";
import { RedisKeys } from "./redis-keys.ts";
import {
  BEAT,
  LEASE_RELEASE,
  LEASE_TAKE,
  POOL_SCRIPTS,
  type PoolScript,
  poolScriptSource,
  RESTORE_ARGS,
} from "./redis-pool-lua.ts";
import { TypingWindows } from "./typing.ts";

/** The subscriptions the broker needs, on a connection of its own (see RedisBus). */
export interface ChatSubscriptions {
  /** Events for the visitors whose channels this instance subscribes to. */
  onMessage(prefix: string, handler: (channel: string, payload: string) => void): void;
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** A sharded channel, on the node of its slot (the life channel; on a Cluster, chat sides). */
  ssubscribe(channel: string): Promise<void>;
  sunsubscribe(channel: string): Promise<void>;
  /** Called each time the subscriptions are back after a lost connection. */
  onReconnect(handler: () => void): void;
}

export interface RedisBrokerOptions extends Omit<BrokerOptions, "isBanned"> {
  /** Commands and scripts. */
  redis: RedisClient;
  subscriptions: ChatSubscriptions;
  /** Keys and channels start with this, so several sites (or tests) can share one Redis. */
  prefix?: string;
  /** How often the instance tells Redis it lives; it counts as dead after three missed. */
  heartbeatMs?: number;
  /** How often one instance at a time looks for visitors gone past the grace period. */
  sweepEveryMs?: number;
  /** Events a chat keeps for a socket that resumes (and messages for reports). */
  keptEvents?: number;
  /** How many waiting visitors one look at the pool reads. */
  poolScan?: number;
  /**
   * On a Redis Cluster: a chat's events after "matched" go to its sides' sharded channels,
   * which the instances holding a side subscribe to while the chat runs (see redis-chat-lua.ts).
   */
  shardedEvents?: boolean;
  /** How long a running chat's keys live without being ended (a safety net). */
  chatLifeMs?: number;
  /** Redis came back without the chat's state: what else must be said again (bans, blocks). */
  onRestored?: () => Promise<void>;
  /** A fault worth the operator's eyes (bounded by the caller). */
  onError?: (what: string, error: unknown) => void;
}

/**
 * Whether a chat's messages announced by a transaction were kept (redis-chat-lua.ts, gate): its
 * stream had the name the transaction appends to (open) or not (closed: a side is muted, and
 * each message goes through the send script, which announces it again with its id when it
 * passes). `count` orders the changes; a stream takes them in the order its channel carried
 * them, after what a read of the chat said.
 */
interface Gate {
  gate: true;
  chat: string;
  count: number;
  closed: boolean;
}

/** A message to keep and announce in a pipeline of transactions (see #keepAndAnnounce). */
interface Transaction {
  stream: string;
  messageId: string;
  /** The side whose event it is (the partner's). */
  side: "a" | "b";
  event: string;
  channel: string;
  announced: string;
  resolve(kept: boolean): void;
  reject(error: unknown): void;
}

/** What a visitor's streams on this instance are handed: events, and their chats' gates. */
type Queued = Numbered | Gate;

/** What this instance keeps of a visitor's chat, to relay without asking the pool. */
interface ChatRef {
  id: string;
  side: "a" | "b";
  partner: string;
  partnerCountry: ChatPartner;
  self: ChatPartner;
}

/** What the pool answers of where a visitor stands (redis-pool-lua.ts, status). */
interface PoolStatus {
  state: "idle" | "waiting" | "chatting";
  chat?: string;
  side?: "a" | "b";
  pt?: string;
  pcc?: string;
  pco?: string;
  ip?: string;
  cc?: string;
  co?: string;
}

interface PairSide {
  id: string;
  ip: string;
  cc: string;
  co: string;
  mute: string;
  /** What they asked of a match (JSON), when they asked anything. */
  prefs?: string;
  /** The instances holding their streams (told for the visitor who paired, b). */
  inst?: string;
}
/**
 * Where a visitor hears "matched" (the chat's open script): "" on their own channel only; on a
 * Cluster, "both" there and on their side's channel, which an instance subscribed before the
 * chat opened (so it comes ahead of what follows there), or "side" on that one only (no other
 * instance holds a stream of theirs).
 */
type Where = "" | "both" | "side";
interface Paired {
  chat: string;
  a: PairSide;
  b: PairSide;
  /** Where a hears "matched" (see Where): absent for their own channel only. */
  ready?: Exclude<Where, "">;
}
/** A chat the pool has let go of, to be ended on its own slot. */
interface Ending {
  chat: string;
  /** The visitor who left (or was banned, or gone), their side, and their partner. */
  visitor: string;
  side: "a" | "b";
  pt: string;
  until?: number;
}

/**
 * Where the visitor stands once an event is heard, when it says: what a stream told last, so
 * that it never tells it twice in a row (a change is told here at once, and the pool or the
 * chat's script says it again a moment later).
 */
function standing(event: ChatEvent): string | undefined {
  switch (event.type) {
    case "idle":
    case "waiting":
      return event.type;
    case "status":
      return event.status.state === "chatting" ? `chat ${event.status.chatId}` : event.status.state;
    case "matched":
      return `chat ${event.chatId}`;
    case "partner-left":
      return "idle";
    case "banned":
      return `banned ${event.until}`;
    default:
      return undefined;
  }
}

/** One open stream on this instance. */
class LocalStream {
  queue: Queued[] = [];
  wake: (() => void) | undefined;
  /** The last stream id delivered, by chat: what an event must come after. */
  readonly positions = new Map<string, string>();
  /** The id a stream resumes from: the last event's delivered. */
  last = "-";
  /** The gates of the last chats this stream heard of (see Gate). */
  readonly #gates = new Map<string, Gate>();
  /** The last messages delivered, so one read and announced, or announced twice, comes once. */
  readonly #recent: string[] = [];
  /** Where the events delivered last said the visitor stands (see standing). */
  #standing: string | undefined;

  push(item: Queued): void {
    this.queue.push(item);
    this.wake?.();
  }

  /** Whether the event is new to this stream; notes where it stands. */
  accept(item: Queued): item is Numbered {
    if ("gate" in item) {
      if (item === FORGET_GATES) {
        this.#gates.clear();
        return false;
      }
      const known = this.#gates.get(item.chat);
      if (!known || item.count >= known.count) {
        this.#gates.delete(item.chat);
        this.#gates.set(item.chat, item);
        const oldest = this.#gates.keys().next().value;
        if (this.#gates.size > GATES_KEPT && oldest !== undefined) this.#gates.delete(oldest);
      }
      return false;
    }
    const id = item.id;
    if (id === EPHEMERAL) {
      item.id = this.last;
      return true;
    }
    const unkept = id.indexOf(UNKEPT);
    // Announced by a transaction: kept only if the chat's gate was open (see Gate).
    const gate = unkept > 0 ? this.#gates.get(id.slice(0, unkept)) : undefined;
    if (unkept > 0 && (!gate || gate.closed)) return false;
    const stands = standing(item.event);
    if (stands !== undefined && stands === this.#standing && item.event.type !== "matched") {
      return false;
    }
    const message = item.event.type === "message" ? item.event.message.id : undefined;
    if (message !== undefined) {
      if (this.#recent.includes(message)) return false;
      if (this.#recent.push(message) > RECENT_MESSAGES) this.#recent.shift();
    }
    if (unkept > 0) {
      const chat = id.slice(0, unkept);
      item.id = `${chat}.${this.positions.get(chat) ?? "0-0"}${id.slice(unkept)}`;
      this.last = item.id;
      return true;
    }
    const dot = id.indexOf(".");
    if (dot > 0) {
      const chat = id.slice(0, dot);
      const at = id.slice(dot + 1);
      const seen = this.positions.get(chat);
      if (seen !== undefined && !after(at, seen)) return false;
      this.positions.set(chat, at);
    }
    this.last = id;
    this.#standing = stands ?? this.#standing;
    return true;
  }
}

/**
 * A visitor with streams open on this instance. Where they stand (`state`, `chat`) changes only
 * through `hear` (an event, handed to every open stream of theirs in the same step) and
 * `settle` (what the pool or a read says, told to every stream as a status when the page would
 * draw it differently), so no path can change it without their pages hearing.
 */
class LocalVisitor {
  readonly streams = new Set<LocalStream>();
  #state: PoolStatus["state"] = "idle";
  #chat: ChatRef | undefined;
  /** On a Cluster: the side channel of their chat this instance subscribes to for them. */
  following: string | undefined;
  /** What that channel carried while what came before the subscription is read. */
  held: string[] | undefined;
  /**
   * On a Cluster: a chat id whose side "a" channel this instance subscribed for them ahead of
   * time (ready once subscribed). Passed with their start, it names the chat someone is paired
   * with them in while they wait, so nothing of it has to be read back (see #reserve).
   */
  reserved: { chat: string; channel: string; ready: boolean } | undefined;
  /** The last chat whose "matched" reached them here (it may come on two channels). */
  matchedIn: string | undefined;

  constructor(
    readonly id: string,
    private readonly moved: (local: LocalVisitor) => void,
  ) {}

  /** Their chat as this instance keeps it (a change of chat is followed: see #follow). */
  get chat(): ChatRef | undefined {
    return this.#chat;
  }
  get state(): PoolStatus["state"] {
    return this.#state;
  }

  #set(state: PoolStatus["state"], chat: ChatRef | undefined): void {
    const before = this.#chat;
    this.#state = state;
    this.#chat = chat;
    if (before?.id !== chat?.id || before?.side !== chat?.side) this.moved(this);
  }

  /**
   * An event (or a chat's gate) for every open stream of theirs; what it says of where they
   * stand is kept. An event of an older chat than theirs changes nothing here.
   */
  hear(item: Queued): void {
    if (!("gate" in item)) {
      const { event, id } = item;
      const chatOfId = id.includes(".") ? id.slice(0, id.indexOf(".")) : undefined;
      switch (event.type) {
        case "waiting":
          // Older news than the chat they are in: on a Cluster "matched" comes on the chat's
          // own channel and can overtake the start's "waiting" on theirs.
          if (this.#chat) return;
          this.#set("waiting", undefined);
          break;
        case "idle":
        case "banned":
        case "partner-left":
          if (!chatOfId || chatOfId === this.#chat?.id) this.#set("idle", undefined);
          break;
        case "status":
          this.#set(event.status.state, event.status.state === "chatting" ? this.#chat : undefined);
          break;
        default:
          break;
      }
    }
    for (const stream of this.streams) stream.push(copyFor(item));
  }

  /**
   * Where the pool (or a read) says they stand, kept. Leaving a chat, or a search, without an
   * event that says so is told to their streams as a status: a chat that ends so ends as lost
   * on their pages. Entering a chat is told by its "matched", which the chat's opening sends
   * to both sides.
   */
  settle(state: PoolStatus["state"], chat?: ChatRef): void {
    if (chat) {
      this.#set(state, chat);
      return;
    }
    const now = state === "waiting" ? "waiting" : "idle";
    if (!this.#chat && this.#state === now) return;
    this.hear({ id: OUTSIDE, event: { type: "status", status: { state: now } } });
  }

  /** Their address and country, as last known (to say again after Redis restarted). */
  ip = "";
  country: ChatPartner = { countryCode: null, country: "Unknown" };
  /**
   * What they asked for when they last pressed start, as the pool keeps it (when anyone will do,
   * languages, interest keys, JSON): said again with them if Redis restarts while they wait.
   */
  asked: [anyone: number, languages: string, interests: string, json: string] | undefined;
  /** Attached in the pool from this instance (resolves once the pool knows). */
  attached: Promise<PoolStatus> | undefined;
  /** Attach and detach of one visitor happen in turn. */
  chain: Promise<unknown> = Promise.resolve();
}

/** How long a side channel let go of stays subscribed, for the chat's last events. */
const SIDE_LINGER_MS = 10_000;

/** Events a chat's stream keeps at most, unless told otherwise (XADD MAXLEN ~). */
export const KEPT_EVENTS = 100;

/** Mutes an instance copies at most (each one visitor's or address's; more are asked of Redis). */
const MUTES_COPIED = 100_000;

/**
 * Visitors one sweeping step lets go of at most: each costs Redis up to ~85 µs (their chat, the
 * pool, a dozen fields), so a step stays under half a millisecond and nothing waits long behind
 * it; when many left at once, steps follow one another.
 */
const SWEEP_BATCH = 5;
/** Sweeping steps one sweep takes at most (10,000 visitors a second). */
const SWEEP_STEPS = 2000;
/** Entries one look at past relations, bans or mutes reads (a few µs each). */
const SCAN_PAGE = 200;
/** A dead instance's visitors one step takes over (each ~20 µs: a few commands). */
const ORPHAN_BATCH = 20;
/** Visitors one step tells Redis again after it came back empty (each a dozen commands). */
const RESTORE_BATCH = 10;

/** An event id outside any chat (names no place to resume from). */
const OUTSIDE = "-";
/**
 * Between a chat's id and a message's own (its id after the chat's): a message an instance kept
 * and announced in one transaction, whose stream id the announcement cannot carry. A stream
 * resumes from it as "<chat>.<the stream id before it>+<its own id>".
 */
const UNKEPT = "+";
/** What a chat's gate changing is announced as (redis-chat-lua.ts, gate). */
const GATE = "!";
/** Forgets every chat's gate: transactions' messages are dropped until a read tells it again. */
const FORGET_GATES: Gate = { gate: true, chat: "", count: 0, closed: true };
/** How many chats' gates a stream keeps (a resume reads two: the one it left, the one it is in). */
const GATES_KEPT = 2;
/** How many of the last messages a stream remembers, to deliver each once. */
const RECENT_MESSAGES = 16;
/** What each of a visitor's streams is handed: an event of its own (accept rewrites its id). */
const copyFor = (item: Queued): Queued => ("gate" in item ? item : { ...item });
/** Typing: not kept; it takes the id of the event before it. */
const EPHEMERAL = "~";

/** A stream id of Redis ("<ms>-<seq>") compared in order. */
function after(a: string, b: string): boolean {
  const da = a.indexOf("-");
  const db = b.indexOf("-");
  const am = Number(a.slice(0, da));
  const bm = Number(b.slice(0, db));
  return am > bm || (am === bm && Number(a.slice(da + 1)) > Number(b.slice(db + 1)));
}
const CHAT_ID = /^[A-Za-z0-9_-]{12}$/;
const STREAM_ID = /^\d{1,16}-\d{1,10}$/;

/** Where a stream asks to resume from: a place in a chat, or "outside any chat". */
function parseResume(
  lastEventId: string | null | undefined,
): { chat: string; at: string; through?: string } | "outside" | undefined {
  if (!lastEventId) return undefined;
  if (lastEventId === OUTSIDE) return "outside";
  const dot = lastEventId.indexOf(".");
  const chat = lastEventId.slice(0, dot);
  const rest = lastEventId.slice(dot + 1);
  const unkept = rest.indexOf(UNKEPT);
  const at = unkept === -1 ? rest : rest.slice(0, unkept);
  const own = unkept === -1 ? "" : rest.slice(unkept + 1);
  if (dot <= 0 || !CHAT_ID.test(chat) || !STREAM_ID.test(at)) return undefined;
  if (unkept === -1) return { chat, at };
  return CHAT_ID.test(own) ? { chat, at, through: `${chat}${own}` } : undefined;
}

const partnerOf = (cc: string | undefined, co: string | undefined): ChatPartner => ({
  countryCode: cc ? cc : null,
  country: co || "Unknown",
});

/** The chat the pool says a visitor is in, or undefined when it says they are in none. */
function chatRefOf(status: PoolStatus): ChatRef | undefined {
  if (status.state !== "chatting" || !status.chat) return undefined;
  return {
    id: status.chat,
    side: status.side === "b" ? "b" : "a",
    partner: status.pt ?? "",
    partnerCountry: partnerOf(status.pcc, status.pco),
    self: partnerOf(status.cc, status.co),
  };
}

/**
 * The chat on Redis, for several instances serving one site (keys and scripts: redis-keys.ts,
 * redis-pool-lua.ts, redis-chat-lua.ts). The pool, presence and who is in which chat are on one
 * hash tag, so pairing is one atomic step; each chat's hash and event stream are on a tag of
 * their own, so on a Redis Cluster chats spread over the nodes. A relayed message is one script
 * on its chat's slot: kept in the chat's stream (whose ids are the events' ids a reconnecting
 * socket resumes from, on any instance) and published to the partner's channel, to which the
 * instances holding the partner's streams subscribe; while the chat runs with nobody muted, its
 * stream's name is the check (redis-chat-lua.ts, send). Presence costs nothing per visitor while
 * connected: an instance writes a visitor once when their stream opens and once when it closes,
 * and vouches for all of them with one heartbeat; its life is also read from the subscriber count
 * of a channel of its own, so a killed instance's visitors are never paired. One instance at a
 * time (a lease) sweeps visitors gone past the grace period and the visitors of dead instances.
 */
export class RedisChatBroker implements ChatBroker {
  readonly #redis: RedisClient;
  readonly #bus: ChatSubscriptions;
  readonly #keys: RedisKeys;
  readonly #instance = randomBytes(9).toString("base64url");
  readonly #time: Time;
  readonly #graceMs: number;
  readonly #meetAgainAfterMs: number;
  readonly #keepEndedMs: number;
  readonly #heartbeatMs: number;
  readonly #kept: number;
  readonly #chatLifeMs: number;
  readonly #poolArgs: string[];
  readonly #ids = new RandomIds();
  readonly #pool: Record<PoolScript, RedisScript>;
  readonly #chat: Record<ChatScript, RedisScript>;
  readonly #beat: RedisScript;
  readonly #leaseTake: RedisScript;
  readonly #leaseRelease: RedisScript;
  readonly #visitors = new Map<string, LocalVisitor>();
  /** The mutes in force, as every instance announces them (see MuteCopy). */
  readonly #mutes = new MuteCopy(MUTES_COPIED);
  #mutesLoading: Promise<void> | undefined;
  /** On a Cluster: whose side each side channel subscribed here carries. */
  readonly #sides = new Map<string, string>();
  readonly #sharded: boolean;
  /** Whether messages go in transactions (one Redis) rather than the send script (a Cluster). */
  readonly #transactions: boolean;
  /** Messages waiting to go in the next pipeline of transactions (see #keepAndAnnounce). */
  #waiting: Transaction[] = [];
  /** Whether a pipeline of transactions is on its way. */
  #sending = false;
  readonly #typing: TypingWindows;
  /**
   * Looks again at a waiting visitor once their fallback delay ends and once a recent partner
   * may be met again.
   */
  readonly #rematch = new Map<string, TimerHandle[]>();
  readonly #timers: TimerHandle[] = [];
  readonly #options: RedisBrokerOptions;
  #epoch: string | undefined;
  /** A restore failed half-way (Redis was not quite back): the next heartbeat tries again. */
  #restoreFailed = false;
  #sweeping = false;
  #beating = false;
  #restoring: Promise<void> | undefined;
  #sweeps = 0;
  #cursors: [string, string] = ["0", "0"];
  #closed = false;
  /** Work started by timers, still running. */
  readonly #background = new Set<Promise<unknown>>();

  constructor(options: RedisBrokerOptions) {
    this.#options = options;
    this.#redis = options.redis;
    this.#bus = options.subscriptions;
    this.#keys = new RedisKeys(options.prefix ?? "tidings:");
    this.#time = options.time ?? systemTime;
    this.#graceMs = options.resumeGraceMs ?? CHAT_TIMINGS.resumeGraceMs;
    this.#meetAgainAfterMs = options.meetAgainAfterMs ?? 20_000;
    this.#keepEndedMs = options.keepEndedMs ?? 10 * 60 * 1000;
    this.#heartbeatMs = options.heartbeatMs ?? 2000;
    this.#kept = options.keptEvents ?? KEPT_EVENTS;
    this.#chatLifeMs = options.chatLifeMs ?? 24 * 60 * 60 * 1000;
    this.#poolArgs = [
      this.#keys.visitorChannelPrefix,
      this.#keys.lifeChannelPrefix,
      this.#instance,
      String(3 * this.#heartbeatMs),
      String(options.poolScan ?? 64),
      String(this.#meetAgainAfterMs),
      String(options.skipPartnerMs ?? 10 * 60 * 1000),
    ];
    const scripts = <N extends string>(
      names: readonly N[],
      source: (name: N) => string,
      keyCount: number,
    ) =>
      Object.fromEntries(
        names.map((name) => [name, new RedisScript(this.#redis, source(name), [keyCount])]),
      ) as Record<N, RedisScript>;
    this.#pool = scripts(
      Object.keys(POOL_SCRIPTS) as PoolScript[],
      poolScriptSource,
      this.#keys.poolKeys().length,
    );
    // A chat's hash, its stream's two names, and on a Cluster its two sides' channels.
    const chatKeys = options.shardedEvents ? 5 : 3;
    this.#chat = scripts(Object.keys(CHAT_SCRIPTS) as ChatScript[], chatScriptSource, chatKeys);
    this.#beat = new RedisScript(this.#redis, BEAT, [2]);
    this.#leaseTake = new RedisScript(this.#redis, LEASE_TAKE, [1]);
    this.#leaseRelease = new RedisScript(this.#redis, LEASE_RELEASE, [1]);
    this.#typing = new TypingWindows(this.#time, (visitorId, isTyping) =>
      this.#tellTyping(visitorId, isTyping),
    );

    this.#bus.onMessage(this.#keys.visitorChannelPrefix, (channel, payload) =>
      this.#deliver(channel.slice(this.#keys.visitorChannelPrefix.length), payload),
    );
    this.#sharded = options.shardedEvents ?? false;
    this.#transactions = !this.#sharded && !isCluster(this.#redis);
    if (this.#sharded) {
      this.#bus.onMessage(this.#keys.chatPrefix, (channel, payload) => {
        const local = this.#visitors.get(this.#sides.get(channel) ?? "");
        if (local?.held && local.following === channel) {
          local.held.push(payload);
        } else if (local) {
          this.#deliver(local.id, payload);
        }
      });
    }
    this.#bus.onMessage(this.#keys.mutesChannel, (_channel, payload) => {
      const space = payload.indexOf(" ");
      this.#mutes.note(payload.slice(space + 1), Number(payload.slice(0, space)), this.#time.now());
    });
    this.#bus.onReconnect(() => {
      // Redis may have come back empty: no transaction's message is taken until a read says
      // where its chat's gate stands (#catchUp reads every chat held here).
      for (const local of this.#visitors.values()) local.hear(FORGET_GATES);
      // What was announced while the subscription was down is read from Redis.
      this.#inBackground(this.#loadMutes());
      void this.#catchUp();
    });
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const timer = this.#time.setInterval(() => this.#inBackground(fn()), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(this.#heartbeatMs, () => this.#heartbeat());
    every(options.sweepEveryMs ?? 1000, () => this.#sweep());
  }

  /** Subscribes this instance's life channel and tells Redis it lives; once, before use. */
  async connect(): Promise<void> {
    await this.#bus.ssubscribe(this.#keys.lifeChannel(this.#instance));
    await this.#bus.subscribe(this.#keys.mutesChannel);
    await this.#loadMutes();
    await this.#heartbeat();
  }

  #fail(what: string, error: unknown): void {
    this.#options.onError?.(what, error);
  }

  #inBackground(work: Promise<unknown>): void {
    const tracked = work.catch(() => {});
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  /** Resolves once the work its timers started has finished (tests move time, then wait here). */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.all([...this.#background]);
  }

  async #poolRun<T>(name: PoolScript, args: Array<string | number>, instance?: string): Promise<T> {
    const answer = await this.#pool[name].run(this.#keys.poolKeys(instance ?? this.#instance), [
      this.#time.now(),
      ...this.#poolArgs,
      ...args,
    ]);
    return JSON.parse(String(answer)) as T;
  }

  #chatRun(name: ChatScript, chatId: string, args: Array<string | number>): Promise<unknown> {
    const keys = this.#keys.chat(chatId);
    return this.#chat[name].run(this.#sharded ? [...keys, ...this.#keys.sides(chatId)] : keys, [
      this.#time.now(),
      this.#keys.visitorChannelPrefix,
      chatId,
      ...args,
    ]);
  }

  #newChatId(): string {
    return this.#ids.next();
  }

  /**
   * On a Cluster, the instance follows the side channel of each chat its visitors are in (and
   * lets go of the last one). A channel subscribed before the chat opened (made ready, or the
   * starter's: #openHere) is taken as it is; any other is subscribed now, then what the chat said
   * to that side before is read (the partner may have spoken first) and handed on ahead of what
   * the channel carried meanwhile, which streams already holding an event pass over. When their
   * chat ends, the next one's channel is made ready.
   */
  #follow(local: LocalVisitor): void {
    if (!this.#sharded) return;
    const chat = local.chat;
    const channel = chat ? this.#keys.sides(chat.id)[chat.side === "a" ? 0 : 1] : undefined;
    if (channel === local.following) return;
    this.#followOn(local, channel);
    if (channel && channel === local.reserved?.channel) {
      // Subscribed before the chat could open: nothing said in it came before.
      local.reserved = undefined;
      return;
    }
    if (!chat || !channel) {
      // Their chat ended: the next one's channel is made ready now, ahead of their next start.
      if (local.attached) this.#reserve(local);
      return;
    }
    const held: string[] = [];
    local.held = held;
    this.#inBackground(
      this.#bus
        .ssubscribe(channel)
        .then(() => this.#read(chat.id, local.id, "-"))
        .catch((error) => this.#fail("following a chat", error))
        .then((missed) => {
          if (local.held !== held) return;
          local.held = undefined;
          for (const item of missed?.events ?? []) local.hear(item);
          for (const payload of held) this.#deliver(local.id, payload);
        }),
    );
  }

  /**
   * Subscribes, in the background, the side "a" channel of a fresh chat id for the visitor (when
   * they have none ready): their next start passes it to the pool, which pairs whoever comes for
   * them in that chat. Done when their stream first opens here and when a chat of theirs ends,
   * so a start on a Cluster costs no subscription for the visitor who waited.
   */
  #reserve(local: LocalVisitor): void {
    if (!this.#sharded || local.reserved) return;
    const chat = this.#newChatId();
    const channel = this.#keys.sides(chat)[0];
    const reserved = { chat, channel, ready: false };
    local.reserved = reserved;
    this.#sides.set(channel, local.id);
    this.#inBackground(
      this.#bus.ssubscribe(channel).then(
        () => {
          reserved.ready = true;
        },
        () => {
          if (local.reserved === reserved) local.reserved = undefined;
          this.#sides.delete(channel);
        },
      ),
    );
  }

  /** The side channel followed for the visitor from now on (the last one is let go). */
  #followOn(local: LocalVisitor, channel: string | undefined): void {
    if (local.following) this.#letGo(local.following);
    local.following = channel;
    local.held = undefined;
    if (channel) this.#sides.set(channel, local.id);
  }

  /** The chat made ready for the visitor is not to be used (it is let go). */
  #unreserve(local: LocalVisitor): void {
    if (local.reserved) this.#letGo(local.reserved.channel);
    local.reserved = undefined;
  }

  /** A side channel no longer followed: its last events may still be on their way a moment. */
  #letGo(channel: string): void {
    const timer = this.#time.setTimeout(() => {
      const visitorId = this.#sides.get(channel);
      if (visitorId && this.#visitors.get(visitorId)?.following === channel) return;
      this.#sides.delete(channel);
      this.#inBackground(this.#bus.sunsubscribe(channel).catch(() => {}));
    }, SIDE_LINGER_MS);
    timer.unref();
  }

  // ---- events ---------------------------------------------------------------------------

  /**
   * An event announced on a visitor's channel: "<id>\t<event JSON>[\t<what an instance keeps>]",
   * or a chat's gate changing: "!\t<chat>\t<count>\t<1 closed, 0 open>".
   */
  #deliver(visitorId: string, payload: string): void {
    const local = this.#visitors.get(visitorId);
    if (!local || local.streams.size === 0) return;
    const tab = payload.indexOf("\t");
    const id = payload.slice(0, tab);
    const rest = payload.slice(tab + 1);
    if (id === GATE) {
      const [chat = "", count, closed] = rest.split("\t");
      const gate: Gate = { gate: true, chat, count: Number(count), closed: closed === "1" };
      if (!Number.isSafeInteger(gate.count)) throw new Error("a gate without its count");
      local.hear(gate);
      return;
    }
    // A transaction's message in a chat that has ended here (the end came first) or is not
    // known here yet (the stream's first read will have it, if it was kept).
    const unkept = id.indexOf(UNKEPT);
    if (unkept > 0 && local.chat?.id !== id.slice(0, unkept)) return;
    const next = rest.indexOf("\t");
    const json = next === -1 ? rest : rest.slice(0, next);
    const event = JSON.parse(json) as ChatEvent;
    if (next !== -1 && event.type === "matched") {
      if (event.chatId === local.matchedIn) return;
      local.matchedIn = event.chatId;
      const [side, partner, cc, co, closed] = rest.slice(next + 1).split("\t");
      local.hear({ gate: true, chat: event.chatId, count: 0, closed: closed === "1" });
      local.settle("chatting", {
        id: event.chatId,
        side: side === "b" ? "b" : "a",
        partner: partner ?? "",
        partnerCountry: event.partner,
        self: partnerOf(cc, co),
      });
    }
    local.hear({ id, event });
  }

  async status(visitorId: string): Promise<ChatStatus> {
    const { status } = await this.#poolRun<{ status: PoolStatus }>("status", [visitorId]);
    return this.#publicStatus(status);
  }

  #publicStatus(status: PoolStatus): ChatStatus {
    if (status.state === "chatting" && status.chat) {
      return { state: "chatting", chatId: status.chat, partner: partnerOf(status.pcc, status.pco) };
    }
    return { state: status.state === "waiting" ? "waiting" : "idle" };
  }

  /** What the pool says of a visitor, as this instance keeps it (see LocalVisitor.settle). */
  #remember(local: LocalVisitor, status: PoolStatus): void {
    if (status.ip) local.ip = status.ip;
    if (status.co) local.country = partnerOf(status.cc, status.co);
    local.settle(status.state, chatRefOf(status));
  }

  async *events(
    visitorId: string,
    lastEventId: string | null | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Numbered[], void, undefined> {
    let local = this.#visitors.get(visitorId);
    if (!local) {
      local = new LocalVisitor(visitorId, (moved) => this.#follow(moved));
      this.#visitors.set(visitorId, local);
    }
    const stream = new LocalStream();
    local.streams.add(stream);
    const onAbort = () => stream.wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.#attach(visitorId, local);
      const opening = (await this.#opening(visitorId, local, lastEventId)).filter((n) =>
        stream.accept(n),
      );
      if (opening.length > 0) yield opening;
      while (!signal.aborted) {
        const batch = stream.queue.splice(0).filter((n) => stream.accept(n));
        if (batch.length > 0) {
          yield batch;
          continue;
        }
        await new Promise<void>((resolve) => {
          stream.wake = resolve;
        });
        stream.wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      local.streams.delete(stream);
      if (local.streams.size === 0) await this.#detach(visitorId, local);
    }
  }

  /** The first of this instance's streams for a visitor: the pool learns it holds them. */
  #attach(visitorId: string, local: LocalVisitor): Promise<PoolStatus> {
    if (!local.attached) {
      const attached = local.chain.then(async () => {
        await this.#bus.subscribe(this.#keys.visitorChannel(visitorId));
        const answer = await this.#poolRun<{ status: PoolStatus; paired?: Paired }>("attach", [
          visitorId,
          this.#newChatId(),
        ]);
        this.#remember(local, answer.status);
        this.#reserve(local);
        if (answer.paired) {
          await this.#openHere(local, answer.paired);
        }
        return answer.status;
      });
      local.attached = attached;
      local.chain = attached.catch(() => {});
      // A failed attach is tried again by the next stream.
      attached.catch(() => {
        if (local.attached === attached) local.attached = undefined;
      });
    }
    return local.attached;
  }

  /** The last of this instance's streams for a visitor closed. */
  async #detach(visitorId: string, local: LocalVisitor): Promise<void> {
    if (!local.attached) {
      if (local.streams.size === 0) this.#drop(local);
      return;
    }
    local.attached = undefined;
    const detached = local.chain.then(async () => {
      if (local.streams.size > 0 || local.attached || this.#closed) return;
      try {
        await this.#poolRun("detach", [visitorId]);
      } finally {
        await this.#bus.unsubscribe(this.#keys.visitorChannel(visitorId)).catch(() => {});
        if (local.streams.size === 0 && !local.attached) this.#drop(local);
      }
    });
    local.chain = detached.catch(() => {});
    await detached.catch((error) => this.#fail("chat stream closing", error));
  }

  /** A visitor this instance no longer holds. */
  #drop(local: LocalVisitor): void {
    if (this.#visitors.get(local.id) === local) this.#visitors.delete(local.id);
    this.#followOn(local, undefined);
    this.#unreserve(local);
  }

  /**
   * What a stream starts with. Resuming from a place in a chat: what followed for the visitor
   * (then, if they are in a newer chat, all of it). Resuming from an event outside any chat: the
   * chat they are in now, whole, or where they stand. Otherwise where they stand, at the chat's
   * last id (so a later resume continues from there).
   */
  async #opening(
    visitorId: string,
    local: LocalVisitor,
    lastEventId: string | null | undefined,
  ): Promise<Queued[]> {
    const resume = parseResume(lastEventId);
    const current = local.chat;
    if (resume && resume !== "outside") {
      const missed = await this.#read(resume.chat, visitorId, resume.at, resume.through);
      if (missed) {
        if (current && current.id !== resume.chat) {
          missed.events.push(...((await this.#read(current.id, visitorId, "-"))?.events ?? []));
        } else if (!current && local.state === "waiting") {
          missed.events.push({ id: OUTSIDE, event: { type: "waiting" } });
        }
        return missed.events;
      }
    }
    if (resume === "outside" && current) {
      const whole = await this.#read(current.id, visitorId, "-");
      if (whole) return whole.events;
    }
    if (current) {
      const last = await this.#read(current.id, visitorId, "$");
      return [
        ...(last?.events ?? []),
        {
          id: `${current.id}.${last?.lastId ?? "0-0"}`,
          event: {
            type: "status",
            status: { state: "chatting", chatId: current.id, partner: current.partnerCountry },
          },
        },
      ];
    }
    const state = local.state === "waiting" ? "waiting" : "idle";
    return [{ id: OUTSIDE, event: { type: "status", status: { state } } }];
  }

  /**
   * The visitor's events in a chat after a stream id ("-": all kept; "$": none, the last id), and
   * after the message `through` when given (a transaction's, whose stream id was not known), led
   * by the chat's gate.
   */
  async #read(
    chatId: string,
    visitorId: string,
    from: string,
    through?: string,
  ): Promise<{ lastId: string; events: Queued[] } | undefined> {
    const answer = (await this.#chatRun("read", chatId, [visitorId, from])) as string[] | null;
    if (!answer) return undefined;
    const gate: Gate = {
      gate: true,
      chat: chatId,
      count: Number(answer[2]),
      closed: answer[3] === "1",
    };
    let events: Numbered[] = [];
    for (let i = 4; i < answer.length; i += 2) {
      events.push({
        id: `${chatId}.${answer[i]}`,
        event: JSON.parse(answer[i + 1] ?? "{}") as ChatEvent,
      });
    }
    if (through !== undefined) {
      const at = events.findIndex(
        ({ event }) => event.type === "message" && event.message.id === through,
      );
      // Not kept any more (or never): everything after the stream id is given.
      if (at !== -1) events = events.slice(at + 1);
    }
    return { lastId: answer[1] ?? "0-0", events: [gate, ...events] };
  }

  /**
   * The subscriptions are back after a lost connection: what was published meanwhile is read
   * from the chats' streams; a visitor whose chat changed meanwhile is told where they stand.
   */
  async #catchUp(): Promise<void> {
    for (const [visitorId, local] of this.#visitors) {
      if (local.streams.size === 0 || !local.attached) continue;
      try {
        const before = local.chat;
        const { status } = await this.#poolRun<{ status: PoolStatus }>("status", [visitorId]);
        const now = chatRefOf(status);
        // What their chat said meanwhile (its end among it, when it ended), then where they
        // stand now, and all of a chat they entered meanwhile.
        const missed = before ? await this.#read(before.id, visitorId, "-") : undefined;
        const entered =
          now && now.id !== before?.id ? await this.#read(now.id, visitorId, "-") : undefined;
        for (const item of missed?.events ?? []) local.hear(item);
        this.#remember(local, status);
        for (const item of entered?.events ?? []) local.hear(item);
      } catch (error) {
        this.#fail("catching up after Redis came back", error);
      }
    }
  }

  // ---- pairing ------------------------------------------------------------------------------

  async start(visitor: ChatVisitor): Promise<ChatStatus> {
    const { visitorId, ipKey, country, preferences } = visitor;
    // Languages and interest keys between separators, so the pool script compares them with a
    // plain find; what they asked as JSON only to tell two paired visitors what they share.
    const languages = preferences?.languages.length ? ` ${preferences.languages.join(" ")} ` : "";
    const interests = preferences?.interests.length
      ? `\n${preferences.interests.map((i) => i.key).join("\n")}\n`
      : "";
    const fallbackMs = anyoneFrom(preferences, 0);
    const json = preferences ? JSON.stringify(preferences) : "";
    const reserved = this.#visitors.get(visitorId)?.reserved;
    const answer = await this.#poolRun<{
      banned?: number;
      status?: PoolStatus;
      paired?: Paired;
      spent?: boolean;
    }>("start", [
      visitorId,
      ipKey,
      country.countryCode ?? "",
      country.country,
      this.#newChatId(),
      fallbackMs,
      languages,
      interests,
      json,
      reserved?.ready ? reserved.chat : "",
    ]);
    const local = this.#visitors.get(visitorId);
    if (answer.spent && local && reserved && local.reserved === reserved) {
      // A chat in that id opened before this instance heard of it: another one is made ready.
      this.#unreserve(local);
      this.#reserve(local);
    }
    if (local) {
      local.ip = ipKey;
      local.country = country;
      local.asked = preferences
        ? [fallbackMs > 0 ? this.#time.now() + fallbackMs : 0, languages, interests, json]
        : undefined;
    }
    if (answer.banned) {
      throw new DomainError(
        "CHAT_BANNED",
        "user is banned from chat",
        Math.max(1, Math.ceil((answer.banned - this.#time.now()) / 1000)),
      );
    }
    if (answer.paired) {
      await this.#openHere(local, answer.paired);
      return {
        state: "chatting",
        chatId: answer.paired.chat,
        partner: partnerOf(answer.paired.a.cc, answer.paired.a.co),
      };
    }
    const status = answer.status ?? { state: "waiting" };
    // Known here at once, as the pool says it on their channel a moment later (heard once),
    // unless newer news came first.
    if (local?.attached && !local.chat && local.state === "idle" && status.state === "waiting") {
      local.hear({ id: OUTSIDE, event: { type: "waiting" } });
    }
    if (status.state === "waiting") this.#matchLater(visitorId, fallbackMs);
    return this.#publicStatus(status);
  }

  async widen(visitorId: string): Promise<void> {
    const asked = this.#visitors.get(visitorId)?.asked;
    if (asked) asked[0] = 0;
    const answer = await this.#poolRun<{ paired?: Paired }>("widen", [
      visitorId,
      this.#newChatId(),
    ]);
    if (!answer.paired) return;
    await this.#openHere(this.#visitors.get(visitorId), answer.paired);
  }

  /**
   * Opens a pairing made here by this instance's visitor (side b). On a Cluster their side's
   * channel is subscribed before the chat opens, so nothing said to them can come before it and
   * nothing has to be read back (if the subscription fails, the chat is followed as any other).
   */
  async #openHere(local: LocalVisitor | undefined, paired: Paired): Promise<void> {
    const here = local?.attached ? local : undefined;
    let whereB: Where = "";
    if (here && this.#sharded) {
      const channel = this.#keys.sides(paired.chat)[1];
      const subscribed = await this.#bus.ssubscribe(channel).then(
        () => true,
        () => false,
      );
      if (subscribed && here.following !== channel) this.#followOn(here, channel);
      // Their "matched" goes on that channel, ahead of what the chat says there next.
      if (subscribed) whereB = paired.b.inst === this.#instance ? "side" : "both";
    }
    await this.#open(paired, whereB);
    if (here) this.#rememberPairing(here, paired, "b");
  }

  /**
   * The visitor's side of a pairing made here: kept at once, since their call's answer may reach
   * them before their stream's "matched" reaches this instance.
   */
  #rememberPairing(local: LocalVisitor, paired: Paired, side: "a" | "b"): void {
    const self = paired[side];
    const partner = side === "a" ? paired.b : paired.a;
    local.settle("chatting", {
      id: paired.chat,
      side,
      partner: partner.id,
      partnerCountry: partnerOf(partner.cc, partner.co),
      self: partnerOf(self.cc, self.co),
    });
  }

  /**
   * Opens on its own slot a chat the pool paired: both hear "matched" from its stream, with
   * what they share in their own words when either asked for anything. `whereB`: where b hears
   * it (as `ready` says for a).
   */
  async #open(paired: Paired, whereB: Where = ""): Promise<void> {
    const { chat, a, b } = paired;
    const asked = (side: PairSide) =>
      side.prefs ? { preferences: JSON.parse(side.prefs) as MatchPreferences } : {};
    const matched = (self: PairSide, partner: PairSide) => {
      const shared = sharedGround(asked(self), asked(partner));
      return JSON.stringify({
        type: "matched",
        chatId: chat,
        partner: partnerOf(partner.cc, partner.co),
        ...(shared ? { shared } : {}),
      });
    };
    // The script adds whether the chat's gate starts closed.
    const keep = (side: "a" | "b", self: PairSide, partner: PairSide) =>
      [side, partner.id, self.cc, self.co].join("\t");
    for (const id of [a.id, b.id]) {
      for (const timer of this.#rematch.get(id) ?? []) this.#time.clearTimeout(timer);
      this.#rematch.delete(id);
    }
    await this.#chatRun("open", chat, [
      a.id,
      b.id,
      a.ip,
      b.ip,
      a.cc,
      b.cc,
      a.co,
      b.co,
      a.mute,
      b.mute,
      this.#chatLifeMs,
      this.#kept,
      matched(a, b),
      matched(b, a),
      keep("a", a, b),
      keep("b", b, a),
      paired.ready ?? "",
      whereB,
    ]);
  }

  /**
   * When the visitor's fallback delay ends and once a recent partner may be met again, this
   * instance looks at the pool once more (a no-op if they were paired meanwhile).
   */
  #matchLater(visitorId: string, fallbackMs: number): void {
    if (this.#rematch.has(visitorId)) return;
    const timers: TimerHandle[] = [];
    for (const ms of new Set([fallbackMs, this.#meetAgainAfterMs])) {
      if (ms <= 0) continue;
      const timer = this.#time.setTimeout(() => {
        timers.splice(timers.indexOf(timer), 1);
        if (timers.length === 0 && this.#rematch.get(visitorId) === timers) {
          this.#rematch.delete(visitorId);
        }
        this.#inBackground(
          this.#poolRun<{ paired?: Paired }>("match", [visitorId, this.#newChatId()])
            .then((answer) => (answer.paired ? this.#open(answer.paired) : undefined))
            .catch((error) => this.#fail("looking at the pool again", error)),
        );
      }, ms + 50);
      timer.unref();
      timers.push(timer);
    }
    if (timers.length > 0) this.#rematch.set(visitorId, timers);
  }

  // ---- messages -----------------------------------------------------------------------------

  /** The visitor's chat as this instance keeps it, or as the pool says. */
  async #chatOf(visitorId: string, fresh = false): Promise<ChatRef | undefined> {
    const local = this.#visitors.get(visitorId);
    // What this instance keeps may lag a pairing made elsewhere a moment ago: only a chat it
    // knows of is taken as is (a stale one is found out by the chat's own script).
    if (!fresh && local?.chat) return local.chat;
    const { status } = await this.#poolRun<{ status: PoolStatus }>("status", [visitorId]);
    const ref = chatRefOf(status);
    // A chat the pool no longer has for them ends on their pages now (see LocalVisitor.settle).
    if (local?.attached) local.settle(status.state, ref);
    return ref;
  }

  async send(
    visitorId: string,
    content: string,
    options: { contact?: boolean } = {},
  ): Promise<ChatMessage> {
    let chat = await this.#chatOf(visitorId);
    for (let attempt = 0; chat; attempt++) {
      const mine: ChatMessage = {
        id: `${chat.id}${this.#ids.next()}`,
        content: content.slice(0, CHAT_LIMITS.message),
        timestamp: this.#time.now(),
        countryCode: chat.self.countryCode,
        country: chat.self.country,
        from: "me",
        ...(options.contact ? { contact: true as const } : {}),
      };
      const event = JSON.stringify({
        type: "message",
        chatId: chat.id,
        message: { ...mine, from: "partner" },
      });
      // Without the partner the event has nowhere to go but through the checks.
      let checksOnly = !chat.partner;
      if (this.#transactions && !checksOnly) {
        if (await this.#keepAndAnnounce(chat, mine.id, event)) return mine;
        // Its append found no stream under the unchecked name: the script need not look again.
        checksOnly = true;
      }
      const answer = Number(
        await this.#chatRun("send", chat.id, [
          visitorId,
          mine.id,
          event,
          this.#kept,
          checksOnly ? "" : chat.side,
          chat.partner,
        ]),
      );
      if (answer === 1 || answer === 2) return mine;
      if (answer === 3) throw new DomainError("CHAT_BANNED", "user is banned from chat");
      if (attempt > 0) break;
      // What this instance kept was out of date: the pool says where the visitor is.
      const fresh = await this.#chatOf(visitorId, true);
      if (fresh?.id === chat.id && answer === -1) {
        await this.#lose(chat.id, visitorId, chat.partner);
        this.#visitors.get(visitorId)?.settle("idle");
        break;
      }
      chat = fresh?.id === chat.id ? undefined : fresh;
    }
    throw new DomainError("NOT_FOUND", "not in a chat");
  }

  /**
   * Keeps a message in its chat's stream and announces it to the partner in one transaction, no
   * script: the append finds the stream only under the name it has while the chat runs with
   * nobody muted (redis-chat-lua.ts), so that is the check. Answers whether it was kept; when it
   * was not, the announcement went out anyway, and the partner's instance drops it (an ended
   * chat, or a closed gate: see Gate), and the send script decides. Messages go as ioredis's
   * auto-pipeline sends commands: those of an event loop's turn (every frame its sockets read)
   * in one pipeline of such transactions, written once at the turn's end (setImmediate, as
   * ioredis defers its own), and while one is on its way, the next ones wait to go together
   * once it is answered. A write to Redis is among the dearest steps of a message on an
   * instance: gathered by turn instead of by call (process.nextTick), a message at 5,000 a
   * second across two instances cost them 169 µs of CPU instead of 190, and Redis 13 instead
   * of 16.
   */
  #keepAndAnnounce(chat: ChatRef, messageId: string, event: string): Promise<boolean> {
    const [, stream] = this.#keys.chat(chat.id);
    return new Promise<boolean>((resolve, reject) => {
      if (this.#waiting.length === 0 && !this.#sending) {
        setImmediate(() => this.#sendWaiting());
      }
      this.#waiting.push({
        stream: stream as string,
        messageId,
        side: chat.side === "a" ? "b" : "a",
        event,
        channel: this.#keys.visitorChannel(chat.partner),
        announced: `${chat.id}${UNKEPT}${messageId.slice(chat.id.length)}\t${event}`,
        resolve,
        reject,
      });
    });
  }

  #sendWaiting(): void {
    const turn = this.#waiting;
    if (this.#sending || turn.length === 0) return;
    this.#waiting = [];
    this.#sending = true;
    const pipeline = this.#redis.pipeline();
    for (const t of turn) {
      // MULTI and EXEC as commands of the pipeline: the transaction inline, as ioredis has them.
      pipeline
        .call("multi")
        .xadd(
          t.stream,
          "NOMKSTREAM",
          "MAXLEN",
          "~",
          this.#kept,
          "*",
          "m",
          t.messageId,
          t.side,
          t.event,
        )
        .publish(t.channel, t.announced)
        .call("exec");
    }
    pipeline
      .exec()
      .then(
        (results) => {
          for (const [i, t] of turn.entries()) {
            // Each transaction answers MULTI, two QUEUED and EXEC: [the append's id, receivers].
            const [error, replies] = results?.[i * 4 + 3] ?? [new Error("no answer")];
            if (error) t.reject(error);
            else t.resolve(Array.isArray(replies) && typeof replies[0] === "string");
          }
        },
        (error: unknown) => {
          for (const t of turn) t.reject(error);
        },
      )
      .finally(() => {
        this.#sending = false;
        this.#sendWaiting();
      });
  }

  /** A chat the pool holds whose own keys are gone: both sides hear it was lost. */
  async #lose(chatId: string, a: string, b: string): Promise<void> {
    await this.#poolRun("lost", [chatId, a, b]);
  }

  /** Tells the partner whether the visitor is typing (coalesced on this instance: see TypingWindows). */
  async typing(visitorId: string, isTyping: boolean): Promise<void> {
    await this.#typing.note(visitorId, isTyping);
  }

  /**
   * One PUBLISH, no script: typing is not kept and checks nothing. On a Cluster it is an
   * SPUBLISH to the partner's side channel, on the chat's slot, so it reaches the partner in the
   * order it was said among the chat's messages (the same node, over the same connection; a bare
   * PUBLISH could cross the Cluster's bus from any node and overtake them).
   */
  async #tellTyping(visitorId: string, isTyping: boolean): Promise<void> {
    const chat = await this.#chatOf(visitorId);
    if (!chat) return;
    const event = `${EPHEMERAL}\t${JSON.stringify({ type: "typing", chatId: chat.id, isTyping })}`;
    if (this.#sharded) {
      const [a, b] = this.#keys.sides(chat.id);
      await this.#redis.spublish(chat.side === "a" ? b : a, event);
    } else {
      await this.#redis.publish(this.#keys.visitorChannel(chat.partner), event);
    }
  }

  // ---- endings ------------------------------------------------------------------------------

  /** Ends on their slots the chats the pool let go of; `told` says what each side hears. */
  async #finish(
    endings: readonly Ending[],
    told: (ending: Ending) => { leaver: string; partner: string; bannedSide?: string },
  ): Promise<void> {
    await Promise.all(
      endings.map((ending) => {
        const { leaver, partner, bannedSide } = told(ending);
        const leaverIsA = ending.side === "a";
        return this.#chatRun("finish", ending.chat, [
          leaverIsA ? ending.visitor : ending.pt,
          leaverIsA ? ending.pt : ending.visitor,
          this.#keepEndedMs,
          this.#kept,
          leaverIsA ? leaver : partner,
          leaverIsA ? partner : leaver,
          bannedSide ?? "",
        ]);
      }),
    );
  }

  async end(visitorId: string, options?: { ifGone?: boolean }): Promise<void> {
    const { chat } = await this.#poolRun<{ chat?: Ending }>("leave", [
      visitorId,
      options?.ifGone ? "1" : "",
    ]);
    this.#left(visitorId);
    if (chat) await this.#finishLeaving([chat]);
  }

  /** What this instance keeps of a visitor who left their chat or the pool. */
  #left(visitorId: string, told: ChatEvent = { type: "idle" }): void {
    this.#typing.forget(visitorId);
    const local = this.#visitors.get(visitorId);
    // Their streams here hear it now; the chat's own word follows (and is heard once).
    if (local && (local.chat || local.state !== "idle")) local.hear({ id: OUTSIDE, event: told });
  }

  /** The leaver hears "idle", the partner that they left. */
  #finishLeaving(endings: Ending[]): Promise<void> {
    return this.#finish(endings, (ending) => ({
      leaver: JSON.stringify({ type: "idle" }),
      partner: JSON.stringify({ type: "partner-left", chatId: ending.chat }),
    }));
  }

  async partnerMessage(visitorId: string, messageId: string): Promise<HeldMessage | undefined> {
    const chatId = messageId.slice(0, 12);
    if (!CHAT_ID.test(chatId) || messageId.length > 64) return undefined;
    const answer = (await this.#chatRun("held", chatId, [visitorId, messageId, this.#kept])) as
      | [string, string, string]
      | null;
    if (!answer) return undefined;
    const event = JSON.parse(answer[0]) as Extract<ChatEvent, { type: "message" }>;
    return {
      id: messageId,
      senderVisitorId: answer[1],
      senderIpKey: answer[2],
      content: event.message.content,
      timestamp: event.message.timestamp,
    };
  }

  async block(visitorId: string, until: number): Promise<ChatVisitor | undefined> {
    const answer = await this.#poolRun<{
      chat?: Ending;
      blocked?: { id: string; ip: string; cc: string; co: string };
    }>("block", [visitorId, until]);
    this.#left(visitorId);
    if (answer.chat) await this.#finishLeaving([answer.chat]);
    if (!answer.blocked) return undefined;
    return {
      visitorId: answer.blocked.id,
      ipKey: answer.blocked.ip,
      country: partnerOf(answer.blocked.cc, answer.blocked.co),
    };
  }

  async rememberBlock(blocker: string, blocked: VisitorKeys, until: number): Promise<void> {
    await this.#poolRun("remember", [blocker, blocked.visitorId, blocked.ipKey, until]);
  }

  async mute(visitorId: string, ipKey: string, until: number): Promise<void> {
    const { chats } = await this.#poolRun<{
      chats: Array<{ chat: string; side: "a" | "b"; visitor: string }> | Record<string, never>;
    }>("mute", [visitorId, ipKey, until, this.#keys.mutesChannel]);
    // Known here at once; other instances hear the announcement.
    for (const key of holdKeys(visitorId, ipKey)) this.#mutes.note(key, until, this.#time.now());
    const told = JSON.stringify({ type: "muted", until });
    await Promise.all(
      (Array.isArray(chats) ? chats : []).map((c) =>
        this.#chatRun("mute", c.chat, [
          c.side,
          until,
          this.#kept,
          c.visitor === visitorId ? told : "",
        ]),
      ),
    );
  }

  async mutedUntil(visitorId: string, ipKey: string): Promise<number | null> {
    const keys = holdKeys(visitorId, ipKey);
    const now = this.#time.now();
    const copied = this.#mutes.until(keys, now);
    if (copied !== undefined) return copied;
    const values = await this.#redis.hmget(this.#keys.pool("mutes"), ...keys);
    const until = Math.max(0, ...values.map(Number).filter(Number.isFinite));
    return until > now ? until : null;
  }

  async chatOf(visitorId: string): Promise<string | undefined> {
    return (await this.#chatOf(visitorId))?.id;
  }

  /** Copies every mute in force from Redis (at start, and when the copy may have missed some). */
  #loadMutes(): Promise<void> {
    this.#mutesLoading ??= this.#mutes
      .reload(() => this.#scanMutes(), this.#time.now)
      .finally(() => {
        this.#mutesLoading = undefined;
      });
    return this.#mutesLoading;
  }

  async *#scanMutes(): AsyncIterable<[string, number]> {
    let cursor = "0";
    do {
      const [next, page] = await this.#redis.hscan(
        this.#keys.pool("mutes"),
        cursor,
        "COUNT",
        SCAN_PAGE,
      );
      for (let i = 0; i + 1 < page.length; i += 2) {
        yield [page[i] ?? "", Number(page[i + 1])];
      }
      cursor = next;
    } while (cursor !== "0");
  }

  async ban(bans: readonly KeyBan[]): Promise<void> {
    if (bans.length === 0) return;
    const { chats } = await this.#poolRun<{ chats: Ending[] | Record<string, never> }>(
      "ban",
      bans.flatMap(({ key, until }) => [key, until]),
    );
    const endings = Array.isArray(chats) ? chats : [];
    for (const ending of endings) {
      this.#left(ending.visitor, { type: "banned", until: ending.until ?? 0 });
    }
    await this.#finish(endings, (ending) => ({
      leaver: JSON.stringify({ type: "banned", until: ending.until }),
      partner: JSON.stringify({ type: "partner-left", chatId: ending.chat }),
      bannedSide: ending.side,
    }));
  }

  async online(): Promise<number> {
    const counts = await this.counts();
    return counts.waiting + 2 * counts.chatting;
  }

  async counts(): Promise<BrokerCounts> {
    const counts = await this.#poolRun<Omit<BrokerCounts, "ended">>("counts", []);
    return { ...counts, ended: 0 };
  }

  // ---- presence ----------------------------------------------------------------------------

  /**
   * One heartbeat vouches for every visitor this instance holds. Its answer is Redis's epoch:
   * a new one means Redis lost its state, and this instance says again whom it holds.
   */
  async #heartbeat(): Promise<void> {
    if (this.#beating || this.#closed) return;
    this.#beating = true;
    try {
      // The time is read when the step runs, not when its timer was due.
      await null;
      const life = this.#keys.lifeChannel(this.#instance);
      const [answer, listening] = (await this.#beat.run(
        [this.#keys.pool("hb"), this.#keys.pool("epoch")],
        [this.#time.now(), this.#instance, randomBytes(9).toString("base64url"), life],
      )) as [string, number];
      const epoch = String(answer);
      const before = this.#epoch;
      this.#epoch = epoch;
      if ((before !== undefined && before !== epoch) || this.#restoreFailed) await this.#restore();
      else if (Number(listening) === 0 && before !== undefined) await this.#resubscribe(life);
      this.#mutes.prune(this.#time.now());
      if (this.#mutes.wantsReload) this.#inBackground(this.#loadMutes());
    } finally {
      this.#beating = false;
    }
  }

  /** Looks at the pool again for every visitor waiting here. */
  async #lookAgain(): Promise<void> {
    for (const local of [...this.#visitors.values()]) {
      if (local.streams.size === 0 || local.state !== "waiting") continue;
      const answer = await this.#poolRun<{ paired?: Paired }>("match", [
        local.id,
        this.#newChatId(),
      ]);
      if (answer.paired) await this.#open(answer.paired);
    }
  }

  /**
   * The pool's node has no subscriber on this instance's life channel, though this instance
   * lives: its sharded subscriptions did not outlive their nodes' restart. Without them nobody
   * is paired with its visitors and chats opened for them go unheard, so they are made again
   * (side channels made ready before are let go: a fresh one is made ready), and those waiting
   * are looked for again.
   */
  async #resubscribe(life: string): Promise<void> {
    await this.#bus.ssubscribe(life);
    this.#renewSides();
    await this.#lookAgain();
  }

  /**
   * Side channels subscribed before Redis went away are not trusted to have come back with it:
   * those made ready are let go (fresh ones are made ready), those followed subscribed again.
   */
  #renewSides(): void {
    for (const local of this.#visitors.values()) {
      if (local.reserved) {
        this.#unreserve(local);
        this.#reserve(local);
      }
      if (local.following) {
        this.#inBackground(this.#bus.ssubscribe(local.following).catch(() => {}));
      }
    }
  }

  /** Beats at once (after a reconnect, not to wait for the next beat). */
  beatNow(): Promise<void> {
    return this.#heartbeat().catch((error) => this.#fail("heartbeat", error));
  }

  /**
   * Redis came back empty: every visitor this instance holds is told again, as they were; a
   * chat whose keys are gone is lost, and both sides hear it (a fresh status), each from the
   * instance holding them.
   */
  #restore(): Promise<void> {
    this.#restoring ??= (async () => {
      this.#restoreFailed = false;
      try {
        this.#renewSides();
        const groups: string[] = [];
        const lost: LocalVisitor[] = [];
        for (const [visitorId, local] of this.#visitors) {
          if (local.streams.size === 0) continue;
          let state = local.state;
          const chat = local.chat;
          if (chat && state === "chatting") {
            const alive = Number(await this.#chatRun("alive", chat.id, [visitorId]));
            if (alive !== 1) {
              state = "idle";
              lost.push(local);
            }
          }
          groups.push(
            visitorId,
            state,
            chat?.id ?? "",
            chat?.side ?? "",
            chat?.partner ?? "",
            local.ip,
            local.country.countryCode ?? "",
            local.country.country,
            ...(state === "waiting" && local.asked ? local.asked.map(String) : ["", "", "", ""]),
          );
        }
        for (let i = 0; i < groups.length; i += RESTORE_ARGS * RESTORE_BATCH) {
          await this.#poolRun("restore", groups.slice(i, i + RESTORE_ARGS * RESTORE_BATCH));
        }
        for (const local of lost) local.settle("idle");
        // Those waiting now, though they pressed start while the above ran: the pool could not
        // pair them then (it did not know their streams yet), and nobody else looks for them.
        await this.#lookAgain();
        await this.#options.onRestored?.();
      } catch (error) {
        this.#restoreFailed = true;
        this.#fail("saying again whom this instance holds", error);
      } finally {
        this.#restoring = undefined;
      }
    })();
    return this.#restoring;
  }

  /**
   * One instance at a time (a lease, taken with SET NX PX and kept or let go only by its
   * holder) ends the chats of visitors gone past the grace period, and takes the visitors of
   * instances whose heartbeat stopped.
   */
  async #sweep(): Promise<void> {
    if (this.#sweeping || this.#closed) return;
    this.#sweeping = true;
    try {
      await null;
      const held = await this.#leaseTake.run(
        [this.#keys.pool("lease")],
        [this.#instance, Math.max(2000, 3 * (this.#options.sweepEveryMs ?? 1000))],
      );
      if (Number(held) !== 1) return;
      // Past bans and mutes are let go now and then, a page at a time.
      const cleaning = this.#sweeps++ % 10 === 0;
      // Each step is bounded; when many left at once (an instance died), steps follow at once.
      for (let step = 0; step < SWEEP_STEPS; step++) {
        const answer = await this.#poolRun<{
          dead: string[] | Record<string, never>;
          chats: Ending[] | Record<string, never>;
          cursors: [string, string];
          more: boolean;
        }>("sweep", [
          this.#graceMs,
          SWEEP_BATCH,
          SCAN_PAGE,
          ...(cleaning && step === 0 ? this.#cursors : ["-", "-"]),
        ]);
        if (cleaning && step === 0) this.#cursors = answer.cursors;
        const chats = Array.isArray(answer.chats) ? answer.chats : [];
        await this.#finish(chats, (ending) => ({
          leaver: "",
          partner: JSON.stringify({ type: "partner-left", chatId: ending.chat }),
        }));
        for (const dead of Array.isArray(answer.dead) ? answer.dead : []) {
          // An instance that sweeps is alive, whatever a clock moved by hand says.
          if (dead === this.#instance) continue;
          while (Number(await this.#poolRun<number>("orphan", [dead, ORPHAN_BATCH], dead)) > 0);
        }
        if (!answer.more) break;
      }
    } finally {
      this.#sweeping = false;
    }
  }

  /**
   * The server is stopping. On Redis the chats go on: the visitors' sockets reconnect to
   * another instance and resume there, within the grace period.
   */
  async endAll(): Promise<void> {}

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers) this.#time.clearInterval(timer);
    for (const timers of this.#rematch.values()) {
      for (const timer of timers) this.#time.clearTimeout(timer);
    }
    this.#typing.close();
    // The grace period of the visitors held here starts now (those already elsewhere keep on).
    try {
      while (
        Number(
          await this.#poolRun<number>("orphan", [this.#instance, ORPHAN_BATCH], this.#instance),
        ) > 0
      );
      await this.#leaseRelease.run([this.#keys.pool("lease")], [this.#instance]);
    } catch (error) {
      this.#fail("leaving the pool", error);
    }
  }
}
