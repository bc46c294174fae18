import { randomBytes } from "node:crypto";
import { CHAT_TIMINGS } from "../../../common/chat-timings.ts";
import { systemTime, type Time, type TimerHandle } from "../../clock.ts";
import type { ChatSubscriptions } from "../../redis-bus.ts";
import { isCluster, type RedisClient, RedisScript } from "../../redis-script.ts";
import type { BrokerOptions } from "../broker.ts";
import { RandomIds } from "../ids.ts";
import { RedisKeys } from "./keys.ts";
import type { LocalVisitor } from "./local.ts";
import { CHAT_SCRIPTS, type ChatScript, chatScriptSource } from "./lua/chat/index.ts";
import {
  BEAT,
  LEASE_RELEASE,
  LEASE_TAKE,
  POOL_SCRIPTS,
  type PoolScript,
  poolScriptSource,
} from "./lua/pool/index.ts";

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
  /** How long a running chat's keys live without being ended (a safety net). */
  chatLifeMs?: number;
  /** Redis came back without the chat's state: what else must be said again (bans, blocks). */
  onRestored?: () => Promise<void>;
  /** A fault worth the operator's eyes (bounded by the caller). */
  onError?: (what: string, error: unknown) => void;
  /** Told of the work its timers start (a test moves time, then waits for it). */
  onBackground?: (work: Promise<unknown>) => void;
}

/**
 * How long after Redis came back (or this instance's sharded subscriptions were found lost) a
 * side channel is not trusted to carry a chat's "matched" alone: a subscription made while a
 * Cluster's nodes are still coming back can answer before it holds.
 */
const SIDES_DISTRUSTED_MS = 30_000;

/** Events a chat's stream keeps at most, unless told otherwise (XADD MAXLEN ~). */
export const KEPT_EVENTS = 100;

/**
 * What the parts of the chat on Redis share on one instance: the connections, the keys and
 * scripts, the timings, the visitors it holds, and the work its timers start.
 */
export class RedisChat {
  readonly redis: RedisClient;
  readonly bus: ChatSubscriptions;
  readonly keys: RedisKeys;
  readonly instance = randomBytes(9).toString("base64url");
  readonly time: Time;
  readonly options: RedisBrokerOptions;
  readonly graceMs: number;
  readonly meetAgainAfterMs: number;
  readonly keepEndedMs: number;
  readonly heartbeatMs: number;
  readonly sweepEveryMs: number;
  /** Events a chat's stream keeps. */
  readonly kept: number;
  readonly chatLifeMs: number;
  /**
   * The one name of Cluster mode here: `redis` is a Redis Cluster client. A chat's events then
   * go to its sides' sharded channels (SideChannels), and a message is the chat's send script
   * rather than a transaction (Relay).
   */
  readonly cluster: boolean;
  /** The visitors with streams on this instance. */
  readonly visitors = new Map<string, LocalVisitor>();
  readonly beat: RedisScript;
  readonly leaseTake: RedisScript;
  readonly leaseRelease: RedisScript;
  closed = false;
  #sidesTrustedFrom = 0;
  readonly #poolArgs: string[];
  readonly #ids = new RandomIds();
  readonly #pool: Record<PoolScript, RedisScript>;
  readonly #chat: Record<ChatScript, RedisScript>;
  readonly #timers: TimerHandle[] = [];

  constructor(options: RedisBrokerOptions) {
    this.options = options;
    this.redis = options.redis;
    this.bus = options.subscriptions;
    this.keys = new RedisKeys(options.prefix ?? "tidings:");
    this.time = options.time ?? systemTime;
    this.graceMs = options.resumeGraceMs ?? CHAT_TIMINGS.resumeGraceMs;
    this.meetAgainAfterMs = options.meetAgainAfterMs ?? CHAT_TIMINGS.meetAgainAfterMs;
    this.keepEndedMs = options.keepEndedMs ?? CHAT_TIMINGS.endedChatKeptMs;
    this.heartbeatMs = options.heartbeatMs ?? 2000;
    this.sweepEveryMs = options.sweepEveryMs ?? 1000;
    this.kept = options.keptEvents ?? KEPT_EVENTS;
    this.chatLifeMs = options.chatLifeMs ?? 24 * 60 * 60 * 1000;
    this.cluster = isCluster(this.redis);
    this.#poolArgs = [
      this.keys.visitorChannelPrefix,
      this.keys.lifeChannelPrefix,
      this.instance,
      String(3 * this.heartbeatMs),
      String(options.poolScan ?? 64),
      String(this.meetAgainAfterMs),
      String(options.skipPartnerMs ?? CHAT_TIMINGS.partedKeptApartMs),
    ];
    const scripts = <N extends string>(
      names: readonly N[],
      source: (name: N) => string,
      keyCount: number,
    ) =>
      Object.fromEntries(
        names.map((name) => [name, new RedisScript(this.redis, source(name), [keyCount])]),
      ) as Record<N, RedisScript>;
    this.#pool = scripts(
      Object.keys(POOL_SCRIPTS) as PoolScript[],
      poolScriptSource,
      this.keys.poolKeys().length,
    );
    // A chat's hash, its stream's two names, and on a Cluster its two sides' channels.
    const chatKeys = this.cluster ? 5 : 3;
    this.#chat = scripts(Object.keys(CHAT_SCRIPTS) as ChatScript[], chatScriptSource, chatKeys);
    this.beat = new RedisScript(this.redis, BEAT, [2]);
    this.leaseTake = new RedisScript(this.redis, LEASE_TAKE, [1]);
    this.leaseRelease = new RedisScript(this.redis, LEASE_RELEASE, [1]);
  }

  /** A pool script (on the pool's hash tag), its JSON answer read. */
  async poolRun<T>(name: PoolScript, args: Array<string | number>, instance?: string): Promise<T> {
    const answer = await this.#pool[name].run(this.keys.poolKeys(instance ?? this.instance), [
      this.time.now(),
      ...this.#poolArgs,
      ...args,
    ]);
    return JSON.parse(String(answer)) as T;
  }

  /** A chat script, on the chat's own hash tag. */
  chatRun(name: ChatScript, chatId: string, args: Array<string | number>): Promise<unknown> {
    const keys = this.keys.chat(chatId);
    return this.#chat[name].run(this.cluster ? [...keys, ...this.keys.sides(chatId)] : keys, [
      this.time.now(),
      this.keys.visitorChannelPrefix,
      chatId,
      ...args,
    ]);
  }

  /**
   * Whether a chat's "matched" may go on a side channel alone (see SIDES_DISTRUSTED_MS);
   * otherwise it goes on the visitor's own channel too.
   */
  get sidesTrusted(): boolean {
    return this.time.now() >= this.#sidesTrustedFrom;
  }

  distrustSides(): void {
    this.#sidesTrustedFrom = this.time.now() + SIDES_DISTRUSTED_MS;
  }

  newChatId(): string {
    return this.#ids.next();
  }

  fail(what: string, error: unknown): void {
    this.options.onError?.(what, error);
  }

  inBackground(work: Promise<unknown>): void {
    const tracked = work.catch(() => {});
    this.options.onBackground?.(tracked);
  }

  /** Runs `fn` every `ms` in the background, until close. */
  every(ms: number, fn: () => Promise<unknown>): void {
    const timer = this.time.setInterval(() => this.inBackground(fn()), ms);
    timer.unref();
    this.#timers.push(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.#timers) this.time.clearInterval(timer);
  }
}
