import type { DB } from "../../../db/schema.ts";

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

  async ban(visitorId: string, ipKey: string, until: number): Promise<void> {
    const keys = [`visitor:${visitorId}`, `ip:${ipKey}`];
    for (const key of keys) this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
    const now = this.now();
    await this.db
      .insertInto("chat_bans")
      .values(keys.map((key) => ({ key, until, created_at: now })))
      .onConflict((oc) => oc.column("key").doUpdateSet({ until, created_at: now }))
      .execute();
  }

  /**
   * Reads bans again from the database, where the operator's commands write them; answers the
   * visitors banned since the last read, so their chats can be ended.
   */
  async refresh(): Promise<Array<{ visitorId: string; until: number }>> {
    const rows = await this.db
      .selectFrom("chat_bans")
      .selectAll()
      .where("until", ">", this.now())
      .execute();
    const fresh: Array<{ visitorId: string; until: number }> = [];
    const next = new Map<string, number>();
    for (const row of rows) {
      next.set(row.key, row.until);
      if (row.key.startsWith("visitor:") && this.#until.get(row.key) !== row.until) {
        fresh.push({ visitorId: row.key.slice("visitor:".length), until: row.until });
      }
    }
    this.#until.clear();
    for (const [key, until] of next) this.#until.set(key, until);
    return fresh;
  }
}
