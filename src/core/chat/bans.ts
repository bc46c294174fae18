import { sql } from "kysely";
import type { DB } from "../../../db/schema.ts";
import type { VisitorKeys } from "../requester.ts";
import { WriteBehind, type WriteBehindOptions } from "../write-behind.ts";
import { holdKeys, latestHold } from "./holds.ts";

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
 * taken on the keys in `recordOn` (all of them unless said): an automatic ban records it on the
 * visitor only, so an address shared by a school climbs only on an operator's confirmation.
 * Answers when the ban ends.
 */
export async function escalate(
  db: DB,
  keys: readonly string[],
  now: number,
  recordOn: readonly string[] = keys,
): Promise<number> {
  const rows = await db.selectFrom("ban_steps").selectAll().where("key", "in", keys).execute();
  const step = Math.max(0, ...rows.map((row) => currentStep(row, now)));
  if (recordOn.length > 0) {
    await db
      .insertInto("ban_steps")
      .values(recordOn.map((key) => ({ key, step: step + 1, last_at: now })))
      .onConflict((oc) => oc.column("key").doUpdateSet({ step: step + 1, last_at: now }))
      .execute();
  }
  return now + banLength(step);
}

/** A ban on one key ("visitor:<id>" or "ip:<hash>") until a time. */
export interface KeyBan {
  key: string;
  until: number;
}

/** What a ban did: every key it covers with its end, and the end of the visitor's own. */
export interface BanResult {
  bans: KeyBan[];
  until: number;
}

/** What an automatic ban rests on: a new, independent ground climbs the ladder; a hold does not. */
export type AutomaticGround = "escalate" | "hold";

/**
 * Bans a chat visitor on a ground the site found itself (reports, an unsafe message, contact
 * details spread over chats), unless a ban on them is in force already: a second ground while
 * one holds never escalates it. The visitor's own key gets the full ban ("escalate" climbs their
 * ladder; "hold", a child-safety report's, holds them out for the first rung without climbing it);
 * the addresses seen with them get no more than the first rung until an operator confirms it,
 * since an address is often a whole school or mobile network. Answers undefined when a ban was in
 * force.
 */
export async function banAutomatically(
  db: DB,
  bans: ChatBans,
  offender: VisitorKeys,
  ground: AutomaticGround,
  now: number,
): Promise<BanResult | undefined> {
  const firstRung = now + banLength(0);
  // Claimed before any await: of two grounds arriving together, one bans and the other finds it.
  if (!(await bans.claim(offender.visitorId, firstRung))) return undefined;
  const visitorKey = `visitor:${offender.visitorId}`;
  const keys = await banKeysOf(db, offender.visitorId, now, offender.ipKey);
  const until = ground === "hold" ? firstRung : await escalate(db, keys, now, [visitorKey]);
  const result: KeyBan[] = keys.map((key) => ({
    key,
    until: key === visitorKey ? until : Math.min(until, firstRung),
  }));
  await bans.put(result, now);
  return { bans: result, until };
}

/**
 * An operator confirms a reported visitor's ban from the queue: the ban covers their addresses
 * in full, and climbs their ladder unless these reports already climbed it (an automatic ban
 * taken since `openSince`, when the oldest open report came), so confirming never escalates
 * twice for the same reports. A ban in force is never shortened.
 */
export async function confirmBan(
  db: DB,
  bans: ChatBans,
  offender: VisitorKeys,
  openSince: number,
  now: number,
): Promise<BanResult> {
  const visitorKey = `visitor:${offender.visitorId}`;
  const keys = await banKeysOf(db, offender.visitorId, now, offender.ipKey);
  const inForce = await bans.until(offender.visitorId, offender.ipKey);
  const history = await db
    .selectFrom("ban_steps")
    .selectAll()
    .where("key", "=", visitorKey)
    .executeTakeFirst();
  let until: number;
  if (inForce !== null && history && history.last_at >= openSince) {
    until = inForce;
    // The addresses reach the visitor's step, so a new cookie there does not start over.
    await db
      .insertInto("ban_steps")
      .values(keys.map((key) => ({ key, step: history.step, last_at: now })))
      .onConflict((oc) => oc.column("key").doUpdateSet({ step: history.step, last_at: now }))
      .execute();
  } else {
    until = Math.max(await escalate(db, keys, now), inForce ?? 0);
  }
  const result = keys.map((key) => ({ key, until }));
  await bans.put(result, now);
  return { bans: result, until };
}

