import { lua } from "../lua.ts";

/** Opens the chat the pool paired, unless it ended before it opened. Answers its first id, or 0. */
export const open = lua`
local visitor_a, visitor_b = ARGV[A + 1], ARGV[A + 2]
local ip_a, ip_b = ARGV[A + 3], ARGV[A + 4]
local country_code_a, country_code_b = ARGV[A + 5], ARGV[A + 6]
local country_name_a, country_name_b = ARGV[A + 7], ARGV[A + 8]
local muted_until_a, muted_until_b = ARGV[A + 9], ARGV[A + 10]
local life_ms = ARGV[A + 11]
local most_kept = ARGV[A + 12]        -- the most events the stream keeps
-- For each side: its "matched" event, what its instance keeps of the chat, and where it hears
-- "matched": '' on its own channel; 'both' there and on its side's channel, which an instance
-- subscribed before the chat opened (so it comes ahead of what follows there); 'side' on that
-- one only (no other instance holds them).
local sides = {
  { side = 'a', visitor = visitor_a, matched = ARGV[A + 13], keeps = ARGV[A + 15], hears = ARGV[A + 17] },
  { side = 'b', visitor = visitor_b, matched = ARGV[A + 14], keeps = ARGV[A + 16], hears = ARGV[A + 18] },
}

local fields = { 'visitor_a', visitor_a, 'visitor_b', visitor_b, 'ip_a', ip_a, 'ip_b', ip_b,
  'country_code_a', country_code_a, 'country_code_b', country_code_b,
  'country_name_a', country_name_a, 'country_name_b', country_name_b,
  'muted_until_a', muted_until_a, 'muted_until_b', muted_until_b }
if redis.call('HSET', chat, unpack(fields)) < #fields / 2 then
  -- Its keys were there already: it ended before it opened.
  if redis.call('HGET', chat, 'ended') then return 0 end
end
-- A side muted from the start: messages go through the checks (see the stream's names).
local stream = events
if (tonumber(muted_until_a) or 0) > now or (tonumber(muted_until_b) or 0) > now then
  stream = checked_events
end
local id = redis.call('XADD', stream, 'MAXLEN', '~', most_kept, '*',
  'a', sides[1].matched, 'b', sides[2].matched)
redis.call('PEXPIRE', chat, life_ms)
redis.call('PEXPIRE', stream, life_ms)
-- What each side's instance keeps, and whether the chat's checks start on (see tell_checks).
local closed = stream == checked_events and '\t1' or '\t0'
for _, s in ipairs(sides) do
  if s.hears ~= 'side' then announce(s.visitor, id, s.matched, s.keeps .. closed) end
  if s.hears ~= '' then announce(s.visitor, id, s.matched, s.keeps .. closed, s.side) end
end
return id
`;
