import { describe, expect, test } from "bun:test";
import { TRPCError } from "@trpc/server";
import { DomainError } from "../../src/core/errors.ts";
import { createErrorLog } from "../../src/server/error-log.ts";
import { VirtualClock } from "../helpers/clock.ts";

function log(maxKinds?: number) {
  const lines: string[] = [];
  const errors = createErrorLog({ write: (line) => lines.push(line), maxKinds });
  return { errors, lines };
}

describe("the error log", () => {
  test("a fault repeated 1,000 times is one line with its stack, then one line with the count", () => {
    const { errors, lines } = log();
    for (let i = 0; i < 1000; i++) errors.fault("request", new Error("disk full"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("request: Error: disk full");
    expect(lines[0]).toContain("at ");
    errors.flush();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("repeated 999 more times");
    // A new minute logs it again.
    errors.fault("request", new Error("disk full"));
    expect(lines).toHaveLength(3);
    errors.close();
  });

  test("each minute ends by itself: the count is written and the fault may be logged again", () => {
    const clock = new VirtualClock(0);
    const lines: string[] = [];
    const errors = createErrorLog({ write: (line) => lines.push(line), scheduler: clock });
    for (let i = 0; i < 3; i++) errors.fault("request", new Error("disk full"));
    clock.advance(59_999);
    expect(lines).toHaveLength(1);
    clock.advance(1);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("repeated 2 more times");
    errors.fault("request", new Error("disk full"));
    expect(lines).toHaveLength(3);
    // A quiet minute writes nothing; closing stops the timer.
    clock.advance(60_000);
    expect(lines).toHaveLength(3);
    errors.close();
    expect(clock.pending).toBe(0);
  });

  test("distinct faults past the bound share one line; long messages are cut", () => {
    const { errors, lines } = log(3);
    for (let i = 0; i < 100; i++) errors.fault("request", new Error(`${i} ${"x".repeat(1000)}`));
    expect(lines).toHaveLength(4);
    expect(lines[3]).toStartWith("other server errors");
    expect(lines.every((line) => (line.split("\n")[0] ?? "").length < 400)).toBe(true);
    errors.close();
  });

  test("only internal tRPC errors that are no domain error are faults", () => {
    const { errors, lines } = log();
    errors.trpc(new TRPCError({ code: "BAD_REQUEST" }));
    errors.trpc(new TRPCError({ code: "PARSE_ERROR" }));
    errors.trpc(new TRPCError({ code: "NOT_FOUND" }));
    errors.trpc(
      new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new DomainError("CHAT_BANNED", "x") }),
    );
    expect(lines).toHaveLength(0);
    errors.trpc(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new TypeError("boom") }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("TypeError: boom");
    errors.close();
  });

  test("a call refused because Redis is out of reach is no fault: the outage is told elsewhere", () => {
    const { errors, lines } = log();
    const retries = new Error("Reached the max retries per request limit (which is 1).");
    retries.name = "MaxRetriesPerRequestError";
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), {
      code: "ECONNREFUSED",
    });
    for (let i = 0; i < 50; i++) {
      errors.trpc(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: retries }));
      errors.trpc(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: refused }));
    }
    // Nor is background work it refuses.
    errors.fault(
      "catching up after Redis came back",
      new Error("Cluster isn't ready and enableOfflineQueue options is false"),
    );
    errors.fault("heartbeat", retries);
    expect(lines).toEqual([]);
    errors.close();
  });
});
