import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DB } from "../../db/schema.ts";
import { DomainError } from "../../src/core/errors.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import {
  AGE_ANSWERS,
  ageAnswerSlots,
  ageStanding,
  answerAgeGate,
  CONFIRMATION_KEPT_MS,
  isAgeGate,
  purgeAgeAnswers,
  REFUSAL_HOLDS_MS,
  rememberAgeAnswers,
  requireAge,
} from "../../src/core/safety/ages.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: DB;
afterEach(() => database.dispose());

const NOW = Date.UTC(2026, 0, 15, 12);
const DAY = 24 * 60 * 60 * 1000;

/** The code a refused call failed with, or "passed". */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "passed";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

// The same rules whether the answers are read from the database each time or, where this
// process alone writes them, kept in memory too.
for (const remembering of [false, true]) {
  describe(`the age gates${remembering ? ", answers kept in memory" : ""}`, () => {
    beforeEach(async () => {
      database = await openTestDatabase();
      db = database.db;
      if (remembering) rememberAgeAnswers(db, () => NOW);
    });

    test.if(remembering)(
      "another instance's answer is read again once it is heard of",
      async () => {
        const forget = rememberAgeAnswers(db, () => NOW);
        expect(await answerAgeGate(db, "v1", "chat", true, NOW)).toBe("confirmed");
        // Written by another instance: this one keeps what it knew until it hears of it.
        await db
          .updateTable("visitor_ages")
          .set({ answer: "minor", answered_at: NOW + 1 })
          .where("visitor_id", "=", "v1")
          .execute();
        expect(await ageStanding(db, "v1", "chat", NOW + 2)).toBe("confirmed");
        forget("v1", "chat");
        expect(await ageStanding(db, "v1", "chat", NOW + 2)).toBe("refused");
        // News heard while a read was under way: what that read found is not kept.
        const reading = ageStanding(db, "v1", "bottles", NOW + 2);
        forget("v1", "bottles");
        expect(await reading).toBe("unanswered");
        await db
          .insertInto("visitor_ages")
          .values({ visitor_id: "v1", gate: "bottles", answer: "13", answered_at: NOW + 3 })
          .execute();
        expect(await ageStanding(db, "v1", "bottles", NOW + 4)).toBe("confirmed");
      },
    );

    test.if(remembering)(
      "an answer another instance wrote, not yet heard of here, lets the visitor through",
      async () => {
        expect(await ageStanding(db, "v1", "bottles", NOW)).toBe("unanswered");
        // Answered on another instance, whose news has not arrived: this one remembers nothing.
        await db
          .insertInto("visitor_ages")
          .values({ visitor_id: "v1", gate: "bottles", answer: "13", answered_at: NOW })
          .execute();
        expect(await outcome(requireAge(db, "v1", "bottles", NOW, true))).toBe("passed");
        expect(await ageStanding(db, "v1", "bottles", NOW)).toBe("confirmed");
        expect(await outcome(requireAge(db, "v2", "bottles", NOW, true))).toBe(
          "AGE_CONFIRMATION_REQUIRED",
        );
      },
    );

    test("an answer written while its gate is read is what stands after", async () => {
      const [, first] = await Promise.all([
        ageStanding(db, "v1", "chat", NOW),
        answerAgeGate(db, "v1", "chat", true, NOW),
      ]);
      expect(first).toBe("confirmed");
      expect(await ageStanding(db, "v1", "chat", NOW)).toBe("confirmed");
      await Promise.all([
        ageStanding(db, "v1", "chat", NOW),
        answerAgeGate(db, "v1", "chat", false, NOW + 1),
        ageStanding(db, "v1", "chat", NOW + 1),
      ]);
      expect(await ageStanding(db, "v1", "chat", NOW + 2)).toBe("refused");
      expect(await outcome(requireAge(db, "v1", "chat", NOW + 2, true))).toBe("AGE_REFUSED");
    });

    test("a gate nobody answered is unanswered; each gate is its own", async () => {
      expect(await ageStanding(db, "v1", "chat", NOW)).toBe("unanswered");
      expect(await answerAgeGate(db, "v1", "chat", true, NOW)).toBe("confirmed");
      expect(await ageStanding(db, "v1", "chat", NOW)).toBe("confirmed");
      expect(await ageStanding(db, "v1", "bottles", NOW)).toBe("unanswered");
      expect(await ageStanding(db, "v2", "chat", NOW)).toBe("unanswered");
    });

    test("each answer is stored as its gate's own word", async () => {
      await answerAgeGate(db, "v1", "chat", true, NOW);
      await answerAgeGate(db, "v2", "chat", false, NOW);
      await answerAgeGate(db, "v1", "bottles", true, NOW);
      await answerAgeGate(db, "v2", "bottles", false, NOW);
      const rows = await db
        .selectFrom("visitor_ages")
        .select(["visitor_id", "gate", "answer", "answered_at"])
        .orderBy("gate")
        .orderBy("visitor_id")
        .execute();
      expect(rows).toEqual([
        { visitor_id: "v1", gate: "bottles", answer: "13", answered_at: NOW },
        { visitor_id: "v2", gate: "bottles", answer: "under-13", answered_at: NOW },
        { visitor_id: "v1", gate: "chat", answer: "adult", answered_at: NOW },
        { visitor_id: "v2", gate: "chat", answer: "minor", answered_at: NOW },
      ]);
    });

    test("a refusal holds for 30 days whatever is answered, then is asked again", async () => {
      expect(await answerAgeGate(db, "young", "chat", false, NOW)).toBe("refused");
      expect(await answerAgeGate(db, "young", "chat", true, NOW + DAY)).toBe("refused");
      const holdsUntil = NOW + REFUSAL_HOLDS_MS;
      expect(REFUSAL_HOLDS_MS).toBe(30 * DAY);
      expect(await ageStanding(db, "young", "chat", holdsUntil - 1)).toBe("refused");
      expect(await ageStanding(db, "young", "chat", holdsUntil)).toBe("unanswered");
      // The answer given while it held changed nothing: the refusal's own time still counts.
      const [row] = await db.selectFrom("visitor_ages").select(["answer", "answered_at"]).execute();
      expect(row).toEqual({ answer: "minor", answered_at: NOW });
      expect(await answerAgeGate(db, "young", "chat", true, holdsUntil)).toBe("confirmed");
      expect(await ageStanding(db, "young", "chat", holdsUntil)).toBe("confirmed");
    });

    test("a confirmation can be changed to a refusal, which then holds", async () => {
      await answerAgeGate(db, "v1", "bottles", true, NOW);
      expect(await answerAgeGate(db, "v1", "bottles", false, NOW + 1)).toBe("refused");
      expect(await answerAgeGate(db, "v1", "bottles", true, NOW + 2)).toBe("refused");
    });

    test("requireAge refuses a refusal always, an unanswered gate only when required", async () => {
      expect(await outcome(requireAge(db, "new", "chat", NOW, false))).toBe("passed");
      expect(await outcome(requireAge(db, "new", "chat", NOW, true))).toBe(
        "AGE_CONFIRMATION_REQUIRED",
      );
      await answerAgeGate(db, "adult", "chat", true, NOW);
      expect(await outcome(requireAge(db, "adult", "chat", NOW, true))).toBe("passed");
      await answerAgeGate(db, "minor", "chat", false, NOW);
      expect(await outcome(requireAge(db, "minor", "chat", NOW, false))).toBe("AGE_REFUSED");
      expect(await outcome(requireAge(db, "minor", "chat", NOW, true))).toBe("AGE_REFUSED");
    });

    test("answers are limited per visitor and per address, a minute each", async () => {
      const limiter = new MemoryRateLimiter(new VirtualClock(NOW));
      const who = { visitorId: "v1", ipKey: "school" };
      expect(ageAnswerSlots(who)).toEqual([
        { key: "age:v:v1", rule: { limit: 10, windowMs: 60_000 } },
        { key: "age:ip:school", rule: { limit: 60, windowMs: 60_000 } },
      ]);
      expect(AGE_ANSWERS.perAddress.limit).toBeGreaterThan(AGE_ANSWERS.perVisitor.limit);
      for (let i = 0; i < 10; i++) limiter.takeNow(ageAnswerSlots(who));
      expect(() => limiter.takeNow(ageAnswerSlots(who))).toThrow();
      // A classmate on the same address is not held up by one visitor's answers.
      limiter.takeNow(ageAnswerSlots({ visitorId: "v2", ipKey: "school" }));
    });
  });
}

