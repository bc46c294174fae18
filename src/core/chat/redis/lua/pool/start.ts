import { lua } from "../lua.ts";

/**
 * Joins the pool, or answers the chat or wait already in progress (another tab). Answers JSON:
 * { banned } (until), { status } (where they stand), or { paired } at once; with spent = true
 * when the chat id the instance made ready was used already.
 */
export const start = lua`
local visitor = ARGV[A + 1]
local ip = ARGV[A + 2]
local country_code = ARGV[A + 3]      -- '' for none
local country_name = ARGV[A + 4]
local chat_id = ARGV[A + 5]           -- the chat id to use if paired
local fallback_ms = tonumber(ARGV[A + 6]) or 0   -- how long until anyone will do
local languages = ARGV[A + 7]         -- " en ja ", '' for none asked
local interest_keys = ARGV[A + 8]     -- each between newlines, or ''
local asked = ARGV[A + 9]             -- what they asked as JSON, '' for nothing
local ready_chat = ARGV[A + 10]       -- the chat id the instance is ready for, '' for none

local banned = banned_until(visitor, ip)
if banned then return cjson.encode({ banned = banned }) end
local s = redis.call('HMGET', visitors, field(visitor, 'present_since'), field(visitor, 'ip'),
  field(visitor, 'ticket'), field(visitor, 'chat'), field(visitor, 'instances'),
  field(visitor, 'muted_until'), field(visitor, 'used_chat'))
local present, old_ip, ticket, chat, instances, muted_until, used_chat =
  s[1], s[2], s[3], s[4], s[5], s[6] or '', s[7]

-- The ticket's ready part: "<chat id> <instance>", unless that chat id was used already.
local ready, spent = nil, nil
if ready_chat ~= '' and ready_chat == used_chat then
  spent = true
elseif ready_chat ~= '' then
  ready = ready_chat .. ' ' .. this_instance
end
if (chat and chat ~= '') or (ticket and ticket ~= '') then
  return cjson.encode({ status = status(visitor) })
end

local writes = { field(visitor, 'country_code'), country_code, field(visitor, 'country_name'),
  country_name, field(visitor, 'waiting_since'), now }
arrive(visitor, present, writes)
if not present and (not instances or instances == '') then
  -- Pressed start before any stream opened: the grace period runs until one does.
  redis.call('ZADD', gone, 'NX', now, visitor)
end
if old_ip ~= ip then
  writes[#writes + 1] = field(visitor, 'ip')
  writes[#writes + 1] = ip
  muted_until = sighted(visitor, old_ip, ip, writes)
end
local anyone_from = fallback_ms > 0 and now + fallback_ms or nil
local me = seeker_asking({ ip = ip, country = { code = country_code, name = country_name },
  muted_until = muted_until, waiting_since = now, instances = instances },
  anyone_from, languages, interest_keys, asked)
if listening(instances) == 'yes' then
  local paired = match(visitor, me, chat_id, writes)
  if paired then
    paired.spent = spent
    return cjson.encode(paired)
  end
end
-- Kept only while they wait (pairing and leaving the pool drop them).
keep_asked(visitor, me, writes)
local number = redis.call('INCR', last_ticket)
-- Their place in line is kept from now, but with no stream open anywhere they could not hear of
-- a match: they join the line a look at the pool reads when their first stream opens (attach),
-- so presses that never listen keep nobody else from being paired.
if instances and instances ~= '' then redis.call('ZADD', waiting_line, number, visitor) end
writes[#writes + 1] = field(visitor, 'ticket')
writes[#writes + 1] = ready and (number .. ' ' .. ready) or number
redis.call('HSET', visitors, unpack(writes))
tell(visitor, '{"type":"waiting"}')
return cjson.encode({ status = { state = 'waiting' }, spent = spent })
`;
