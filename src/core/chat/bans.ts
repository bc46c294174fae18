import type { DB } from "../../../db/schema.ts";

/** A ban on a visitor also covers the address hashes they were seen with this long before. */
export const SIGHTING_WINDOW_MS = 24 * 60 * 60 * 1000;

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
 * Chat bans, keyed on the visitor id and on the address hash (IPv6 by /64), so clearing
 * cookies does not lift one. Kept in memory for the hot checks, written through to SQLite.
 */
export class ChatBans {
  readonly #until = new Map<string, number>();

  private constructor(
    private readonly db: DB,
    private readonly now: () => number,
  ) {}

  static async load(db: DB, now: () => number): Promise<ChatBans> {
    const bans = new ChatBans(db, now);
    const rows = await db.selectFrom("chat_bans").selectAll().where("until", ">", now()).execute();
    for (const row of rows) bans.#until.set(row.key, row.until);
    return bans;
  }

  /** When the ban on this visitor or address ends, or null when there is none. */
  until(visitorId: string, ipKey: string): number | null {
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
    return this.until(visitorId, ipKey) !== null;
  }

  /** Bans the visitor, the address of the offence and the other addresses seen with them. */
  async ban(visitorId: string, ipKey: string, until: number): Promise<string[]> {
    const now = this.now();
    const keys = await banKeysOf(this.db, visitorId, now, ipKey);
    for (const key of keys) this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
    await this.db
      .insertInto("chat_bans")
      .values(keys.map((key) => ({ key, until, created_at: now })))
      .onConflict((oc) => oc.column("key").doUpdateSet({ until, created_at: now }))
      .execute();
    return keys;
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
