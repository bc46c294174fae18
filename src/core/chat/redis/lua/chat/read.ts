import { lua } from "../lua.ts";

/**
 * What the chat kept for a visitor's side. Answers the side, the stream's last id, its checks (the
 * count of its changes, and 1 on / 0 off: see tell_checks), then pairs of id and event for
 * that side; or nothing when the chat is not kept or not theirs.
 */
export const read = lua`
local visitor = ARGV[A + 1]
local after = ARGV[A + 2]     -- a stream id; '-' for everything kept, '$' for only the last id

local h = redis.call('HMGET', chat, 'visitor_a', 'visitor_b', 'checks_changes')
local side
if h[1] == visitor then side = 'a' elseif h[2] == visitor then side = 'b' else return false end
local open = redis.call('EXISTS', events) == 1
local stream = open and events or checked_events
local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)[1]
local out = { side, last and last[1] or '0-0', h[3] or '0', open and '0' or '1' }
if after == '$' then return out end
local from = '-'
if after ~= '-' then from = '(' .. after end
for _, entry in ipairs(redis.call('XRANGE', stream, from, '+')) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == side then
      out[#out + 1] = entry[1]
      out[#out + 1] = fields[i + 1]
    end
  end
end
return out
`;

/**
 * A message the visitor's partner sent them in this chat. Answers its event, its sender and
 * their address; or nothing.
 */
export const held = lua`
local visitor = ARGV[A + 1]
local message_id = ARGV[A + 2]
local look_back = ARGV[A + 3]     -- how many events to look back

local h = redis.call('HMGET', chat, 'visitor_a', 'visitor_b', 'ip_a', 'ip_b')
local side, sender, sender_ip
if h[1] == visitor then side, sender, sender_ip = 'a', h[2], h[4]
elseif h[2] == visitor then side, sender, sender_ip = 'b', h[1], h[3]
else return false end
local stream = redis.call('EXISTS', events) == 1 and events or checked_events
for _, entry in ipairs(redis.call('XREVRANGE', stream, '+', '-', 'COUNT', look_back)) do
  local fields = entry[2]
  local entry_message, event = nil, nil
  for i = 1, #fields, 2 do
    if fields[i] == 'm' then entry_message = fields[i + 1]
    elseif fields[i] == side then event = fields[i + 1] end
  end
  if entry_message == message_id then
    if event then return { event, sender, sender_ip or '' } end
    return false
  end
end
return false
`;

/** Whether the chat is kept, running, and the visitor's (after Redis came back): 1 or 0. */
export const alive = lua`
local visitor = ARGV[A + 1]

local h = redis.call('HMGET', chat, 'visitor_a', 'visitor_b', 'ended')
if h[3] then return 0 end
if h[1] == visitor or h[2] == visitor then return 1 end
return 0
`;
