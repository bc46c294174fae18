import type { DB } from "../../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { ExpiringMap } from "../limits/expiring-map.ts";
import type { Slot } from "../limits/rate-limiter.ts";
import type { VisitorKeys } from "../requester.ts";

/**
 * The age gates: before the first chat a visitor confirms being 18 or older; before the first
 * bottle, 13 or older (the privacy page's age). A refusing answer holds for 30 days whatever is
 * answered after it, for that visitor (not by address: schools and mobile networks share them).
 */
export const AGE_GATES = {
  chat: { confirmed: "adult", refused: "minor" },
  bottles: { confirmed: "13", refused: "under-13" },
} as const;
export type AgeGate = keyof typeof AGE_GATES;
export type AgeStanding = "unanswered" | "confirmed" | "refused";

export const REFUSAL_HOLDS_MS = 30 * 24 * 60 * 60 * 1000;
/** A confirmation is kept as long as the visitor cookie it belongs to lives (400 days). */
export const CONFIRMATION_KEPT_MS = 400 * 24 * 60 * 60 * 1000;
/** Answers to either gate: a visitor's, and an address's (a school shares one), a minute. */
export const AGE_ANSWERS = {
  perVisitor: { limit: 10, windowMs: 60 * 1000 },
  perAddress: { limit: 60, windowMs: 60 * 1000 },
} as const;

export function ageAnswerSlots(who: VisitorKeys): Slot[] {
  return [
    { key: `age:v:${who.visitorId}`, rule: AGE_ANSWERS.perVisitor },
    { key: `age:ip:${who.ipKey}`, rule: AGE_ANSWERS.perAddress },
  ];
}

/** A visitor's answer at a gate as stored, or null for none. */
type StoredAnswer = { answer: string; answered_at: number } | null;

/**
 * The answers this process has read or written, by the database they mirror: kept only where
 * this process is the one that writes the answers (one instance on SQLite, which holds the
 * serving lock; see rememberAgeAnswers), so what it keeps is what is stored, and a start or a
 * throw needs no read. Bounded, and let go of after minutes unused.
 */
const rememberedAnswers = new WeakMap<DB, ExpiringMap<string, StoredAnswer>>();

/** This process alone writes the database's age answers: keep them in memory too. */
export function rememberAgeAnswers(db: DB, now: () => number): void {
  rememberedAnswers.set(db, new ExpiringMap(10 * 60 * 1000, now, 100_000));
}

function readAnswer(db: DB, visitorId: string, gate: AgeGate): Promise<StoredAnswer> {
  return db
    .selectFrom("visitor_ages")
    .select(["answer", "answered_at"])
    .where("visitor_id", "=", visitorId)
    .where("gate", "=", gate)
    .executeTakeFirst()
    .then((row) => row ?? null);
}

export async function ageStanding(
  db: DB,
  visitorId: string,
  gate: AgeGate,
  now: number,
): Promise<AgeStanding> {
  const memory = rememberedAnswers.get(db);
  const key = `${gate} ${visitorId}`;
  let row = memory?.get(key);
  if (row === undefined) {
    row = await readAnswer(db, visitorId, gate);
    // An answer written meanwhile has put what is stored now: it stays.
    if (memory && memory.get(key) === undefined) memory.set(key, row);
  }
  if (!row) return "unanswered";
  if (row.answer === AGE_GATES[gate].confirmed) return "confirmed";
  // A refusal past its 30 days is asked again.
  return now - row.answered_at < REFUSAL_HOLDS_MS ? "refused" : "unanswered";
}

/**
 * Records an answer and answers where the visitor stands after it. One statement, in which a
 * refusal still holding is never overwritten: answers sent together (a batch of "under 18" and
 * "18 or older") end refused whatever their order, never confirmed.
 */
export async function answerAgeGate(
  db: DB,
  visitorId: string,
  gate: AgeGate,
  oldEnough: boolean,
  now: number,
): Promise<AgeStanding> {
  const { refused } = AGE_GATES[gate];
  const answer = oldEnough ? AGE_GATES[gate].confirmed : refused;
  await db
    .insertInto("visitor_ages")
    .values({ visitor_id: visitorId, gate, answer, answered_at: now })
    .onConflict((oc) =>
      oc
        .columns(["visitor_id", "gate"])
        .doUpdateSet({ answer, answered_at: now })
        .where((eb) =>
          eb.not(
            eb.and([
              eb("visitor_ages.answer", "=", refused),
              eb("visitor_ages.answered_at", ">", now - REFUSAL_HOLDS_MS),
            ]),
          ),
        ),
    )
    .execute();
  rememberedAnswers.get(db)?.set(`${gate} ${visitorId}`, await readAnswer(db, visitorId, gate));
  return ageStanding(db, visitorId, gate, now);
}

/** Refuses a visitor who declared being too young; with `required`, also one who has not answered. */
export async function requireAge(
  db: DB,
  visitorId: string,
  gate: AgeGate,
  now: number,
  required: boolean,
): Promise<void> {
  const standing = await ageStanding(db, visitorId, gate, now);
  if (standing === "refused") throw new DomainError("AGE_REFUSED", `the ${gate} age gate refused`);
  if (standing === "unanswered" && required) {
    throw new DomainError("AGE_CONFIRMATION_REQUIRED", `the ${gate} age gate is unanswered`);
  }
}

/** Refusals past their hold, and confirmations past their cookie's life, are deleted. */
export async function purgeAgeAnswers(db: DB, now: number): Promise<void> {
  const refusals = Object.values(AGE_GATES).map((gate) => gate.refused);
  await db
    .deleteFrom("visitor_ages")
    .where((eb) =>
      eb.or([
        eb.and([eb("answer", "in", refusals), eb("answered_at", "<=", now - REFUSAL_HOLDS_MS)]),
        eb("answered_at", "<=", now - CONFIRMATION_KEPT_MS),
      ]),
    )
    .execute();
}
