import { randomBytes } from "node:crypto";
import { type Clock, systemTime } from "../clock.ts";
import { RateLimitedError } from "../errors.ts";
import { isCluster, type RedisClient, RedisScript } from "../redis-script.ts";
import type { RateLimiter, Reservation, Slot } from "./rate-limiter.ts";

/**
 * A key holds the times of its last `limit` actions, oldest first, as "<time>:<token>" words after
 * their count: "<count>|<word> <word> …". The count and the first word decide whether the key is
 * full (`limit` words, the first still within the window); words past the window need no
 * dropping (a later one pushes them out; the key expires with its window). So a take reads no
 * word but the first, and an address's 60 cost what one does (counting the words in Lua made a
 * take's cost grow with the limit: scripts/bench/NOTES.md).
 */
const WORDS = `
local function words(value)
  if not value then return 0, nil end
  local n, at = string.match(value, '^(%d+)|()')
  if n then return tonumber(n), at end
  -- Written without the count (before an upgrade, within one window).
  local _, spaces = string.gsub(value, ' ', ' ')
  return spaces + 1, 1
end
-- Where the word k words after the one at position at starts (nil past the last).
local function skip(value, at, k)
  for _ = 1, k do
    at = string.find(value, ' ', at, true)
    if not at then return nil end
    at = at + 1
  end
  return at
end
`;

/**
 * KEYS: the slots' keys. ARGV: now, the action's token, then each key's limit and window (ms).
 * Takes a slot on every key or none, in one step (one read and one write a key); a refund takes
 * back exactly its own. Answers 0, or the longest wait in ms.
 */
const TAKE = `${WORDS}
local now, stamp = tonumber(ARGV[1]), ARGV[1] .. ':' .. ARGV[2]
local values = redis.call('MGET', unpack(KEYS))
local wait, counts, starts = 0, {}, {}
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  counts[i], starts[i] = words(values[i])
  if counts[i] >= limit then
    -- The limit-th newest decides (more linger only after the limit was lowered).
    local at = skip(values[i], starts[i], counts[i] - limit)
    local first = tonumber(string.match(values[i], '^%d+', at))
    if first > now - window then wait = math.max(wait, first + window - now) end
  end
end
if wait > 0 then return wait end
for i = 1, #KEYS do
  local limit, n, at = tonumber(ARGV[1 + 2 * i]), counts[i], starts[i]
  -- At the limit, the oldest words make room.
  if n >= limit then at, n = skip(values[i], at, n - limit + 1), limit - 1 end
  local value = '1|' .. stamp
  if n > 0 then value = (n + 1) .. '|' .. string.sub(values[i], at) .. ' ' .. stamp end
  redis.call('SET', KEYS[i], value, 'PX', ARGV[2 + 2 * i])
end
return 0
`;

/** KEYS: the slots' keys. ARGV: the action's token. Takes its entries back. */
const REFUND = `${WORDS}
local suffix = ':' .. ARGV[1]
for _, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value then
    local _, at = words(value)
    local kept = {}
    for word in string.gmatch(string.sub(value, at), '%S+') do
      if string.sub(word, -#suffix) ~= suffix then kept[#kept + 1] = word end
    end
    if #kept == 0 then redis.call('DEL', key)
    else redis.call('SET', key, #kept .. '|' .. table.concat(kept, ' '), 'KEEPTTL') end
  end
end
return 1
`;

/** The scripts by name, as reports of Redis's slow log call them. */
export const RATE_LIMIT_SCRIPTS = { take: TAKE, refund: REFUND } as const;

/** The most slots one call takes (more are refused as a mistake in the code). */
const MAX_KEYS = 8;

/**
 * The sliding-window limits on Redis, shared by every instance (see MemoryRateLimiter). A key's
 * action (what comes before its first ":") is its hash tag, so on a Redis Cluster every key of one
 * action sits on one slot: an action's slots (the visitor's and the address's) are taken in one
 * script, as on one Redis. Slots of different actions taken together get a script each (sent
 * together), and when one refuses, the others are given back: never more than a limit passes,
 * though two calls racing for the last place under two actions may both be refused. What the
 * tag costs: each action's limits sit on one node of a Cluster (a script of a few µs a call).
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #take: RedisScript;
  readonly #refund: RedisScript;
  readonly #cluster: boolean;

  constructor(
    redis: RedisClient,
    private readonly prefix = "tidings:",
    private readonly clock: Clock = systemTime,
  ) {
    // An action's slots (a visitor's and an address's, a few rules of one action at most).
    const keyCounts = Array.from({ length: MAX_KEYS }, (_, i) => i + 1);
    this.#take = new RedisScript(redis, TAKE, keyCounts);
    this.#refund = new RedisScript(redis, REFUND, keyCounts);
    this.#cluster = isCluster(redis);
  }

  async take(slots: readonly Slot[]): Promise<Reservation> {
    const token = randomBytes(6).toString("base64url");
    const byGroup = new Map<string, Slot[]>();
    for (const slot of slots) {
      const colon = slot.key.indexOf(":");
      const action = colon === -1 ? slot.key : slot.key.slice(0, colon);
      const named = {
        ...slot,
        key: `${this.prefix}limit:{${action}}${slot.key.slice(action.length)}`,
      };
      // One script on one Redis; on a Cluster one per action, each on its action's slot.
      const group = this.#cluster ? action : "";
      const members = byGroup.get(group);
      if (members) members.push(named);
      else byGroup.set(group, [named]);
    }
    const groups = [...byGroup.values()];
    const now = this.clock.now();
    const waits = await Promise.all(
      groups.map(async (group) =>
        Number(
          await this.#take.run(
            group.map((slot) => slot.key),
            [now, token, ...group.flatMap(({ rule }) => [rule.limit, rule.windowMs])],
          ),
        ),
      ),
    );
    const refund = (taken: Slot[][]) =>
      Promise.all(
        taken.map((group) =>
          this.#refund.run(
            group.map((slot) => slot.key),
            [token],
          ),
        ),
      );
    const wait = Math.max(...waits);
    if (wait > 0) {
      await refund(groups.filter((_, i) => waits[i] === 0));
      throw new RateLimitedError(Math.ceil(wait / 1000));
    }
    let refunded = false;
    return {
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await refund(groups);
      },
    };
  }

  /** Keys expire with their windows. */
  prune(): void {}
}
