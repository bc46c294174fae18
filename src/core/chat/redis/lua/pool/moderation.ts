import { lua } from "../lua.ts";

/**
 * Ends the visitor's chat and keeps the two apart, by visitor and by address. Answers JSON:
 * { chat, blocked = { id, ip, country = { code, name } } }, or {} when they were not chatting.
 */
export const block = lua`
local visitor = ARGV[A + 1]
local until_ms = tonumber(ARGV[A + 2])

local s = status(visitor)
if s.state ~= 'chatting' then return cjson.encode({}) end
local partner = s.pt
local partner_ip = redis.call('HGET', visitors, field(partner, 'ip')) or ''
relate('blocked:' .. pair_name(visitor, partner), until_ms)
relate('blocked_address:' .. visitor .. '|' .. partner_ip, until_ms)
local chat = leave(visitor, false)
return cjson.encode({ chat = chat,
  blocked = { id = partner, ip = partner_ip, country = s.partner_country } })
`;

/** Keeps a block made elsewhere (by visitor and by address). Answers 1. */
export const remember = lua`
local blocker = ARGV[A + 1]
local blocked = ARGV[A + 2]
local blocked_ip = ARGV[A + 3]
local until_ms = tonumber(ARGV[A + 4])

relate('blocked:' .. pair_name(blocker, blocked), until_ms)
relate('blocked_address:' .. blocker .. '|' .. blocked_ip, until_ms)
return 1
`;

/**
 * Mutes the visitor and everyone on the address, announced to every instance's copy of the
 * mutes. Answers JSON: { chats = [{ chat, side, visitor }] }, the chats their sides are muted in.
 */
export const mute = lua`
local visitor = ARGV[A + 1]
local ip = ARGV[A + 2]
local until_text = ARGV[A + 3]
local mutes_channel = ARGV[A + 4]
local until_ms = tonumber(until_text)

for _, key in ipairs({ 'visitor:' .. visitor, 'ip:' .. ip }) do
  if until_ms > (tonumber(redis.call('HGET', mutes, key)) or 0) then
    redis.call('HSET', mutes, key, until_ms)
    redis.call('PUBLISH', mutes_channel, until_text .. ' ' .. key)
  end
end
local covered = from_address(ip)
covered[#covered + 1] = visitor
local chats, seen, in_chat = {}, {}, false
for _, other in ipairs(covered) do
  if not seen[other] then
    seen[other] = true
    local s = redis.call('HMGET', visitors, field(other, 'present_since'),
      field(other, 'muted_until'), field(other, 'chat'), field(other, 'side'))
    local present, muted_until, chat, side = s[1], s[2], s[3], s[4]
    if present then
      if until_ms > (tonumber(muted_until) or 0) then
        redis.call('HSET', visitors, field(other, 'muted_until'), until_ms)
      end
      if chat and chat ~= '' then
        chats[#chats + 1] = { chat = chat, side = side, visitor = other }
        if other == visitor then in_chat = true end
      end
    end
  end
end
-- In a chat, the chat's own script tells them (kept in its stream); otherwise, here.
if not in_chat then tell(visitor, '{"type":"muted","until":' .. until_text .. '}') end
return cjson.encode({ chats = chats })
`;

/**
 * ARGV from A + 1: pairs of a ban key ('visitor:<id>' or 'ip:<hash>') and its end. Ends what
 * the visitors they cover are doing and tells each once, until the latest end among their keys
 * (in their chat's stream when they were chatting: answered here, for the chat's own script).
 * Answers JSON: { chats = [{ chat, side, pt, visitor, until }] }.
 */
export const ban = lua`
local covered_until, order = {}, {}
local function cover(visitor, until_ms)
  if not covered_until[visitor] then order[#order + 1] = visitor end
  covered_until[visitor] = math.max(covered_until[visitor] or 0, until_ms)
end

for i = A + 1, #ARGV, 2 do
  local key, until_ms = ARGV[i], tonumber(ARGV[i + 1])
  if until_ms > now and until_ms > (tonumber(redis.call('HGET', bans, key)) or 0) then
    redis.call('HSET', bans, key, until_ms)
  end
  if string.sub(key, 1, 8) == 'visitor:' then
    local visitor = string.sub(key, 9)
    if redis.call('HEXISTS', visitors, field(visitor, 'present_since')) == 1 then
      cover(visitor, until_ms)
    end
  else
    for _, visitor in ipairs(from_address(string.sub(key, 4))) do cover(visitor, until_ms) end
  end
end
local chats = {}
for _, visitor in ipairs(order) do
  local chat = leave(visitor, false)
  if chat then
    chat['until'] = covered_until[visitor]
    chats[#chats + 1] = chat
  else
    tell(visitor, '{"type":"banned","until":' .. string.format('%d', covered_until[visitor]) .. '}')
  end
end
return cjson.encode({ chats = chats })
`;
