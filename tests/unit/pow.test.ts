import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PowAction } from "../../src/common/pow.ts";
import { DomainError } from "../../src/core/errors.ts";
import {
  CHALLENGE_TTL_MS,
  CHAT_PASS,
  PRESSURE,
  ProofOfWork,
  SIGN_IN_FAILURES,
} from "../../src/core/pow/proof-of-work.ts";
import {
  MemoryPassStore,
  type SolutionStore,
  SqlSolutionStore,
} from "../../src/core/pow/stores.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";
import { solvePow } from "../helpers/pow.ts";

const visitor = { visitorId: "visitor-a", ipKey: "ip-a" };
const other = { visitorId: "visitor-b", ipKey: "ip-b" };

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.dispose());

function powWith(solutions: SolutionStore, options: { cost?: number; enabled?: boolean } = {}) {
  const clock = new VirtualClock(Date.now());
  const pow = new ProofOfWork({
    enabled: options.enabled ?? true,
    cost: options.cost ?? 2,
    secret: "a-secret-of-at-least-32-characters-000",
    solutions,
    passes: new MemoryPassStore(clock.now, CHAT_PASS.ttlMs),
    now: clock.now,
  });
  return { pow, clock };
}

const sqlPow = (options?: { cost?: number; enabled?: boolean }) =>
  powWith(new SqlSolutionStore(database.db), options);

async function solved(pow: ProofOfWork, action: PowAction, who = visitor): Promise<string> {
  const challenge = await pow.challenge(action, who);
  if (!challenge) throw new Error("no challenge");
  return solvePow(challenge);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  return "accepted";
}

