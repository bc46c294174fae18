import { sql } from "kysely";
import type { DB } from "../../../db/schema.ts";
import { SUNK_BY_WRITER } from "../bottles/bottles.ts";
import { hideBottle } from "../bottles/reports.ts";
import { banKeysOf } from "../chat/bans.ts";

/**
 * Hides or shows a bottle; hiding closes its open reports (answered: how many). Null when there
 * is no such bottle (to show: none its writer has not sunk). Run it in the transaction that
 * records the action.
 */
export async function setBottleHidden(
  trx: DB,
  bottleId: number,
  hidden: boolean,
  now: number,
): Promise<{ closed: number } | null> {
  if (hidden) {
    if (!(await hideBottle(trx, bottleId))) return null;
    const closed = await trx
      .updateTable("bottle_reports")
      .set({ handled_at: now })
      .where("bottle_id", "=", bottleId)
      .where("handled_at", "is", null)
      .executeTakeFirst();
    return { closed: Number(closed.numUpdatedRows) };
  }
  // A bottle its writer sank stays out of the ocean: only the moderators' hiding is undone.
  const result = await trx
    .updateTable("bottles")
    .set({ hidden: 0 })
    .where("id", "=", bottleId)
    .where("hidden", "!=", SUNK_BY_WRITER)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? { closed: 0 } : null;
}

/** A ban key as the operator types it: "visitor:<id>" or "ip:<hash>". */
export function parseBanKey(value: string): { kind: "visitor" | "ip"; id: string } | null {
  const match = /^(visitor|ip):([A-Za-z0-9_-]{10,64})$/.exec(value);
  return match ? { kind: match[1] as "visitor" | "ip", id: match[2] ?? "" } : null;
}

/** The keys a ban key stands for: a visitor's covers the address hashes seen with them. */
export async function coveredKeys(db: DB, key: string, now: number): Promise<string[]> {
  const parsed = parseBanKey(key);
  if (!parsed) throw new Error(`not a ban key: ${key}`);
  return parsed.kind === "visitor" ? banKeysOf(db, parsed.id, now) : [key];
}

/**
 * Bans a visitor or an address hash from chat until `until`, closing reports against it; a
 * visitor's ban also covers the address hashes seen with them in the last day. Answers the
 * keys banned. Run it in the transaction that records the action.
 */
export async function banFromChat(
  trx: DB,
  key: string,
  until: number,
  now: number,
): Promise<string[]> {
  const keys = await coveredKeys(trx, key, now);
  await storeChatBans(trx, keys, until, now);
  for (const k of keys) {
    const parsed = parseBanKey(k);
    if (!parsed) continue;
    const column = parsed.kind === "visitor" ? "reported_visitor_id" : "reported_ip_key";
    await trx
      .updateTable("chat_reports")
      .set({ handled_at: now })
      .where(column, "=", parsed.id)
      .where("handled_at", "is", null)
      .execute();
  }
  return keys;
}

/** Writes chat bans to the database, where every instance reads them. */
export async function storeChatBans(
  trx: DB,
  keys: readonly string[],
  until: number,
  now: number,
): Promise<void> {
  if (keys.length === 0) return;
  await trx
    .insertInto("chat_bans")
    .values(keys.map((k) => ({ key: k, until, created_at: now })))
    .onConflict((oc) => oc.column("key").doUpdateSet({ until, created_at: now }))
    .execute();
}

/**
 * Lifts a ban (a visitor's with the address hashes seen with them); answers the keys lifted.
 * Run it in the transaction that records the action.
 */
export async function unbanFromChat(trx: DB, key: string, now: number): Promise<string[]> {
  const keys = await coveredKeys(trx, key, now);
  const lifted = await trx
    .deleteFrom("chat_bans")
    .where("key", "in", keys)
    .returning("key")
    .execute();
  return lifted.map((row) => row.key);
}

export interface OceanStats {
  live: number;
  drifting: number;
  public: number;
  openReports: number;
}

export async function oceanStats(db: DB, now: number): Promise<OceanStats> {
  const row = await db
    .selectFrom("bottles")
    .select([
      sql<number>`sum(CASE WHEN hidden = 0 AND available_at <= ${now} AND (expires_at IS NULL OR expires_at > ${now}) THEN 1 ELSE 0 END)`.as(
        "live",
      ),
      sql<number>`sum(CASE WHEN hidden = 0 AND available_at > ${now} AND (expires_at IS NULL OR expires_at > ${now}) THEN 1 ELSE 0 END)`.as(
        "drifting",
      ),
      sql<number>`sum(CASE WHEN hidden = 0 AND is_public = 1 AND available_at <= ${now} AND (expires_at IS NULL OR expires_at > ${now}) THEN 1 ELSE 0 END)`.as(
        "public",
      ),
    ])
    .executeTakeFirstOrThrow();
  return {
    live: Number(row.live ?? 0),
    drifting: Number(row.drifting ?? 0),
    public: Number(row.public ?? 0),
    openReports: await openReportCount(db),
  };
}

/** Reports waiting for the operator, of bottles and of chat visitors. */
export async function openReportCount(db: DB): Promise<number> {
  const bottleReports = await db
    .selectFrom("bottle_reports")
    .where("handled_at", "is", null)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const chatReports = await db
    .selectFrom("chat_reports")
    .where("handled_at", "is", null)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(bottleReports.n) + Number(chatReports.n);
}
