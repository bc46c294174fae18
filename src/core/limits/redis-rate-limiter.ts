import { randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { type Clock, systemTime } from "../clock.ts";
import { RateLimitedError } from "../errors.ts";
import { RedisScript } from "../redis-script.ts";
import type { RateLimiter, Reservation, Slot } from "./rate-limiter.ts";

/**
 * Takes every slot or none, in one step for all instances: each key is a sorted set of the
 * times of its actions within the window; the action's token is the member, so a refund takes
 * back exactly its own entries. Answers 0, or the longest wait in ms.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local token = ARGV[3]
local wait = 0
for i = 0, n - 1 do
  local key, limit, window = KEYS[i + 1], tonumber(ARGV[4 + i * 2]), tonumber(ARGV[5 + i * 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + window - now)
  end
end
if wait > 0 then return wait end
for i = 0, n - 1 do
  redis.call('ZADD', KEYS[i + 1], now, token)
  redis.call('PEXPIRE', KEYS[i + 1], tonumber(ARGV[5 + i * 2]))
end
return 0
`;

/** The sliding-window limits on Redis, shared by every instance (see MemoryRateLimiter). */
export class RedisRateLimiter implements RateLimiter {
  readonly #take: RedisScript;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = "tidings:",
    private readonly clock: Clock = systemTime,
  ) {
    this.#take = new RedisScript(redis, TAKE);
  }

  async take(slots: readonly Slot[]): Promise<Reservation> {
    const keys = slots.map((slot) => `${this.prefix}limit:${slot.key}`);
    const token = randomBytes(9).toString("base64url");
    const rules = slots.flatMap(({ rule }) => [rule.limit, rule.windowMs]);
    const wait = Number(
      await this.#take.run(keys, [this.clock.now(), slots.length, token, ...rules]),
    );
    if (wait > 0) throw new RateLimitedError(Math.ceil(wait / 1000));
    let refunded = false;
    return {
      refund: async () => {
        if (refunded) return;
        refunded = true;
        const pipeline = this.redis.pipeline();
        for (const key of keys) pipeline.zrem(key, token);
        await pipeline.exec();
      },
    };
  }

  /** Keys expire with their windows. */
  prune(): void {}
}
