import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { solvedFor } from "../helpers/pow.ts";
import {
  bottleInput,
  bottleWriter,
  failure,
  rows,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";

// Tried as an attacker would: one solved challenge, sent with 100 throws at once.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ POW: "true", POW_COST: "1" });
});
afterAll(() => server.close());

describe("one solution, many throws", () => {
  test("100 throws sent at once with one solution: exactly one bottle", async () => {
    const script = await bottleWriter(server.url);
    const solution = await solvedFor(script, "throw");
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        script.bottles.throw
          .mutate({ ...bottleInput(`Spam bottle ${n} of many`), pow: solution })
          .then(
            () => "accepted",
            async (error) => (await failure(Promise.reject(error))).data.appCode,
          ),
      ),
    );
    expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "POW_INVALID")).toHaveLength(99);
    const [{ n } = { n: 0 }] = await rows<{ n: number }>(
      server,
      sql`select count(*) as n from bottles`,
    );
    expect(Number(n)).toBe(1);
  });

  test("limits refusing a script make its next challenges cost 8 times more", async () => {
    const script = await bottleWriter(server.url);
    const before = await script.pow.challenge.mutate({ action: "throw" });
    expect(before.challenge?.parameters.data?.times).toBe(1);
    // Throw until a limit refuses (each throw with its own solution).
    let refused = false;
    for (let i = 0; i < 40 && !refused; i++) {
      const pow = await solvedFor(script, "throw");
      try {
        await script.bottles.throw.mutate({ ...bottleInput(`Throw ${i} ${"x".repeat(i)}`), pow });
      } catch (error) {
        const code = (await failure(Promise.reject(error))).data.appCode;
        if (code !== "RATE_LIMITED" && code !== "SPAM_REPEATED") throw error;
        refused = code === "RATE_LIMITED";
      }
    }
    expect(refused).toBe(true);
    const after = await script.pow.challenge.mutate({ action: "throw" });
    expect(after.challenge?.parameters.data?.times).toBe(8);
  });
});
