import { lua } from "../lua.ts";

/** Pairs a waiting visitor if anyone suits now. Answers JSON: { paired } or {}. */
export const match = lua`
local visitor = ARGV[A + 1]
local chat_id = ARGV[A + 2]   -- the chat id to use if paired

local me = waiting_seeker(visitor)
if not me.ticket or me.ticket == '' or listening(me.instances) ~= 'yes' then
  return cjson.encode({})
end
return cjson.encode(match(visitor, me, chat_id) or {})
`;

/** A waiting visitor takes anyone from now on; paired at once if anyone suits. */
export const widen = lua`
local visitor = ARGV[A + 1]
local chat_id = ARGV[A + 2]   -- the chat id to use if paired

local me = waiting_seeker(visitor)
if not me.ticket or me.ticket == '' then return cjson.encode({}) end
redis.call('HDEL', visitors, field(visitor, 'anyone_from'))
me.anyone_from = 0
if listening(me.instances) ~= 'yes' then return cjson.encode({}) end
return cjson.encode(match(visitor, me, chat_id) or {})
`;
