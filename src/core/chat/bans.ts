import type Redis from "ioredis";
import type { DB } from "../../../db/schema.ts";

/** A ban on a visitor also covers the address hashes they were seen with this long before. */
export const SIGHTING_WINDOW_MS = 24 * 60 * 60 * 1000;

const HOUR = 60 * 60 * 1000;
/** Each ban lasts longer than the one before: 1 h, 6 h, 24 h, 3 days, then 7 days each. */
export const BAN_STEPS_MS = [HOUR, 6 * HOUR, 24 * HOUR, 72 * HOUR, 168 * HOUR] as const;
/** Every 30 days without a new ban, one step is forgotten. */
export const STEP_FORGOTTEN_AFTER_MS = 30 * 24 * HOUR;

/** How far a key has escalated now: its recorded step, less the steps forgotten since. */
export function currentStep(history: { step: number; last_at: number } | undefined, now: number) {
  if (!history) return 0;
  const forgotten = Math.floor(Math.max(0, now - history.last_at) / STEP_FORGOTTEN_AFTER_MS);
  return Math.max(0, history.step - forgotten);
}

/** The length of a ban at a step (0 for a first ban). */
export function banLength(step: number): number {
  return BAN_STEPS_MS[Math.min(step, BAN_STEPS_MS.length - 1)] as number;
}

/**
 * The next ban for these keys (a visitor and their addresses): as long as the furthest escalated
 * key calls for, so a new cookie from the same address does not start over. Records the step
 * taken on every key. Answers when it ends.
 */
export async function escalate(db: DB, keys: readonly string[], now: number): Promise<number> {
  const rows = await db.selectFrom("ban_steps").selectAll().where("key", "in", keys).execute();
  const step = Math.max(0, ...rows.map((row) => currentStep(row, now)));
  await db
    .insertInto("ban_steps")
    .values(keys.map((key) => ({ key, step: step + 1, last_at: now })))
    .onConflict((oc) => oc.column("key").doUpdateSet({ step: step + 1, last_at: now }))
    .execute();
  return now + banLength(step);
}

/** Notes that a chat visitor came from this address hash (one row per pair, kept a day). */
export async function recordSighting(
  db: DB,
  visitorId: string,
  ipKey: string,
  now: number,
): Promise<void> {
  await db
    .insertInto("visitor_addresses")
    .values({ visitor_id: visitorId, ip_key: ipKey, last_seen_at: now })
    .onConflict((oc) => oc.columns(["visitor_id", "ip_key"]).doUpdateSet({ last_seen_at: now }))
    .execute();
}

/** The ban keys that cover a visitor: their id and every address hash seen with it lately. */
export async function banKeysOf(
  db: DB,
  visitorId: string,
  now: number,
  alsoIpKey?: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("visitor_addresses")
    .select("ip_key")
    .where("visitor_id", "=", visitorId)
    .where("last_seen_at", ">", now - SIGHTING_WINDOW_MS)
    .execute();
  const ips = new Set(rows.map((row) => row.ip_key));
  if (alsoIpKey) ips.add(alsoIpKey);
  return [`visitor:${visitorId}`, ...[...ips].map((ip) => `ip:${ip}`)];
}

export async function purgeSightings(db: DB, now: number): Promise<void> {
  await db
    .deleteFrom("visitor_addresses")
    .where("last_seen_at", "<=", now - SIGHTING_WINDOW_MS)
    .execute();
}

/**
 * Chat bans, keyed on the visitor id and on the address hash (IPv6 by /64), so clearing cookies
 * does not lift one. Written to the database (the operator's commands write there too); read
 * from memory in one process (StoredChatBans) or from Redis, shared by every instance
 * (RedisChatBans).
 */
export interface ChatBans {
  /** When the ban on this visitor or address ends, or null when there is none. */
  until(visitorId: string, ipKey: string): Promise<number | null>;
  /**
   * Bans the visitor, the address of the offence and the other addresses seen with them, for
   * as long as their escalation calls for (see escalate).
   */
  ban(visitorId: string, ipKey: string): Promise<{ keys: string[]; until: number }>;
  /**
   * Reads bans again from the database, where the operator's commands write them; answers the
   * keys banned since the last read, so the chats they cover can be ended.
   */
  refresh(): Promise<Array<{ key: string; until: number }>>;
  /** Lifts these bans at once (they are already gone from the database). */
  lift(keys: readonly string[]): Promise<void>;
}

/**
 * Chat bans, keyed on the visitor id and on the address hash (IPv6 by /64), so clearing
 * cookies does not lift one. Kept in memory for the hot checks, written through to SQLite.
 */
export class StoredChatBans implements ChatBans {
  readonly #until = new Map<string, number>();

  private constructor(
    private readonly db: DB,
    private readonly now: () => number,
  ) {}