describe("proof of work (core)", () => {
  test("a solved challenge is accepted once; a replay is refused", async () => {
    const { pow } = sqlPow();
    const solution = await solved(pow, "throw");
    expect(await codeOf(pow.admit("throw", solution, visitor))).toBe("accepted");
    expect(await codeOf(pow.admit("throw", solution, visitor))).toBe("POW_INVALID");
  });

  test("no solution: POW_REQUIRED; a malformed or unsolved one: POW_INVALID", async () => {
    const { pow } = sqlPow();
    expect(await codeOf(pow.admit("throw", undefined, visitor))).toBe("POW_REQUIRED");
    expect(await codeOf(pow.admit("throw", "", visitor))).toBe("POW_REQUIRED");
    expect(await codeOf(pow.admit("throw", "{not json", visitor))).toBe("POW_INVALID");
    expect(await codeOf(pow.admit("throw", { an: "object" }, visitor))).toBe("POW_INVALID");
    const challenge = await pow.challenge("throw", visitor);
    const wrong = JSON.stringify({
      challenge,
      solution: { counter: 0, derivedKey: "00".repeat(32) },
    });
    expect(await codeOf(pow.admit("throw", wrong, visitor))).toBe("POW_INVALID");
  });

  test("a challenge with its data changed fails its signature", async () => {
    const { pow } = sqlPow();
    const payload = JSON.parse(await solved(pow, "throw"));
    payload.challenge.parameters.data.times = PRESSURE.max;
    expect(await codeOf(pow.admit("throw", JSON.stringify(payload), visitor))).toBe("POW_INVALID");
    const forOther = JSON.parse(await solved(pow, "throw"));
    forOther.challenge.parameters.data.action = "chat";
    expect(await codeOf(pow.admit("chat", JSON.stringify(forOther), visitor))).toBe("POW_INVALID");
  });

  test("bound to its action and its visitor", async () => {
    const { pow } = sqlPow();
    const forThrow = await solved(pow, "throw");
    expect(await codeOf(pow.admit("chat", forThrow, visitor))).toBe("POW_INVALID");
    expect(await codeOf(pow.admit("signUp", forThrow, visitor))).toBe("POW_INVALID");
    expect(await codeOf(pow.admit("throw", forThrow, other))).toBe("POW_INVALID");
    // Refused above without being used up: its own visitor and action still get it through.
    expect(await codeOf(pow.admit("throw", forThrow, visitor))).toBe("accepted");
  });

  test("expires", async () => {
    const { pow, clock } = sqlPow();
    const solution = await solved(pow, "contact");
    clock.advance(CHALLENGE_TTL_MS + 1);
    expect(await codeOf(pow.admit("contact", solution, visitor))).toBe("POW_INVALID");
  });

  test("the same solution sent 20 times at once is accepted exactly once (SQL)", async () => {
    const { pow } = sqlPow();
    const solution = await solved(pow, "throw");
    const codes = await Promise.all(
      Array.from({ length: 20 }, () => codeOf(pow.admit("throw", solution, visitor))),
    );
    expect(codes.filter((code) => code === "accepted")).toHaveLength(1);
    expect(codes.filter((code) => code === "POW_INVALID")).toHaveLength(19);
  });

  test("expired solutions are purged from the table", async () => {
    const { pow, clock } = sqlPow();
    const solution = await solved(pow, "throw");
    const id = JSON.parse(solution).challenge.parameters.nonce;
    await pow.admit("throw", solution, visitor);
    const row = () =>
      database.db
        .selectFrom("pow_solutions")
        .select("challenge_id")
        .where("challenge_id", "=", id)
        .executeTakeFirst();
    expect(await row()).toBeDefined();
    clock.advance(CHALLENGE_TTL_MS + 1);
    await pow.purge();
    expect(await row()).toBeUndefined();
  });

  test("a chat start solved for grants a pass: the next starts need none, up to its count", async () => {
    const { pow, clock } = sqlPow();
    expect(await codeOf(pow.admit("chat", undefined, visitor))).toBe("POW_REQUIRED");
    expect(await codeOf(pow.admit("chat", await solved(pow, "chat"), visitor))).toBe("accepted");
    for (let i = 1; i < CHAT_PASS.starts; i++) {
      expect(await codeOf(pow.admit("chat", undefined, visitor))).toBe("accepted");
    }
    expect(await codeOf(pow.admit("chat", undefined, visitor))).toBe("POW_REQUIRED");
    // The pass is the visitor's and the address's: another visitor, or another address, has none.
    expect(await codeOf(pow.admit("chat", await solved(pow, "chat"), visitor))).toBe("accepted");
    expect(await codeOf(pow.admit("chat", undefined, other))).toBe("POW_REQUIRED");
    const moved = { ...visitor, ipKey: "ip-elsewhere" };
    expect(await codeOf(pow.admit("chat", undefined, moved))).toBe("POW_REQUIRED");
    // And it runs out with time.
    clock.advance(CHAT_PASS.ttlMs + 1);
    expect(await codeOf(pow.admit("chat", undefined, visitor))).toBe("POW_REQUIRED");
  });

  test("refused by limits, a visitor's challenges cost 8 times more, then decay", async () => {
    const { pow, clock } = sqlPow();
    const cheap = await solved(pow, "throw");
    expect(pow.multiplier(visitor)).toBe(1);
    pow.refused(visitor);
    expect(pow.multiplier(visitor)).toBe(PRESSURE.factor);
    // The same address with another cookie pays too.
    expect(pow.multiplier({ visitorId: "fresh-cookie", ipKey: visitor.ipKey })).toBe(8);
    expect(pow.multiplier(other)).toBe(1);
    const challenge = await pow.challenge("throw", visitor);
    expect(challenge?.parameters.data?.times).toBe(PRESSURE.factor);
    // One solved at the old cost is refused now (the web solves a new one).
    expect(await codeOf(pow.admit("throw", cheap, visitor))).toBe("POW_INVALID");
    pow.refused(visitor);
    expect(pow.multiplier(visitor)).toBe(PRESSURE.max);
    clock.advance(PRESSURE.halfLifeMs * 7);
    expect(pow.multiplier(visitor)).toBe(1);
  });

  test("signing in needs proof of work only after wrong passwords", async () => {
    const { pow } = sqlPow();
    expect(await pow.challenge("signIn", visitor)).toBeNull();
    expect(await codeOf(pow.admit("signIn", undefined, visitor))).toBe("accepted");
    for (let i = 0; i < SIGN_IN_FAILURES.free; i++) pow.signInFailed(visitor);
    expect(await codeOf(pow.admit("signIn", undefined, visitor))).toBe("POW_REQUIRED");
    expect(await codeOf(pow.admit("signIn", await solved(pow, "signIn"), visitor))).toBe(
      "accepted",
    );
  });

  test("switched off, nothing is issued or asked for", async () => {
    const { pow } = sqlPow({ enabled: false });
    expect(await pow.challenge("throw", visitor)).toBeNull();
    expect(await codeOf(pow.admit("throw", undefined, visitor))).toBe("accepted");
  });
});
