import { describe, expect, test } from "bun:test";
import { Revocations, RIGHTS_CHECK_MS, SocketRights } from "../../src/core/auth/rights.ts";
import type { ValidSession } from "../../src/core/auth/sessions.ts";

/** A socket's rights over a counted read, on a clock the test moves. */
function socketOf(accountId = "account-a", isOperator = true) {
  let now = 1_000_000;
  const clock = () => now;
  const revocations = new Revocations(clock);
  const valid = (operator: boolean): ValidSession => ({
    session: { id: "s1", userId: accountId, expiresAt: now + 30 * 24 * 3600 * 1000 },
    user: { id: accountId, username: accountId },
    refreshed: false,
    isOperator: operator,
  });
  let stored: ValidSession | null = valid(isOperator);
  let reads = 0;
  const waiting: Array<() => void> = [];
  let hold = false;
  const read = async () => {
    reads += 1;
    if (hold) await new Promise<void>((resolve) => waiting.push(resolve));
    return stored;
  };
  const rights = new SocketRights(revocations, read, clock, {
    valid: stored,
    count: revocations.count,
  });
  return {
    rights,
    revocations,
    reads: () => reads,
    advance: (ms: number) => (now += ms),
    store: (operator: boolean | null) => (stored = operator === null ? null : valid(operator)),
    holdReads: () => (hold = true),
    releaseReads: () => {
      hold = false;
      for (const release of waiting.splice(0)) release();
    },
  };
}

describe("a socket's rights", () => {
  test("calls between readings cost no read", () => {
    const s = socketOf();
    for (let i = 0; i < 1000; i++) expect(s.rights.current()).not.toBeInstanceOf(Promise);
    expect(s.reads()).toBe(0);
  });

  test("a reading stands for RIGHTS_CHECK_MS, then the next call reads again", async () => {
    const s = socketOf();
    s.advance(RIGHTS_CHECK_MS - 1);
    expect(s.rights.current()).not.toBeInstanceOf(Promise);
    s.advance(1);
    s.store(false);
    expect((await s.rights.current())?.isOperator).toBe(false);
    expect(s.reads()).toBe(1);
    expect(s.rights.current()).not.toBeInstanceOf(Promise);
  });

  test("a revocation of its account falls at once; another account's leaves it standing", async () => {
    const s = socketOf("account-a");
    s.revocations.revoke("account-b");
    expect(s.rights.current()).not.toBeInstanceOf(Promise);
    s.store(null);
    s.revocations.revoke("account-a");
    expect(await s.rights.current()).toBeNull();
    // Signed out for good: never read again.
    s.advance(RIGHTS_CHECK_MS * 10);
    s.revocations.forgetAll();
    expect(s.rights.current()).toBeNull();
    expect(s.reads()).toBe(1);
  });

  test("news from another instance and forgetting everything fall as a revocation does", async () => {
    const s = socketOf();
    s.revocations.heard("account-a");
    expect(await s.rights.current()).not.toBeNull();
    s.revocations.forgetAll();
    s.store(false);
    expect((await s.rights.current())?.isOperator).toBe(false);
    expect(s.reads()).toBe(2);
  });

  test("calls together share one read, but not one begun before a revocation", async () => {
    const s = socketOf();
    s.revocations.forgetAll();
    s.holdReads();
    const first = s.rights.current();
    const second = s.rights.current();
    expect(s.reads()).toBe(1);
    // The operator is removed while that read is under way: it may answer as things stood
    // when it began, but a call after the removal reads again.
    s.store(false);
    s.revocations.revoke("account-a");
    const third = s.rights.current();
    expect(s.reads()).toBe(2);
    s.releaseReads();
    await Promise.all([first, second, third]);
    expect((await s.rights.current())?.isOperator).toBe(false);
    expect(s.reads()).toBe(2);
  });

  test("a reading taken before a revocation that lands during it is not kept", async () => {
    const s = socketOf();
    s.revocations.forgetAll();
    s.holdReads();
    const pending = s.rights.current();
    s.revocations.revoke("account-a");
    s.releaseReads();
    await pending;
    s.store(false);
    expect((await s.rights.current())?.isOperator).toBe(false);
  });
});
