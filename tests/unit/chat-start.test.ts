import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { UNKNOWN_COUNTRY } from "../../src/common/country.ts";
import { Sightings, StoredChatBans } from "../../src/core/chat/bans.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { answerChatAge, START_RATES, startChat, widenSearch } from "../../src/core/chat/start.ts";
import { DomainError } from "../../src/core/errors.ts";
import {
  MemoryRateLimiter,
  type RateLimiter,
  type Slot,
} from "../../src/core/limits/rate-limiter.ts";
import type { Requester } from "../../src/core/requester.ts";
import { rememberAgeAnswers } from "../../src/core/safety/ages.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

const NOW = Date.UTC(2026, 0, 15, 12);

function visitor(n: number): Requester {
  return { visitorId: `v${n}`, ipKey: `ip-${n}`, userId: null, country: () => UNKNOWN_COUNTRY };
}

/**
 * A limiter that, once held, keeps the next `take` waiting until the test lets it go; `reached`
 * settles when a take is waiting.
 */
class HeldLimiter implements RateLimiter {
  readonly #limiter: MemoryRateLimiter;
  #holding: Promise<void> | undefined;
  #release: (() => void) | undefined;
  #arrived: (() => void) | undefined;
  reached: Promise<void> = Promise.resolve();
  constructor(clock: VirtualClock) {
    this.#limiter = new MemoryRateLimiter(clock);
  }
  hold(): void {
    this.#holding = new Promise((resolve) => {
      this.#release = resolve;
    });
    this.reached = new Promise((resolve) => {
      this.#arrived = resolve;
    });
  }
  release(): void {
    this.#release?.();
    this.#holding = undefined;
  }
  async take(slots: readonly Slot[]) {
    const holding = this.#holding;
    if (holding) {
      this.#arrived?.();
      await holding;
    }
    return this.#limiter.take(slots);
  }
  prune(): void {
    this.#limiter.prune();
  }
}

