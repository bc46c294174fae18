import type { DB } from "../../../db/schema.ts";
import type { ContactInput } from "../../common/contact.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import type { VisitorKeys } from "../requester.ts";

/** Enough for a visitor to correct and resend, too few to fill the operator's inbox. */
export const CONTACT_RATE: RateRule = { limit: 5, windowMs: 60 * 60 * 1000 };

/** Who writes to the operator, and in which of the site's languages. */
export interface Sender extends VisitorKeys {
  locale: string;
}

/** Stores a contact message for the operator; input is already validated at the edge. */
export async function sendContactMessage(
  db: DB,
  limiter: RateLimiter,
  sender: Sender,
  input: ContactInput,
  now: number,
): Promise<{ id: number }> {
  await limiter.take(visitorSlots("contact", sender, CONTACT_RATE));
  const row = await db
    .insertInto("contact_messages")
    // Named one by one: the call's input may carry more (its proof of work).
    .values({
      name: input.name,
      email: input.email,
      message: input.message,
      locale: sender.locale,
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id };
}

export async function listContactMessages(db: DB, limit = 100) {
  return db
    .selectFrom("contact_messages")
    .selectAll()
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
}
