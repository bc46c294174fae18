import type { DB } from "../../../db/schema.ts";
import { markRightsChanged } from "../auth/rights.ts";
import { type ChatBans, confirmBan, type KeyBan, storeKeyBans } from "../chat/bans.ts";
import { DomainError } from "../errors.ts";

/** One report in the queue, as the operator reads it. */
export interface QueuedReport {
  id: number;
  reason: string;
  /** The reported bottle's message, or the server's copy of the reported chat message. */
  text: string;
  createdAt: number;
}

/**
 * Open reports grouped by what they are about: a bottle, or a chat visitor. Child-safety
 * reports come first, then the newest.
 */
export type QueueGroup = {
  reports: QueuedReport[];
  /** How many reports give each reason. */
  reasons: Record<string, number>;
  reporters: number;
  /** The moderation lists' verdict: unsafe when any reported text was. */
  verdict: "safe" | "unsafe";
  childSafety: boolean;
  latestAt: number;
} & (
  | { kind: "bottle"; subject: `bottle:${number}`; bottleId: number; hidden: boolean }
  | {
      kind: "visitor";
      subject: `visitor:${string}`;
      visitorId: string;
      ipKey: string;
      /** When the chat ban in force on them ends (a child-safety report bans at once), or null. */
      bannedUntil: number | null;
    }
);

type Group = Extract<QueueGroup, { kind: "bottle" }> | Extract<QueueGroup, { kind: "visitor" }>;

function add(group: Group, report: QueuedReport, reporter: string, safe: boolean) {
  group.reports.push(report);
  group.reasons[report.reason] = (group.reasons[report.reason] ?? 0) + 1;
  if (!safe) group.verdict = "unsafe";
  if (report.reason === "childSafety") group.childSafety = true;
  group.latestAt = Math.max(group.latestAt, report.createdAt);
  return reporter;
}

/**
 * The queue of open reports (the moderation page and `tidings reports` read the same); with the
 * running site's bans, each visitor's ban in force too.
 */
export async function moderationQueue(db: DB, bans?: ChatBans, limit = 500): Promise<QueueGroup[]> {
  const bottleRows = await db
    .selectFrom("bottle_reports")
    .innerJoin("bottles", "bottles.id", "bottle_reports.bottle_id")
    .where("bottle_reports.handled_at", "is", null)
    .select([
      "bottle_reports.id",
      "bottle_reports.created_at",
      "bottle_reports.reason",
      "bottle_reports.is_safe",
      "bottle_reports.user_id",
      "bottles.id as bottle_id",
      "bottles.message",
      "bottles.hidden",
    ])
    .orderBy("bottle_reports.created_at", "desc")
    .limit(limit)
    .execute();
  const chatRows = await db
    .selectFrom("chat_reports")
    .where("handled_at", "is", null)
    .selectAll()
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  const groups = new Map<string, { group: Group; reporters: Set<string> }>();
  const entry = (subject: string, make: () => Group) => {
    let found = groups.get(subject);
    if (!found) {
      found = { group: make(), reporters: new Set() };
      groups.set(subject, found);
    }
    return found;
  };
  const fresh = {
    reports: [],
    reasons: {},
    reporters: 0,
    verdict: "safe",
    childSafety: false,
    latestAt: 0,
  } as const;
  for (const row of bottleRows) {
    const subject = `bottle:${row.bottle_id}` as const;
    const { group, reporters } = entry(subject, () => ({
      ...fresh,
      reports: [],
      reasons: {},
      kind: "bottle",
      subject,
      bottleId: row.bottle_id,
      // Out of the ocean: taken out by moderation, or sunk by its writer.
      hidden: row.hidden !== 0,
    }));
    const report = { id: row.id, reason: row.reason, text: row.message, createdAt: row.created_at };
    reporters.add(add(group, report, row.user_id ?? `report ${row.id}`, row.is_safe === 1));
  }
  for (const row of chatRows) {
    const subject = `visitor:${row.reported_visitor_id}` as const;
    const { group, reporters } = entry(subject, () => ({
      ...fresh,
      reports: [],
      reasons: {},
      kind: "visitor",
      subject,
      visitorId: row.reported_visitor_id,
      ipKey: row.reported_ip_key,
      bannedUntil: null,
    }));
    const report = {
      id: row.id,
      reason: row.reason,
      text: row.message_content,
      createdAt: row.created_at,
    };
    reporters.add(add(group, report, row.reporter_visitor_id, row.is_safe === 1));
  }
  for (const { group } of groups.values()) {
    if (bans && group.kind === "visitor") {
      group.bannedUntil = await bans.until(group.visitorId, group.ipKey);
    }
  }
  return [...groups.values()]
    .map(({ group, reporters }) => ({ ...group, reporters: reporters.size }))
    .sort((a, b) => Number(b.childSafety) - Number(a.childSafety) || b.latestAt - a.latestAt);
}