/** The sightings waiting to be written, by the database they go to (see banKeysOf). */
const waitingSightings = new WeakMap<DB, Sightings>();

/**
 * Which addresses each chat visitor came from (one row per pair, kept a day), so a ban covers
 * them. Noted at every start without a write of its own: the sightings of the last moment go in
 * one statement (see WriteBehind); a ban made here writes this process's waiting ones first,
 * and the address the offender is on now is always in their ban.
 */
export class Sightings {
  readonly #rows: WriteBehind<{ visitor_id: string; ip_key: string; last_seen_at: number }>;

  constructor(
    private readonly db: DB,
    options: WriteBehindOptions = {},
  ) {
    this.#rows = new WriteBehind(
      (rows) =>
        this.db
          .insertInto("visitor_addresses")
          .values(rows)
          .onConflict((oc) =>
            oc
              .columns(["visitor_id", "ip_key"])
              .doUpdateSet((eb) => ({ last_seen_at: eb.ref("excluded.last_seen_at") })),
          )
          .execute(),
      { keep: "latest", rowsPerWrite: 300 },
      options,
    );
    waitingSightings.set(db, this);
  }

  note(visitorId: string, ipKey: string, now: number): void {
    this.#rows.note(`${visitorId} ${ipKey}`, {
      visitor_id: visitorId,
      ip_key: ipKey,
      last_seen_at: now,
    });
  }

  /** Writes every waiting sighting; resolves once they are stored. */
  flush(): Promise<void> {
    return this.#rows.flush();
  }

  /** Resolves once the writes already started are done, starting none. */
  settled(): Promise<void> {
    return this.#rows.settled();
  }
}

/** The ban keys that cover a visitor: their id and every address hash seen with it lately. */
export async function banKeysOf(
  db: DB,
  visitorId: string,
  now: number,
  alsoIpKey?: string,
): Promise<string[]> {
  await waitingSightings.get(db)?.flush();
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

/**
 * Ban history leaves the database once it no longer counts: ended bans, and escalation steps
 * all forgotten (one step every STEP_FORGOTTEN_AFTER_MS without a new ban).
 */
export async function purgeBanHistory(db: DB, now: number): Promise<void> {
  await db.deleteFrom("chat_bans").where("until", "<=", now).execute();
  const steps = await db.selectFrom("ban_steps").selectAll().execute();
  const forgotten = steps.filter((row) => currentStep(row, now) === 0).map((row) => row.key);
  for (let i = 0; i < forgotten.length; i += 500) {
    await db
      .deleteFrom("ban_steps")
      .where("key", "in", forgotten.slice(i, i + 500))
      .execute();
  }
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
   * Takes the visitor's ban until `until` unless a ban on them is in force: answers whether it
   * was taken. Checked and taken in one step, so of two bans arriving together one wins.
   */
  claim(visitorId: string, until: number): Promise<boolean>;
  /** Writes bans, in the database and where the hot checks read; one in force is never shortened. */
  put(bans: readonly KeyBan[], now: number): Promise<void>;
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
    return latestHold(this.#until, holdKeys(visitorId, ipKey), this.now());
  }

  isBanned(visitorId: string, ipKey: string): boolean {
    return this.untilNow(visitorId, ipKey) !== null;
  }

  async lift(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.#until.delete(key);
  }

  async claim(visitorId: string, until: number): Promise<boolean> {
    const key = `visitor:${visitorId}`;
    if ((this.#until.get(key) ?? 0) > this.now()) return false;
    this.#until.set(key, until);
    return true;
  }

  async put(bans: readonly KeyBan[], now: number): Promise<void> {
    for (const { key, until } of bans) {
      this.#until.set(key, Math.max(this.#until.get(key) ?? 0, until));
    }
    await storeKeyBans(this.db, bans, now);
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

/**
 * Writes ban rows to the database, never shortening one there; every ban is kept there whatever
 * else holds it.
 */
export async function storeKeyBans(db: DB, bans: readonly KeyBan[], now: number): Promise<void> {
  if (bans.length === 0) return;
  await db
    .insertInto("chat_bans")
    .values(bans.map(({ key, until }) => ({ key, until, created_at: now })))
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        until: sql<number>`CASE WHEN chat_bans.until > excluded.until THEN chat_bans.until ELSE excluded.until END`,
        created_at: now,
      }),
    )
    .execute();
}
