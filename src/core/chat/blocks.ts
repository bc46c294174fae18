import type { DB } from "../../../db/schema.ts";
import { DomainError } from "../errors.ts";
import type { ChatBroker } from "./broker.ts";

/** A block keeps the two apart this long, by the blocked visitor's id and address. */
export const BLOCK_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Ends the visitor's chat at once and keeps them and their partner apart for 30 days. Once a
 * chat has ended, its partner is named by one of their messages (`messageId`), which the
 * broker still holds for a while after the end, so the one just harassed can still block them.
 */
export async function blockPartner(
  db: DB,
  broker: ChatBroker,
  visitorId: string,
  now: number,
  messageId?: string,
): Promise<void> {
  const until = now + BLOCK_MS;
  if (messageId === undefined) {
    const blocked = await broker.block(visitorId, until);
    if (!blocked) throw new DomainError("NOT_FOUND", "not in a chat");
    await recordBlock(db, visitorId, blocked, until, now);
    return;
  }
  // Never the chat in progress: a visitor may be in a new chat by now, with someone else.
  const held = await broker.partnerMessage(visitorId, messageId);
  if (!held) throw new DomainError("NOT_FOUND", "no such message from a partner");
  const sender = { visitorId: held.senderVisitorId, ipKey: held.senderIpKey };
  await keepApart(db, broker, visitorId, sender, until, now);
}

/**
 * Keeps a visitor and someone they met apart until `until` (by the other's visitor id and
 * address), without ending anything: a report does this for the reporter.
 */
export async function keepApart(
  db: DB,
  broker: ChatBroker,
  blocker: string,
  blocked: { visitorId: string; ipKey: string },
  until: number,
  now: number,
): Promise<void> {
  await broker.rememberBlock(blocker, blocked, until);
  await recordBlock(db, blocker, blocked, until, now);
}

async function recordBlock(
  db: DB,
  blocker: string,
  blocked: { visitorId: string; ipKey: string },
  until: number,
  now: number,
): Promise<void> {
  await db
    .insertInto("chat_blocks")
    .values({
      blocker_visitor_id: blocker,
      blocked_visitor_id: blocked.visitorId,
      blocked_ip_key: blocked.ipKey,
      created_at: now,
      until,
    })
    .onConflict((oc) =>
      oc
        .columns(["blocker_visitor_id", "blocked_visitor_id"])
        .doUpdateSet({ blocked_ip_key: blocked.ipKey, created_at: now, until }),
    )
    .execute();
}

/** Tells a broker of the blocks still holding (an in-memory one starts with none). */
export async function restoreBlocks(db: DB, broker: ChatBroker, now: number): Promise<number> {
  const rows = await db.selectFrom("chat_blocks").selectAll().where("until", ">", now).execute();
  for (const row of rows) {
    await broker.rememberBlock(
      row.blocker_visitor_id,
      { visitorId: row.blocked_visitor_id, ipKey: row.blocked_ip_key },
      row.until,
    );
  }
  return rows.length;
}

export async function purgeBlocks(db: DB, now: number): Promise<void> {
  await db.deleteFrom("chat_blocks").where("until", "<=", now).execute();
}