  static async load(db: DB, now: () => number): Promise<StoredChatBans> {
    const bans = new StoredChatBans(db, now);
    const rows = await db.selectFrom("chat_bans").selectAll().where("until", ">", now()).execute();
    for (const row of rows) bans.#until.set(row.key, row.until);
    return bans;
  }

  async until(visitorId: string, ipKey: string): Promise<number | null> {
    return this.untilNow(visitorId, ipKey);
  }

  /** When the ban on this visitor or address ends, or null when there is none. */
  untilNow(visitorId: string, ipKey: string): number | null {
    // Checked twice for every chat message; usually nobody is banned.
    if (this.#until.size === 0) return null;
    const now = this.now();
    let latest: number | null = null;
    for (const key of [`visitor:${visitorId}`, `ip:${ipKey}`]) {
      const until = this.#until.get(key);
      if (until === undefined) continue;
      // Expired bans are cleared as they are met.
      if (until <= now) this.#until.delete(key);
      else latest = Math.max(latest ?? 0, until);
    }
    return latest;
  }

  isBanned(visitorId: string, ipKey: string): boolean {
    return this.untilNow(visitorId, ipKey) !== null;
  }

  async lift(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.#until.delete(key);
  }

  async ban(visitorId: string, ipKey: string): Promise<{ keys: string[]; until: number }> {
    const now = this.now();
    const keys = await banKeysOf(this.db, visitorId, now, ipKey);
    const until = await escalate(this.db, keys, now);
    for (const key of keys) this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
    await storeBans(this.db, keys, until, now);
    return { keys, until };
  }

  /**
   * Reads bans again from the database, where the operator's commands write them; answers the
   * keys banned since the last read, so the chats they cover can be ended.
   */
  async refresh(): Promise<Array<{ key: string; until: number }>> {
    const rows = await this.db
      .selectFrom("chat_bans")
      .selectAll()
      .where("until", ">", this.now())
      .execute();
    const fresh: Array<{ key: string; until: number }> = [];
    const next = new Map<string, number>();
    for (const row of rows) {
      next.set(row.key, row.until);
      if (this.#until.get(row.key) !== row.until) fresh.push({ key: row.key, until: row.until });
    }
    this.#until.clear();
    for (const [key, until] of next) this.#until.set(key, until);
    return fresh;
  }
}

/** Writes ban rows to the database; every ban is kept there whatever else holds it. */
async function storeBans(db: DB, keys: readonly string[], until: number, now: number) {
  await db
    .insertInto("chat_bans")
    .values(keys.map((key) => ({ key, until, created_at: now })))
    .onConflict((oc) => oc.column("key").doUpdateSet({ until, created_at: now }))
    .execute();
}

/**
 * Chat bans shared by every instance: each is a Redis key that lapses when the ban ends (the
 * chat's scripts check the same keys), and a row in the database. A ban made on one instance
 * is refused by all at once; the operator's bans, written to the database, are copied to Redis
 * by each instance's refresh.
 */
export class RedisChatBans implements ChatBans {
  /** The bans this instance has read from the database, to tell the new ones. */
  #seen = new Map<string, number>();

  constructor(
    private readonly db: DB,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number,
  ) {}

  async until(visitorId: string, ipKey: string): Promise<number | null> {
    const values = await this.redis.mget(
      `${this.prefix}ban:visitor:${visitorId}`,
      `${this.prefix}ban:ip:${ipKey}`,
    );
    const now = this.now();
    const untils = values.map(Number).filter((until) => until > now);
    return untils.length > 0 ? Math.max(...untils) : null;
  }

  async #hold(keys: readonly string[], until: number): Promise<void> {
    const ttl = until - this.now();
    if (ttl <= 0) return;
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.set(`${this.prefix}ban:${key}`, until, "PX", ttl);
    await pipeline.exec();
  }

  async ban(visitorId: string, ipKey: string): Promise<{ keys: string[]; until: number }> {
    const now = this.now();
    const keys = await banKeysOf(this.db, visitorId, now, ipKey);
    const until = await escalate(this.db, keys, now);
    await this.#hold(keys, until);
    await storeBans(this.db, keys, until, now);
    return { keys, until };
  }

  async refresh(): Promise<Array<{ key: string; until: number }>> {
    const rows = await this.db
      .selectFrom("chat_bans")
      .select(["key", "until"])
      .where("until", ">", this.now())
      .execute();
    const fresh = rows.filter((row) => this.#seen.get(row.key) !== row.until);
    // All of them, not only the new ones: Redis may have restarted empty meanwhile.
    for (const { key, until } of rows) await this.#hold([key], until);
    // Bans the operator lifted from another process.
    const current = new Set(rows.map((row) => row.key));
    await this.lift([...this.#seen.keys()].filter((key) => !current.has(key)));
    this.#seen = new Map(rows.map((row) => [row.key, row.until]));
    return fresh;
  }

  async lift(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.redis.del(...keys.map((key) => `${this.prefix}ban:${key}`));
  }
}
