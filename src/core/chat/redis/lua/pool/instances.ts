import { lua } from "../lua.ts";

/**
 * The instance is alive; answers Redis's epoch, which changes only when Redis lost its state,
 * and how many subscribe to the instance's life channel here (none: the instance's sharded
 * subscriptions were lost).
 */
export const BEAT = lua`
local heartbeats, epoch_key = KEYS[1], KEYS[2]
local now, instance, new_epoch, life_channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

redis.call('ZADD', heartbeats, now, instance)
local listening = redis.call('PUBSUB', 'SHARDNUMSUB', life_channel)[2]
local epoch = redis.call('GET', epoch_key)
if epoch then return { epoch, listening } end
redis.call('SET', epoch_key, new_epoch)
return { new_epoch, listening }
`;

/**
 * Takes the lease when nobody holds it (SET NX PX) or extends it for its holder; answers 1 when
 * the caller holds it now, else 0.
 */
export const LEASE_TAKE = lua`
local lease = KEYS[1]
local instance, ms = ARGV[1], ARGV[2]

if redis.call('GET', lease) == instance then
  redis.call('PEXPIRE', lease, ms)
  return 1
end
if redis.call('SET', lease, instance, 'NX', 'PX', ms) then return 1 end
return 0
`;

/** Lets the lease go, only if the caller holds it. */
export const LEASE_RELEASE = lua`
local lease = KEYS[1]
local instance = ARGV[1]

if redis.call('GET', lease) == instance then return redis.call('DEL', lease) end
return 0
`;
