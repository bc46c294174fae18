import { lua } from "../lua.ts";

/** Where the visitor stands. Answers JSON: { status }. */
export const status = lua`
local visitor = ARGV[A + 1]

return cjson.encode({ status = status(visitor) })
`;

/**
 * The calling instance holds a stream of the visitor from now on; a waiting visitor can be
 * paired now. Answers JSON: { status } as they stood first, and { paired } if paired now.
 */
export const attach = lua`
local visitor = ARGV[A + 1]
local chat_id = ARGV[A + 2]   -- the chat id to use if paired

local before = status(visitor)
local writes = { field(visitor, 'instances'), with(before.inst, this_instance) }
arrive(visitor, before.present, writes)
redis.call('HSET', visitors, unpack(writes))
redis.call('SADD', on_instance, visitor)
redis.call('ZREM', gone, visitor)
local out = { status = before }
if before.state == 'waiting' then
  local me = waiting_seeker(visitor)
  me.instances = nil
  local paired = match(visitor, me, chat_id)
  if paired then
    out.paired = paired.paired
  else
    -- Pressed start before any stream opened: into the line now, in the place they pressed for.
    redis.call('ZADD', waiting_line, 'NX', tonumber(string.match(me.ticket, '^%d+')), visitor)
  end
end
return cjson.encode(out)
`;

/**
 * The calling instance holds no stream of the visitor any more; with none left anywhere, a
 * waiting visitor leaves the pool at once and the grace period starts. Answers 1, or 0 for a
 * visitor not present.
 */
export const detach = lua`
local visitor = ARGV[A + 1]

redis.call('SREM', on_instance, visitor)
local s = redis.call('HMGET', visitors, field(visitor, 'instances'),
  field(visitor, 'present_since'), field(visitor, 'ticket'))
local instances, present, ticket = s[1], s[2], s[3]
if not present then return 0 end
local left = without(instances, this_instance)
redis.call('HSET', visitors, field(visitor, 'instances'), left)
if left == '' then
  -- The grace period is for resuming a chat, not for being paired meanwhile.
  if ticket and ticket ~= '' then
    leave_line(visitor)
    tell(visitor, '{"type":"idle"}')
  end
  redis.call('ZADD', gone, now, visitor)
end
return 1
`;

/**
 * Leaves the pool or the chat. Answers JSON: { chat } to end on the chat's slot, or {} when
 * another instance still holds a stream of theirs and they asked to leave only if none does.
 */
export const leave = lua`
local visitor = ARGV[A + 1]
local only_if_alone = ARGV[A + 2] == '1'

if only_if_alone
  and without(redis.call('HGET', visitors, field(visitor, 'instances')), this_instance) ~= '' then
  return cjson.encode({})
end
local chat = leave(visitor, true)
return cjson.encode({ chat = chat })
`;

/** How many wait, chat and are present. Answers JSON: { waiting, chatting, present }. */
export const counts = lua`
local s = redis.call('HMGET', stats, 'chats', 'present')
return cjson.encode({ waiting = redis.call('ZCARD', waiting_line),
  chatting = math.max(0, tonumber(s[1]) or 0), present = math.max(0, tonumber(s[2]) or 0) })
`;
