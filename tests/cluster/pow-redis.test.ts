import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { DomainError } from "../../src/core/errors.ts";
import { CHAT_PASS, ProofOfWork } from "../../src/core/pow/proof-of-work.ts";
import { RedisPassStore, RedisSolutionStore } from "../../src/core/pow/stores.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { withoutClusterServers } from "../helpers/cluster-servers.ts";
import { solvePow } from "../helpers/pow.ts";
import { redisConnections } from "../helpers/redis.ts";

// Proof of work's records on Redis, shared by every instance (one server, or a Redis Cluster):
// a solution is accepted once however many instances receive it at once, and the chat pass
// counts its starts in one step. The same rules on SQL are in tests/unit/pow.test.ts.
const connections = redisConnections();
afterAll(() => connections.close());

const visitor = { visitorId: "visitor-a", ipKey: "ip-a" };

async function powOnRedis() {
  const prefix = `test-pow-${randomBytes(6).toString("hex")}:`;
  const clock = new VirtualClock(Date.now());
  const make = (redis: Awaited<ReturnType<typeof connections.open>>["redis"]) =>
    new ProofOfWork({
      enabled: true,
      cost: 2,
      secret: "a-secret-of-at-least-32-characters-000",
      solutions: new RedisSolutionStore(redis, prefix, clock),
      passes: new RedisPassStore(redis, prefix),
      now: clock.now,
    });
  const { redis } = await connections.open();
  const other = await connections.separate();
  return { one: make(redis), two: make(other.redis), redis, prefix };
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

describe.skipIf(withoutClusterServers)(`proof of work on ${connections.label}`, () => {
  test("the same solution sent 20 times at once, to two instances, is accepted exactly once", async () => {
    const { one, two } = await powOnRedis();
    const challenge = await one.challenge("throw", visitor);
    if (!challenge) throw new Error("no challenge");
    const solution = await solvePow(challenge);
    const codes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf((i % 2 ? one : two).admit("throw", solution, visitor)),
      ),
    );
    expect(codes.filter((code) => code === "accepted")).toHaveLength(1);
    expect(codes.filter((code) => code === "POW_INVALID")).toHaveLength(19);
  });

  test("a solution's record expires with its challenge (SET NX with PX)", async () => {
    const { one, redis, prefix } = await powOnRedis();
    const challenge = await one.challenge("contact", visitor);
    if (!challenge) throw new Error("no challenge");
    await one.admit("contact", await solvePow(challenge), visitor);
    const ttl = await redis.pttl(`${prefix}pow:{${challenge.parameters.nonce}}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
  });

  test("the chat pass, shared by instances, lets in exactly its count of starts at once", async () => {
    const { one, two } = await powOnRedis();
    const challenge = await one.challenge("chat", visitor);
    if (!challenge) throw new Error("no challenge");
    await one.admit("chat", await solvePow(challenge), visitor);
    const codes = await Promise.all(
      Array.from({ length: CHAT_PASS.starts + 10 }, (_, i) =>
        codeOf((i % 2 ? one : two).admit("chat", undefined, visitor)),
      ),
    );
    expect(codes.filter((code) => code === "accepted")).toHaveLength(CHAT_PASS.starts - 1);
    expect(codes.filter((code) => code === "POW_REQUIRED")).toHaveLength(11);
  });
});