// Whether answers are read from the database each time or kept in memory (one process).
for (const remembering of [false, true]) {
  describe(`a start while "under 18" is answered${remembering ? ", answers kept in memory" : ""}`, () => {
    let database: Awaited<ReturnType<typeof openTestDatabase>>;
    let broker: InMemoryChatBroker;
    let deps: Parameters<typeof startChat>[1];
    let limiter: HeldLimiter;

    beforeEach(async () => {
      database = await openTestDatabase();
      const clock = new VirtualClock(NOW);
      if (remembering) rememberAgeAnswers(database.db, () => clock.now());
      broker = new InMemoryChatBroker({ time: clock });
      limiter = new HeldLimiter(clock);
      deps = {
        broker,
        bans: await StoredChatBans.load(database.db, () => clock.now()),
        limiter,
        sightings: new Sightings(database.db, { scheduler: clock }),
      };
      for (const n of [1, 2]) await answerChatAge(database.db, broker, `v${n}`, true, NOW);
    });
    afterEach(async () => {
      await broker.close();
      database.dispose();
    });

    test("'under 18' ends the chat in progress; '18 or older' again leaves it be", async () => {
      for (const n of [1, 2]) broker.listen(`v${n}`, undefined, () => {});
      await startChat(database.db, deps, visitor(1), undefined, NOW);
      expect((await startChat(database.db, deps, visitor(2), undefined, NOW)).state).toBe(
        "chatting",
      );
      await answerChatAge(database.db, broker, "v2", true, NOW + 1);
      expect((await broker.status("v1")).state).toBe("chatting");
      expect(await answerChatAge(database.db, broker, "v1", false, NOW + 2)).toBe("refused");
      expect((await broker.status("v1")).state).toBe("idle");
      expect((await broker.status("v2")).state).not.toBe("chatting");
    });

    test("the start that passed the gate before the answer is ended once it joins", async () => {
      limiter.hold();
      // The start has passed the age gate and waits on the limits when the answer comes.
      const starting = startChat(database.db, deps, visitor(1), undefined, NOW);
      await limiter.reached;
      expect(await answerChatAge(database.db, broker, "v1", false, NOW + 1)).toBe("refused");
      limiter.release();
      const refused = await starting.then(
        () => "joined",
        (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
      );
      expect(refused).toBe("AGE_REFUSED");
      expect((await broker.status("v1")).state).toBe("idle");
      // Nobody is paired with them: the next visitor waits.
      const next = await startChat(database.db, deps, visitor(2), undefined, NOW + 2);
      expect(next.state).toBe("waiting");
    });
  });
}

describe("what a start must pass", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let broker: InMemoryChatBroker;
  let clock: VirtualClock;
  let deps: Parameters<typeof startChat>[1];
  let bans: StoredChatBans;

  beforeEach(async () => {
    database = await openTestDatabase();
    clock = new VirtualClock(NOW);
    broker = new InMemoryChatBroker({ time: clock });
    bans = await StoredChatBans.load(database.db, () => clock.now());
    deps = {
      broker,
      bans,
      limiter: new MemoryRateLimiter(clock),
      sightings: new Sightings(database.db, { scheduler: clock }),
    };
  });
  afterEach(async () => {
    await broker.close();
    database.dispose();
  });

  async function outcome(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
      return "passed";
    } catch (error) {
      if (error instanceof DomainError)
        return `${error.code}${error.retryAfterSeconds ? ` ${error.retryAfterSeconds}` : ""}`;
      throw error;
    }
  }

  test("a banned visitor is refused with the seconds left, before anything else", async () => {
    await bans.put([{ key: "ip:ip-1", until: NOW + 90_500 }], NOW);
    // Not even asked for an age: the ban answers first.
    expect(await outcome(startChat(database.db, deps, visitor(1), undefined, NOW))).toBe(
      "CHAT_BANNED 91",
    );
    expect(await broker.status("v1")).toEqual({ state: "idle" });
  });

  test("nobody starts without having said they are 18 or older", async () => {
    expect(await outcome(startChat(database.db, deps, visitor(1), undefined, NOW))).toBe(
      "AGE_CONFIRMATION_REQUIRED",
    );
    await answerChatAge(database.db, broker, "v1", true, NOW);
    expect(await outcome(startChat(database.db, deps, visitor(1), undefined, NOW))).toBe("passed");
    expect((await broker.status("v1")).state).toBe("waiting");
  });

  test(`${START_RATES.perVisitor.limit} starts a minute for a visitor, ${START_RATES.perAddress.limit} for an address`, async () => {
    const who = (n: number): Requester => ({ ...visitor(n), ipKey: "shared" });
    for (const n of [1, 2, 3]) await answerChatAge(database.db, broker, `v${n}`, true, NOW);
    for (let i = 0; i < 30; i++) await startChat(database.db, deps, who(1), undefined, NOW);
    expect(await outcome(startChat(database.db, deps, who(1), undefined, NOW))).toMatch(
      /^RATE_LIMITED/,
    );
    for (let i = 0; i < 30; i++) await startChat(database.db, deps, who(2), undefined, NOW);
    expect(await outcome(startChat(database.db, deps, who(3), undefined, NOW))).toMatch(
      /^RATE_LIMITED/,
    );
    // Another address is not held up by this one's starts.
    await answerChatAge(database.db, broker, "v4", true, NOW);
    expect(await outcome(startChat(database.db, deps, visitor(4), undefined, NOW))).toBe("passed");
    expect(START_RATES).toEqual({
      perVisitor: { limit: 30, windowMs: 60_000 },
      perAddress: { limit: 60, windowMs: 60_000 },
    });
  });

  test("widening a search is held to the same limits, apart from starting", async () => {
    await answerChatAge(database.db, broker, "v1", true, NOW);
    await startChat(database.db, deps, visitor(1), undefined, NOW);
    for (let i = 0; i < 30; i++) await widenSearch(deps, visitor(1));
    expect(await outcome(widenSearch(deps, visitor(1)))).toMatch(/^RATE_LIMITED/);
    // Another visitor, on another address, still widens.
    expect(await outcome(widenSearch(deps, visitor(2)))).toBe("passed");
    // Starting has its own slots.
    expect(await outcome(startChat(database.db, deps, visitor(1), undefined, NOW))).toBe("passed");
  });

  test("the address a start came from is noted, so a later ban covers it", async () => {
    await answerChatAge(database.db, broker, "v1", true, NOW);
    await startChat(database.db, deps, visitor(1), undefined, NOW);
    await deps.sightings.flush();
    const rows = await database.db.selectFrom("visitor_addresses").selectAll().execute();
    expect(rows).toEqual([{ visitor_id: "v1", ip_key: "ip-1", last_seen_at: NOW }]);
  });

  test("'under 18' ends a search in progress and refuses the next start", async () => {
    await answerChatAge(database.db, broker, "v1", true, NOW);
    await startChat(database.db, deps, visitor(1), undefined, NOW);
    expect(await answerChatAge(database.db, broker, "v1", false, NOW + 1)).toBe("refused");
    expect(await broker.status("v1")).toEqual({ state: "idle" });
    expect(await outcome(startChat(database.db, deps, visitor(1), undefined, NOW + 2))).toBe(
      "AGE_REFUSED",
    );
  });
});
