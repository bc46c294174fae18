import type { Transaction } from "kysely";
import { z } from "zod";
import type { Database, DB } from "../../../db/schema.ts";

export { COMMAND_LINE } from "../../common/moderation.ts";

/**
 * What each kind of action records besides who, what and when: facts, never sentences, so the
 * moderation page can word them in the operator's language and `tidings audit` can print them.
 */
export const actionDetails = {
  /** A bottle taken out of the ocean, and how many of its open reports that closed. */
  hide: z.object({ closed: z.number().int().min(0) }),
  unhide: z.object({}),
  /** A chat ban: the keys banned, and until when the visitor's own ban lasts. */
  ban: z.object({ keys: z.array(z.string().max(80)).max(1000), until: z.number().int() }),
  /** The keys whose bans were lifted (none when there was no ban in force). */
  unban: z.object({ lifted: z.array(z.string().max(80)).max(1000) }),
  /** Open reports closed as "nothing wrong". */
  dismiss: z.object({ closed: z.number().int().min(0) }),
  "switch on": z.object({}),
  "switch off": z.object({}),
  "operator add": z.object({}),
  "operator remove": z.object({}),
} as const;

export type ActionName = keyof typeof actionDetails;
export const actionNames = Object.keys(actionDetails) as ActionName[];

/** One action as recorded: its name and its facts, checked against that action's schema. */
export type AuditEntry = {
  [A in ActionName]: { action: A; details: z.infer<(typeof actionDetails)[A]> };
}[ActionName];

/** A recorded action as the page and the command read it. */
export interface RecordedAction {
  id: number;
  /** An operator's username, or COMMAND_LINE. */
  operator: string;
  action: string;
  subject: string;
  /** The action's facts; null for a row no schema here describes (kept, not misread). */
  details: AuditEntry["details"] | null;
  created_at: number;
}

/** Writes the record of an action; run it in the action's own transaction. */
export async function recordAction(
  trx: DB | Transaction<Database>,
  actor: string,
  subject: string,
  entry: AuditEntry,
  now: number,
): Promise<void> {
  const details = actionDetails[entry.action].parse(entry.details);
  await trx
    .insertInto("moderation_actions")
    .values({
      operator: actor,
      action: entry.action,
      subject,
      details: JSON.stringify(details),
      created_at: now,
    })
    .execute();
}

/**
 * Runs a moderation action and records it in one transaction: the action and its record exist
 * together or not at all. `work` does the action through the transaction it is handed and
 * answers what it did; a refusal thrown there leaves neither.
 */
export async function audited<E extends AuditEntry>(
  db: DB,
  actor: string,
  subject: string,
  now: number,
  work: (trx: Transaction<Database>) => Promise<E>,
): Promise<E> {
  return db.transaction().execute(async (trx) => {
    const entry = await work(trx);
    await recordAction(trx, actor, subject, entry, now);
    return entry;
  });
}

function detailsOf(action: string, json: string): AuditEntry["details"] | null {
  const schema = (actionDetails as Record<string, z.ZodType<AuditEntry["details"]>>)[action];
  if (!schema) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The latest actions, newest first, or those since a time, oldest first. */
export async function listActions(
  db: DB,
  options: { limit?: number; since?: number } = {},
): Promise<RecordedAction[]> {
  let query = db.selectFrom("moderation_actions").selectAll();
  if (options.since !== undefined) {
    query = query
      .where("created_at", ">=", options.since)
      .orderBy("created_at", "asc")
      .orderBy("id", "asc");
  } else {
    query = query.orderBy("created_at", "desc").orderBy("id", "desc");
  }
  const rows = await query.limit(options.limit ?? 50).execute();
  return rows.map(({ details, ...row }) => ({ ...row, details: detailsOf(row.action, details) }));
}

/** An action's facts as `key=value` words for the command line. */
export function detailsText(details: RecordedAction["details"]): string {
  if (!details) return "";
  return Object.entries(details)
    .map(([key, value]) => {
      if (key === "until" && typeof value === "number") {
        return `until=${new Date(value).toISOString()}`;
      }
      if (Array.isArray(value)) return `${key}=${value.length > 0 ? value.join(",") : "none"}`;
      return `${key}=${String(value)}`;
    })
    .join(" ");
}
