import { lua } from "../lua.ts";

/**
 * A message. Answers 1 (relayed), 2 (the sender is muted: relayed to no one), 3 (a ban ended
 * the chat for the sender), 0 (not the sender's chat, or ended) or -1 (no such chat). While the
 * chat runs with nobody muted its stream has the name 'events', so the XADD finding it is the
 * check: a message is then two commands, and the chat's hash is read only when it finds none.
 */
export const send = lua`
local sender = ARGV[A + 1]
local message_id = ARGV[A + 2]
local partner_event = ARGV[A + 3]     -- JSON
local most_kept = ARGV[A + 4]
-- The sender's side and their partner as the calling instance knows them ('' and '' if not).
local known_side, partner = ARGV[A + 5], ARGV[A + 6]

local partner_side, id
if known_side ~= '' then
  partner_side = known_side == 'a' and 'b' or 'a'
  id = redis.call('XADD', events, 'NOMKSTREAM', 'MAXLEN', '~', most_kept, '*',
    'm', message_id, partner_side, partner_event)
end
if not id then
  local h = redis.call('HMGET', chat, 'visitor_a', 'visitor_b', 'ended', 'muted_until_a',
    'muted_until_b', 'banned_side')
  local visitor_a, visitor_b, ended, muted_until_a, muted_until_b, banned_side =
    h[1], h[2], h[3], h[4], h[5], h[6]
  if not visitor_a then return -1 end
  local side, mine, theirs
  if sender == visitor_a then
    side, partner, partner_side, mine, theirs = 'a', visitor_b, 'b', muted_until_a, muted_until_b
  elseif sender == visitor_b then
    side, partner, partner_side, mine, theirs = 'b', visitor_a, 'a', muted_until_b, muted_until_a
  else
    return 0
  end
  if ended then
    if banned_side == side then return 3 end
    return 0
  end
  if (tonumber(mine) or 0) > now then return 2 end
  local stream = checked_events
  if redis.call('EXISTS', events) == 1 then
    stream = events
  elseif (tonumber(theirs) or 0) <= now and redis.call('EXISTS', checked_events) == 1 then
    -- The mutes have run out: the next messages need no checks again.
    redis.call('RENAME', checked_events, events)
    tell_checks(visitor_a, visitor_b, 0)
    stream = events
  end
  id = redis.call('XADD', stream, 'MAXLEN', '~', most_kept, '*',
    'm', message_id, partner_side, partner_event)
end
announce(partner, id, partner_event, nil, partner_side)
return 1
`;