describe("age answers shared between instances", () => {
  beforeEach(async () => {
    database = await openTestDatabase();
    db = database.db;
  });

  test("every answer is told to the others, a refusal with the end of its hold", async () => {
    const told: [string, string, number | null][] = [];
    rememberAgeAnswers(
      db,
      () => NOW,
      (visitorId, gate, until) => told.push([visitorId, gate, until]),
    );
    await answerAgeGate(db, "young", "chat", false, NOW);
    // Answered again while the refusal holds: the hold still ends 30 days after the first.
    await answerAgeGate(db, "young", "chat", true, NOW + DAY);
    await answerAgeGate(db, "adult", "bottles", true, NOW);
    expect(told).toEqual([
      ["young", "chat", NOW + REFUSAL_HOLDS_MS],
      ["young", "chat", NOW + REFUSAL_HOLDS_MS],
      ["adult", "bottles", null],
    ]);
  });

  test("news that may have been missed forgets every answer kept", async () => {
    const forget = rememberAgeAnswers(db, () => NOW);
    await answerAgeGate(db, "v1", "chat", true, NOW);
    await answerAgeGate(db, "v2", "bottles", true, NOW);
    // Refused on another instance while this one was cut off from the news.
    await db
      .updateTable("visitor_ages")
      .set({ answer: "minor" })
      .where("gate", "=", "chat")
      .execute();
    await db
      .updateTable("visitor_ages")
      .set({ answer: "under-13" })
      .where("gate", "=", "bottles")
      .execute();
    expect(await outcome(requireAge(db, "v1", "chat", NOW, true))).toBe("passed");
    forget();
    expect(await outcome(requireAge(db, "v1", "chat", NOW, true))).toBe("AGE_REFUSED");
    expect(await outcome(requireAge(db, "v2", "bottles", NOW, true))).toBe("AGE_REFUSED");
  });

  test("only the two gates' names are gates, whatever a message names", () => {
    expect(isAgeGate("chat")).toBe(true);
    expect(isAgeGate("bottles")).toBe(true);
    for (const name of [undefined, "", "adult", "toString", "__proto__", "constructor"]) {
      expect(isAgeGate(name)).toBe(false);
    }
  });
});

