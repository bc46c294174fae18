import type { DB } from "../../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { ExpiringMap } from "../limits/expiring-map.ts";
import type { RedisClient } from "../redis-script.ts";
import { RedisScript } from "../redis-script.ts";

/**
 * Where solved challenges are recorded, so each is accepted once. `record` is one atomic step
 * (the check and the record together): of calls that run together with the same challenge,
 * exactly one is told true.
 */
export interface SolutionStore {
  /** True when this call recorded the challenge; false when it was recorded before. */
  record(challengeId: string, expiresAt: number): Promise<boolean>;
  /** Lets go of challenges past their expiry (a replay of one is refused as expired anyway). */
  purge(now: number): Promise<void>;
}

/** In the site's database: a row per challenge, its id the key (SQLite or PostgreSQL). */
export class SqlSolutionStore implements SolutionStore {
  constructor(private readonly db: DB) {}

  async record(challengeId: string, expiresAt: number): Promise<boolean> {
    const inserted = await this.db
      .insertInto("pow_solutions")
      .values({ challenge_id: challengeId, expires_at: expiresAt })
      .onConflict((oc) => oc.column("challenge_id").doNothing())
      .returning("challenge_id")
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async purge(now: number): Promise<void> {
    await this.db.deleteFrom("pow_solutions").where("expires_at", "<", now).execute();
  }
}

/** On Redis, shared by every instance: `SET NX` with the challenge's expiry, so none is purged. */
export class RedisSolutionStore implements SolutionStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: Clock,
  ) {}

  async record(challengeId: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, expiresAt - this.clock.now());
    const set = await this.redis.set(`${this.prefix}pow:{${challengeId}}`, "1", "PX", ttl, "NX");
    return set === "OK";
  }

  async purge(): Promise<void> {}
}

/**
 * The chat's pass: once a visitor has solved a challenge to start a chat, the next starts
 * (Next, a new partner) within a while need none. Bound to the visitor cookie and the address.
 */
export interface PassStore {
  /** Grants `starts` starts until `ttlMs` from now (replacing what was left). */
  grant(key: string, starts: number, ttlMs: number): Promise<void>;
  /** Takes one start, in one step; false when there is no pass or it is used up. */
  take(key: string): Promise<boolean>;
}

/** Each process's own, for a site on one machine: bounded, and gone after its time. */
export class MemoryPassStore implements PassStore {
  readonly #passes: ExpiringMap<string, { left: number; until: number }>;

  constructor(
    private readonly now: () => number,
    ttlMs: number,
    maxEntries = 100_000,
  ) {
    this.#passes = new ExpiringMap(ttlMs, now, maxEntries);
  }

  async grant(key: string, starts: number, ttlMs: number): Promise<void> {
    this.#passes.set(key, { left: starts, until: this.now() + ttlMs });
  }

  /** Synchronous all the way: two starts at once cannot both take the last one. */
  async take(key: string): Promise<boolean> {
    const pass = this.#passes.get(key);
    if (!pass || pass.left <= 0 || pass.until <= this.now()) return false;
    pass.left -= 1;
    return true;
  }
}

/** KEYS: the pass. Takes one start when one is left (DECR keeps the key's expiry). */
const TAKE_START = `
local left = tonumber(redis.call('GET', KEYS[1]))
if not left or left <= 0 then return 0 end
redis.call('DECR', KEYS[1])
return 1
`;

/** On Redis, so a visitor's next start on another instance is as instant. */
export class RedisPassStore implements PassStore {
  readonly #take: RedisScript;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.#take = new RedisScript(redis, TAKE_START, [1]);
  }

  #key(key: string): string {
    return `${this.prefix}pow-pass:{${key}}`;
  }

  async grant(key: string, starts: number, ttlMs: number): Promise<void> {
    await this.redis.set(this.#key(key), String(starts), "PX", ttlMs);
  }

  async take(key: string): Promise<boolean> {
    return (await this.#take.run([this.#key(key)], [])) === 1;
  }
}
