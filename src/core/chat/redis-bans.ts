import type { DB } from "../../../db/schema.ts";
import type { RedisBus } from "../redis-bus.ts";
import { type RedisClient, RedisScript } from "../redis-script.ts";
import { type ChatBans, type KeyBan, storeKeyBans } from "./bans.ts";
import { holdKeys, latestHold } from "./holds.ts";
import type { RedisKeys } from "./redis-keys.ts";

/**
 * KEYS: the bans hash. ARGV: now, the bans channel, then pairs of a key and its end. Each ban
 * is set to the later of its end and the one in force (a ban is never shortened) and told to
 * every instance.
 */
const PUT = `
local now = tonumber(ARGV[1])
for i = 3, #ARGV, 2 do
  local key, untilMs = ARGV[i], tonumber(ARGV[i + 1])
  if untilMs > now and untilMs > (tonumber(redis.call('HGET', KEYS[1], key)) or 0) then
    redis.call('HSET', KEYS[1], key, ARGV[i + 1])
    redis.call('PUBLISH', ARGV[2], '+' .. ARGV[i + 1] .. ' ' .. key)
  end
end
return 1
`;

/**
 * KEYS: the bans hash. ARGV: now, the bans channel, the visitor's key, until. Takes the ban
 * unless one is in force; answers whether it was taken.
 */
const CLAIM = `
if (tonumber(redis.call('HGET', KEYS[1], ARGV[3])) or 0) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
redis.call('PUBLISH', ARGV[2], '+' .. ARGV[4] .. ' ' .. ARGV[3])
return 1
`;

/** KEYS: the bans hash. ARGV: the bans channel, then keys. Lifts them, telling every instance. */
const LIFT = `
for i = 2, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('PUBLISH', ARGV[1], '- ' .. ARGV[i])
end
return 1
`;

/** The scripts by name, as reports of Redis's slow log call them. */
export const BAN_SCRIPTS = { put: PUT, claim: CLAIM, lift: LIFT } as const;

/** Bans written to Redis in one script at most (a few µs each: none holds it for long). */
const BANS_PER_SCRIPT = 50;

/**
 * Chat bans shared by every instance. The chat's scripts read them from one Redis hash on the
 * pool's slot (so pairing refuses a banned visitor in the same step); every instance keeps a
 * copy in memory for the hot checks (subscribing, starting, sending), told of each ban made or
 * lifted on any instance through a channel at once; the database keeps them all (the operator's
 * commands write there, and each instance reads them again every few seconds, which also fills
 * Redis again after it restarted empty).
 */
export class RedisChatBans implements ChatBans {
  /** key → until, as this instance knows it. */
  readonly #until = new Map<string, number>();
  /** The bans this instance has read from the database, to tell the new ones. */
  #seen = new Map<string, number>();
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
    this.#hash = keys.pool("bans");
    this.#channel = keys.bansChannel;
    this.#put = new RedisScript(redis, PUT, [1]);
    this.#claim = new RedisScript(redis, CLAIM, [1]);
    this.#lift = new RedisScript(redis, LIFT, [1]);
    bus.onMessage(this.#channel, (_channel, payload) => {
      const space = payload.indexOf(" ");
      const key = payload.slice(space + 1);
      if (payload[0] === "-") this.#until.delete(key);
      else
        this.#until.set(key, Math.max(this.#until.get(key) ?? 0, Number(payload.slice(1, space))));
    });
    this.subscribed = bus.subscribe(this.#channel);
  }

  /** Resolves once bans made on other instances reach this one. */
  readonly subscribed: Promise<void>;

  async until(visitorId: string, ipKey: string): Promise<number | null> {
    // Checked on every chat call; usually nobody is banned.
    if (this.#until.size === 0) return null;
    return latestHold(this.#until, holdKeys(visitorId, ipKey), this.now());
  }

  async claim(visitorId: string, until: number): Promise<boolean> {
    const key = `visitor:${visitorId}`;
    const taken = await this.#claim.run([this.#hash], [this.now(), this.#channel, key, until]);
    if (Number(taken) !== 1) return false;
    this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
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
    for (const { key, until } of current) {
      this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
    }
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
    const fresh = rows.filter((row) => (this.#until.get(row.key) ?? 0) < row.until);
    for (const { key, until } of rows) {
      this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
    }
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
    for (const key of keys) this.#until.delete(key);
    await this.#lift.run([this.#hash], [this.#channel, ...keys]);
  }
}
