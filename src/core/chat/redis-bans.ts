import { randomUUID } from "node:crypto";
import type { DB } from "../../../db/schema.ts";
import { HOLD_NEWS_LUA, ReplicatedHolds } from "../holds/replicated.ts";
import type { RedisBus } from "../redis-bus.ts";
import { type RedisClient, RedisScript } from "../redis-script.ts";
import { type ChatBans, type KeyBan, storeKeyBans } from "./bans.ts";
import { holdKeys } from "./holds.ts";
import type { RedisKeys } from "./redis/keys.ts";

/**
 * KEYS: the bans hash. ARGV: now, the bans channel, then pairs of a key and its end. Each ban
 * is set to the later of its end and the one in force (a ban is never shortened) and told to
 * every instance.
 */
const PUT = `${HOLD_NEWS_LUA}
local now = tonumber(ARGV[1])
for i = 3, #ARGV, 2 do
  local key, untilMs = ARGV[i], tonumber(ARGV[i + 1])
  if untilMs > now and untilMs > (tonumber(redis.call('HGET', KEYS[1], key)) or 0) then
    redis.call('HSET', KEYS[1], key, ARGV[i + 1])
    redis.call('PUBLISH', ARGV[2], hold_news(ARGV[i + 1], key))
  end
end
return 1
`;

/**
 * KEYS: the bans hash. ARGV: now, the bans channel, the visitor's key, until. Takes the ban
 * unless one is in force; answers whether it was taken.
 */
const CLAIM = `${HOLD_NEWS_LUA}
if (tonumber(redis.call('HGET', KEYS[1], ARGV[3])) or 0) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
redis.call('PUBLISH', ARGV[2], hold_news(ARGV[4], ARGV[3]))
return 1
`;

/** KEYS: the bans hash. ARGV: the bans channel, then keys. Lifts them, telling every instance. */
const LIFT = `${HOLD_NEWS_LUA}
for i = 2, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('PUBLISH', ARGV[1], lift_news(ARGV[i]))
end
return 1
`;

/** The scripts by name, as reports of Redis's slow log call them. */
export const BAN_SCRIPTS = { put: PUT, claim: CLAIM, lift: LIFT } as const;

/** Bans written to Redis in one script at most (a few µs each: none holds it for long). */
const BANS_PER_SCRIPT = 50;
/** Bans an instance copies at most (each one visitor's or address's; more are asked of Redis). */
const BANS_COPIED = 100_000;

async function* rowsOf(rows: ReadonlyArray<{ key: string; until: number }>) {
  for (const { key, until } of rows) yield [key, until] as [string, number];
}

/**
 * Chat bans shared by every instance. The chat's scripts read them from one Redis hash on the
 * pool's slot (so pairing refuses a banned visitor in the same step); every instance keeps a
 * copy in memory for the hot checks (subscribing, starting, sending: ReplicatedHolds), told of
 * each ban made or lifted on any instance through a channel at once, by the scripts here that
 * write them, and asks Redis only when its copy cannot tell; the database keeps them all (the operator's
 * commands write there, and each instance reads them again every few seconds, which also fills
 * Redis again after it restarted empty).
 */
export class RedisChatBans implements ChatBans {
  /** The bans as this instance knows them. */
  readonly #holds: ReplicatedHolds;
  /** The bans this instance has read from the database, to tell the new ones. */
  #seen = new Map<string, number>();
  readonly #redis: RedisClient;
  readonly #hash: string;
  readonly #channel: string;
  readonly #put: RedisScript;
  readonly #claim: RedisScript;
  readonly #lift: RedisScript;

  constructor(
    private readonly db: DB,
    redis: RedisClient,
    bus: Pick<RedisBus, "onMessage" | "subscribe">,
    keys: RedisKeys,
    private readonly now: () => number,
  ) {
    this.#redis = redis;
    this.#hash = keys.pool("bans");
    this.#channel = keys.bansChannel;
    this.#put = new RedisScript(redis, PUT, [1]);
    this.#claim = new RedisScript(redis, CLAIM, [1]);
    this.#lift = new RedisScript(redis, LIFT, [1]);
    this.#holds = new ReplicatedHolds({
      bus,
      publish: (channel, payload) => redis.publish(channel, payload),
      channel: this.#channel,
      // The news of bans is sent by the scripts here, unsigned: every instance takes it.
      self: randomUUID(),
      max: BANS_COPIED,
      now,
    });
    this.subscribed = this.#holds.subscribe();
  }

  /** Resolves once bans made on other instances reach this one. */
  readonly subscribed: Promise<void>;

  async until(visitorId: string, ipKey: string): Promise<number | null> {
    // Checked on every chat call: the copy answers, but before the first load or when full.
    const keys = holdKeys(visitorId, ipKey);
    const copied = this.#holds.until(keys);
    if (copied !== undefined) return copied;
    const values = await this.#redis.hmget(this.#hash, ...keys);
    const until = Math.max(0, ...values.map(Number).filter(Number.isFinite));
    return until > this.now() ? until : null;
  }

  async claim(visitorId: string, until: number): Promise<boolean> {
    const key = `visitor:${visitorId}`;
    const taken = await this.#claim.run([this.#hash], [this.now(), this.#channel, key, until]);
    if (Number(taken) !== 1) return false;
    this.#holds.note(key, until);
    return true;
  }

  async #write(bans: ReadonlyArray<{ key: string; until: number }>, now: number): Promise<void> {
    for (let i = 0; i < bans.length; i += BANS_PER_SCRIPT) {
      const page = bans.slice(i, i + BANS_PER_SCRIPT);
      await this.#put.run(
        [this.#hash],
        [now, this.#channel, ...page.flatMap(({ key, until }) => [key, until])],
      );
    }
  }

  async put(bans: readonly KeyBan[], now: number): Promise<void> {
    // The database first: a refresh on another instance never finds in Redis a ban it cannot
    // find in the database.
    await storeKeyBans(this.db, bans, now);
    const current = bans.filter(({ until }) => until > now);
    for (const { key, until } of current) this.#holds.note(key, until);
    await this.#write(current, now);
  }

  /** Reads every ban from the database into this instance's copy and Redis (at start). */
  async load(): Promise<void> {
    await this.refresh();
  }

  async refresh(): Promise<Array<{ key: string; until: number }>> {
    const now = this.now();
    const rows = await this.db
      .selectFrom("chat_bans")
      .select(["key", "until"])
      .where("until", ">", now)
      .execute();
    // New to this instance: written by an operator's command (bans made on an instance reach
    // every other one at once, and their chats were ended there).
    const fresh = rows.filter((row) => (this.#holds.known(row.key) ?? 0) < row.until);
    // Every ban in force is in the database: the copy is whole after this, if it had room.
    await this.#holds.reload(() => rowsOf(rows));
    // All of them, not only the new ones: Redis may have restarted empty meanwhile.
    await this.#write(rows, now);
    // Bans the operator lifted from another process (or that ended).
    const current = new Set(rows.map((row) => row.key));
    await this.lift([...this.#seen.keys()].filter((key) => !current.has(key)));
    this.#seen = new Map(rows.map((row) => [row.key, row.until]));
    return fresh;
  }

  async lift(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    this.#holds.lift(keys);
    await this.#lift.run([this.#hash], [this.#channel, ...keys]);
  }
}
