import { lua } from "../lua.ts";

/**
 * Lets go of what is past: instances whose heartbeat stopped (answered), visitors gone past the
 * grace period (their chats answered, to end on their slots), past relations, and a page of
 * past bans and mutes from each cursor. Answers JSON: { dead, chats, cursors, more } (more:
 * whether more are gone than one step took).
 */
export const sweep = lua`
local grace_ms = tonumber(ARGV[A + 1])
local batch = tonumber(ARGV[A + 2])          -- the most visitors to let go of in one step
local page = tonumber(ARGV[A + 3])           -- the most relations, bans or mutes read at once
local cursors_in = { ARGV[A + 4], ARGV[A + 5] }   -- bans', mutes' ('-' to skip)

local dead = redis.call('ZRANGEBYSCORE', heartbeats, '-inf', now - heartbeat_vouches_ms,
  'LIMIT', 0, 10)
local chats = {}
local gone_past = redis.call('ZRANGEBYSCORE', gone, '-inf', now - grace_ms, 'LIMIT', 0, batch)
for _, visitor in ipairs(gone_past) do
  local s = redis.call('HMGET', visitors, field(visitor, 'instances'), field(visitor, 'ip'))
  local instances, ip = s[1], s[2]
  if not instances or instances == '' then
    local chat = leave(visitor, false)
    if chat then chats[#chats + 1] = chat end
    forget(visitor, ip)
  end
  redis.call('ZREM', gone, visitor)
end
local past = redis.call('ZRANGEBYSCORE', relation_ends, '-inf', now, 'LIMIT', 0, page)
if #past > 0 then
  redis.call('HDEL', relations, unpack(past))
  redis.call('ZREM', relation_ends, unpack(past))
end
local cursors = {}
for i, hash in ipairs({ bans, mutes }) do
  if cursors_in[i] == '-' then
    cursors[i] = '-'
  else
    local scanned = redis.call('HSCAN', hash, cursors_in[i], 'COUNT', page)
    local over, entries = {}, scanned[2]
    for j = 1, #entries, 2 do
      if (tonumber(entries[j + 1]) or 0) <= now then over[#over + 1] = entries[j] end
    end
    if #over > 0 then redis.call('HDEL', hash, unpack(over)) end
    cursors[i] = scanned[1]
  end
end
return cjson.encode({ dead = dead, chats = chats, cursors = cursors, more = #gone_past == batch })
`;

/**
 * KEYS' last is the named instance's set. Its visitors lose it; those left with no stream
 * anywhere start their grace period from its last heartbeat (or now, for the caller), and a
 * waiting one leaves the pool. Answers how many remain (0 too while it still beats).
 */
export const orphan = lua`
local instance = ARGV[A + 1]          -- a dead instance, or the caller, stopping
local batch = tonumber(ARGV[A + 2])   -- the most to take in one step

local since = now
if instance ~= this_instance then
  local beat = tonumber(redis.call('ZSCORE', heartbeats, instance))
  if beat and now - beat <= heartbeat_vouches_ms then return 0 end
  since = math.min(beat or now, now)
end
for _, visitor in ipairs(redis.call('SPOP', on_instance, batch)) do
  local s = redis.call('HMGET', visitors, field(visitor, 'instances'),
    field(visitor, 'present_since'), field(visitor, 'ticket'))
  local instances, present, ticket = s[1], s[2], s[3]
  if present then
    local left = without(instances, instance)
    redis.call('HSET', visitors, field(visitor, 'instances'), left)
    if left == '' then
      if ticket and ticket ~= '' then leave_line(visitor) end
      redis.call('ZADD', gone, 'NX', since, visitor)
    end
  end
end
local remaining = redis.call('SCARD', on_instance)
if remaining == 0 then redis.call('ZREM', heartbeats, instance) end
return remaining
`;
