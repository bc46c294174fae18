import { lua } from "../lua.ts";

/** The restore script takes each visitor as this many arguments (see restore below). */
export const RESTORE_ARGS = 12;

/**
 * After Redis restarted empty, the instance tells it again whom it holds, as they were; waiting
 * ones rejoin the pool with what they asked. Answers 1.
 */
export const restore = lua`
-- ARGV from A + 1: the calling instance's visitors, each as ${RESTORE_ARGS} arguments from i:
for i = A + 1, #ARGV, ${RESTORE_ARGS} do
  local visitor = ARGV[i]
  local state = ARGV[i + 1]             -- 'idle', 'waiting' or 'chatting'
  local chat, side, partner = ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local ip, country_code, country_name = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7]
  -- What a waiting one asked (each '' when nothing): when anyone will do, languages, interest
  -- keys, JSON.
  local anyone_from, languages, interest_keys, asked =
    ARGV[i + 8], ARGV[i + 9], ARGV[i + 10], ARGV[i + 11]

  local s = redis.call('HMGET', visitors, field(visitor, 'present_since'),
    field(visitor, 'instances'), field(visitor, 'ip'), field(visitor, 'chat'),
    field(visitor, 'ticket'))
  local present, instances, old_ip, old_chat, ticket = s[1], s[2], s[3], s[4], s[5]
  local writes = { field(visitor, 'instances'), with(instances, this_instance) }
  arrive(visitor, present, writes)
  if ip ~= '' and old_ip ~= ip then
    writes[#writes + 1] = field(visitor, 'ip')
    writes[#writes + 1] = ip
    sighted(visitor, old_ip, ip, writes)
  end
  if country_code ~= '' or country_name ~= '' then
    writes[#writes + 1] = field(visitor, 'country_code')
    writes[#writes + 1] = country_code
    writes[#writes + 1] = field(visitor, 'country_name')
    writes[#writes + 1] = country_name
  end
  local busy = (old_chat and old_chat ~= '') or (ticket and ticket ~= '')
  if state == 'chatting' and not busy then
    for _, name_value in ipairs({ { 'chat', chat }, { 'side', side }, { 'partner', partner } }) do
      writes[#writes + 1] = field(visitor, name_value[1])
      writes[#writes + 1] = name_value[2]
    end
    if side == 'a' then redis.call('HINCRBY', stats, 'chats', 1) end
  elseif state == 'waiting' and not busy then
    writes[#writes + 1] = field(visitor, 'waiting_since')
    writes[#writes + 1] = now
    keep_asked(visitor, seeker_asking({}, anyone_from, languages, interest_keys, asked), writes)
    local number = redis.call('INCR', last_ticket)
    writes[#writes + 1] = field(visitor, 'ticket')
    writes[#writes + 1] = number
    redis.call('ZADD', waiting_line, number, visitor)
  end
  redis.call('HSET', visitors, unpack(writes))
  redis.call('SADD', on_instance, visitor)
  redis.call('ZREM', gone, visitor)
end
return 1
`;

/**
 * The chat's own keys are gone (its node restarted empty, or it never opened): both its
 * visitors leave it, and hear that it was lost (a fresh status). Answers 1.
 */
export const lost = lua`
local chat = ARGV[A + 1]
local visitors_of_chat = { ARGV[A + 2], ARGV[A + 3] }

local ended = false
for _, visitor in ipairs(visitors_of_chat) do
  if visitor ~= '' and redis.call('HGET', visitors, field(visitor, 'chat')) == chat then
    redis.call('HSET', visitors, field(visitor, 'chat'), '')
    ended = true
    tell(visitor, '{"type":"status","status":{"state":"idle"}}')
  end
end
if ended then redis.call('HINCRBY', stats, 'chats', -1) end
return 1
`;
