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
export const isAgeGate = (name: string | undefined): name is AgeGate =>
  name !== undefined && Object.hasOwn(AGE_GATES, name);
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
/** Another instance changed this answer: read it again (a new object each time, see below). */
type Forgotten = { forgotten: true };

/** What this process keeps of the answers of one database, and how it tells the others. */
interface AnswerMemory {
  answers: ExpiringMap<string, StoredAnswer | Forgotten>;
  tellOthers?: TellOthers;
}

/**
 * Tells the other instances of an answer written here, and when the refusal it stands as ends
 * (null when it does not stand as one).
 */
type TellOthers = (visitorId: string, gate: AgeGate, refusedUntil: number | null) => void;

/**
 * The answers this process has read or written, by the database they mirror, so a start or a
 * throw needs no read. Kept only where every answer written elsewhere is heard of: one process
 * on SQLite (it holds the serving lock and writes them all), or instances that tell each other
 * of each answer (see rememberAgeAnswers). Bounded, and let go of after minutes unused.
 */
const rememberedAnswers = new WeakMap<DB, AnswerMemory>();

/**
 * Keeps the database's age answers in memory too. With several instances, `tellOthers` must
 * reach every other one, whose `forget` (answered here) then drops what it kept, and they all
 * forget everything when they may have missed some news (`forget()` with no visitor).
 */
export function rememberAgeAnswers(
  db: DB,
  now: () => number,
  tellOthers?: TellOthers,
): (visitorId?: string, gate?: AgeGate) => void {
  const memory: AnswerMemory = { answers: new ExpiringMap(10 * 60 * 1000, now, 100_000) };
  if (tellOthers) memory.tellOthers = tellOthers;
  rememberedAnswers.set(db, memory);
  return (visitorId, gate) => {
    if (visitorId === undefined || gate === undefined) memory.answers.clear();
    // Not deleted: a read begun before the news must not keep what it read (see ageStanding).
    else memory.answers.set(`${gate} ${visitorId}`, { forgotten: true });
  };
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
  options: { fresh?: boolean } = {},
): Promise<AgeStanding> {
  const memory = rememberedAnswers.get(db)?.answers;
  const key = `${gate} ${visitorId}`;
  const known = memory?.get(key);
  let row: StoredAnswer;
  if (options.fresh || known === undefined || (known !== null && "forgotten" in known)) {
    row = await readAnswer(db, visitorId, gate);
    // Kept unless news came meanwhile (an answer here, or another instance's).
    if (memory && memory.get(key) === known) memory.set(key, row);
  } else {
    row = known;
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
  const memory = rememberedAnswers.get(db);
  const row = memory ? await readAnswer(db, visitorId, gate) : null;
  if (memory) memory.answers.set(`${gate} ${visitorId}`, row);
  const standing = await ageStanding(db, visitorId, gate, now);
  const refusedUntil = standing === "refused" && row ? row.answered_at + REFUSAL_HOLDS_MS : null;
  memory?.tellOthers?.(visitorId, gate, refusedUntil);
  return standing;
}

/** Refuses a visitor who declared being too young; with `required`, also one who has not answered. */
export async function requireAge(
  db: DB,
  visitorId: string,
  gate: AgeGate,
  now: number,
  required: boolean,
): Promise<void> {
  let standing = await ageStanding(db, visitorId, gate, now);
  // The answer may have been given on another instance a moment ago, before its news reached
  // this one: nobody is refused for want of an answer on what this instance remembers.
  if (standing === "unanswered" && required) {
    standing = await ageStanding(db, visitorId, gate, now, { fresh: true });
  }
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