/** What an operator's action was about, as the queue names it. */
export function parseSubject(
  subject: string,
): { kind: "bottle"; bottleId: number } | { kind: "visitor"; visitorId: string } {
  const bottle = /^bottle:([1-9]\d{0,15})$/.exec(subject);
  if (bottle?.[1]) return { kind: "bottle", bottleId: Number(bottle[1]) };
  const visitor = /^visitor:([A-Za-z0-9_-]{10,64})$/.exec(subject);
  if (visitor?.[1]) return { kind: "visitor", visitorId: visitor[1] };
  throw new DomainError("INVALID_INPUT", `not a queue subject: ${subject}`);
}

/** The bottle a subject names, or INVALID_INPUT. */
export function bottleOf(subject: string): number {
  const parsed = parseSubject(subject);
  if (parsed.kind !== "bottle") throw new DomainError("INVALID_INPUT", "not a bottle");
  return parsed.bottleId;
}

/** The chat visitor a subject names, or INVALID_INPUT. */
export function visitorOf(subject: string): string {
  const parsed = parseSubject(subject);
  if (parsed.kind !== "visitor") throw new DomainError("INVALID_INPUT", "not a chat visitor");
  return parsed.visitorId;
}

/**
 * An operator confirms a reported chat visitor's ban from the queue: from the address of their
 * latest report and the others seen with them, for as long as their escalation calls for (see
 * confirmBan: a ban the same reports already escalated is extended to their addresses, not
 * escalated again); closes their reports. Everything is written through `trx`, the transaction
 * that records the action; once it commits, the caller has the running site hold `bans` and
 * end the chats they cover.
 */
export async function banQueuedVisitor(
  trx: DB,
  chat: { bans: ChatBans },
  visitorId: string,
  now: number,
): Promise<{ keys: string[]; until: number; bans: KeyBan[] }> {
  const open = await trx
    .selectFrom("chat_reports")
    .select(["reported_ip_key", "created_at"])
    .where("reported_visitor_id", "=", visitorId)
    .where("handled_at", "is", null)
    .orderBy("created_at", "asc")
    .execute();
  const latest =
    open.at(-1) ??
    (await trx
      .selectFrom("chat_reports")
      .select(["reported_ip_key", "created_at"])
      .where("reported_visitor_id", "=", visitorId)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst());
  if (!latest) throw new DomainError("NOT_FOUND", "no reports of this visitor");
  const openSince = open[0]?.created_at ?? now;
  // The running site's bans as they are, except that what confirmBan decides is written through
  // this transaction: held by the site only once the record of it commits.
  const inTransaction: ChatBans = {
    until: (id, ipKey) => chat.bans.until(id, ipKey),
    claim: async () => false,
    put: (bans, at) => storeKeyBans(trx, bans, at),
    refresh: async () => [],
    lift: async () => {},
  };
  const banned = await confirmBan(
    trx,
    inTransaction,
    { visitorId, ipKey: latest.reported_ip_key },
    openSince,
    now,
  );
  await trx
    .updateTable("chat_reports")
    .set({ handled_at: now })
    .where("reported_visitor_id", "=", visitorId)
    .where("handled_at", "is", null)
    .execute();
  return { keys: banned.bans.map((ban) => ban.key), until: banned.until, bans: banned.bans };
}

/**
 * Closes a subject's open reports as dismissed: the operator found nothing wrong. Run it in the
 * transaction that records the action.
 */
export async function dismissReports(db: DB, subject: string, now: number): Promise<number> {
  const parsed = parseSubject(subject);
  const result =
    parsed.kind === "bottle"
      ? await db
          .updateTable("bottle_reports")
          .set({ handled_at: now, dismissed: 1 })
          .where("bottle_id", "=", parsed.bottleId)
          .where("handled_at", "is", null)
          .executeTakeFirst()
      : await db
          .updateTable("chat_reports")
          .set({ handled_at: now, dismissed: 1 })
          .where("reported_visitor_id", "=", parsed.visitorId)
          .where("handled_at", "is", null)
          .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Makes an existing account an operator, or takes that away; false when there is no such
 * account. Marks rights changed, so the running site's open sockets read the flag again at
 * once. Run it in the transaction that records the action.
 */
export async function setOperator(
  db: DB,
  username: string,
  operator: boolean,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ is_operator: operator ? 1 : 0 })
    .where("username_key", "=", username.trim().toLowerCase())
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await markRightsChanged(db, now);
  return true;
}