describe("age answers leave the database once no longer needed", () => {
  beforeEach(async () => {
    database = await openTestDatabase();
    db = database.db;
  });

  test("a refusal after its 30 days, a confirmation after its cookie's 400, at either gate", async () => {
    // [visitor, gate, answer, how long ago it was answered]
    const answers = [
      ["chat-refused-holding", "chat", "minor", REFUSAL_HOLDS_MS - 1],
      ["chat-refused-over", "chat", "minor", REFUSAL_HOLDS_MS],
      ["bottles-refused-holding", "bottles", "under-13", REFUSAL_HOLDS_MS - 1],
      ["bottles-refused-over", "bottles", "under-13", REFUSAL_HOLDS_MS],
      ["chat-confirmed-a-year", "chat", "adult", 365 * DAY],
      ["chat-confirmed-over", "chat", "adult", CONFIRMATION_KEPT_MS],
      ["bottles-confirmed-kept", "bottles", "13", CONFIRMATION_KEPT_MS - 1],
      ["bottles-confirmed-over", "bottles", "13", CONFIRMATION_KEPT_MS],
    ] as const;
    await db
      .insertInto("visitor_ages")
      .values(
        answers.map(([visitor_id, gate, answer, ago]) => ({
          visitor_id,
          gate,
          answer,
          answered_at: NOW - ago,
        })),
      )
      .execute();
    await purgeAgeAnswers(db, NOW);
    const left = await db.selectFrom("visitor_ages").select("visitor_id").execute();
    expect(left.map((row) => row.visitor_id).sort()).toEqual([
      "bottles-confirmed-kept",
      "bottles-refused-holding",
      "chat-confirmed-a-year",
      "chat-refused-holding",
    ]);
    expect(CONFIRMATION_KEPT_MS).toBe(400 * DAY);
  });
});
