import { lua } from "../lua.ts";

/**
 * Ends the chat; answers 0 when it had ended already. A chat that never opened is marked ended,
 * so a late open does not start it, and the events go out as events outside a chat.
 */
export const finish = lua`
local pool_visitor_a, pool_visitor_b = ARGV[A + 1], ARGV[A + 2]   -- as the pool knew them
local keep_ms = ARGV[A + 3]
local most_kept = ARGV[A + 4]
local event_a, event_b = ARGV[A + 5], ARGV[A + 6]   -- '' for none
local banned_side = ARGV[A + 7]                      -- the side a ban ended it for, or ''

local h = redis.call('HMGET', chat, 'visitor_a', 'visitor_b', 'ended')
local visitor_a, visitor_b, ended = h[1], h[2], h[3]
if not visitor_a then
  redis.call('HSET', chat, 'ended', now)
  redis.call('PEXPIRE', chat, keep_ms)
  if event_a ~= '' then
    redis.call('PUBLISH', visitor_channel_prefix .. pool_visitor_a, '-\t' .. event_a)
  end
  if event_b ~= '' then
    redis.call('PUBLISH', visitor_channel_prefix .. pool_visitor_b, '-\t' .. event_b)
  end
  return 0
end
if ended then return 0 end
redis.call('HSET', chat, 'ended', now, 'banned_side', banned_side)
-- From now on every message goes through the checks, which refuse it.
if redis.call('EXISTS', events) == 1 then redis.call('RENAME', events, checked_events) end
local entry = {}
if event_a ~= '' then entry[#entry + 1] = 'a'; entry[#entry + 1] = event_a end
if event_b ~= '' then entry[#entry + 1] = 'b'; entry[#entry + 1] = event_b end
if #entry > 0 then
  local id = redis.call('XADD', checked_events, 'MAXLEN', '~', most_kept, '*', unpack(entry))
  if event_a ~= '' then announce(visitor_a, id, event_a, nil, 'a') end
  if event_b ~= '' then announce(visitor_b, id, event_b, nil, 'b') end
end
redis.call('PEXPIRE', chat, keep_ms)
redis.call('PEXPIRE', checked_events, keep_ms)
return 1
`;

/** That side's messages reach no one until then. Answers 1. */
export const mute = lua`
local side = ARGV[A + 1]
local until_ms = ARGV[A + 2]
local most_kept = ARGV[A + 3]
local event = ARGV[A + 4]     -- the event telling that side ('' when told elsewhere)

local muted_field = 'muted_until_' .. side
if tonumber(until_ms) > (tonumber(redis.call('HGET', chat, muted_field)) or 0) then
  redis.call('HSET', chat, muted_field, until_ms)
end
local h = redis.call('HMGET', chat, 'visitor_a', 'visitor_b', 'ended')
local visitor_a, visitor_b, ended = h[1], h[2], h[3]
local running = visitor_a and not ended
-- The muted side's messages go through the checks from now on (and reach no one).
if redis.call('EXISTS', events) == 1 then
  redis.call('RENAME', events, checked_events)
  if running then tell_checks(visitor_a, visitor_b, 1) end
end
if event ~= '' and running then
  local id = redis.call('XADD', checked_events, 'MAXLEN', '~', most_kept, '*', side, event)
  announce(side == 'a' and visitor_a or visitor_b, id, event, nil, side)
end
return 1
`;
