import { withShared } from "../redis-script.ts";

/**
 * A chat's steps on Redis, each one Lua script on the chat's own slot (KEYS: the chat's hash,
 * its stream's two names, and on a Redis Cluster its two sides' channels; see redis-keys.ts;
 * the stream has the first name only while the chat runs with nobody muted): an event is
 * kept in the chat's stream and announced in the same step, and the stream's id is the event's
 * (with the chat's id in front), so a socket that reconnects anywhere resumes from it. "matched"
 * goes to the visitors' own channels, whose instances subscribe to them; what follows goes, on
 * one Redis, there too, and on a Cluster to the side's channel (SPUBLISH: a classic PUBLISH is
 * forwarded to every node of a Cluster, a sharded one stays on the chat's node), which the
 * instances holding that side subscribe to while the chat runs. The events' JSON is made by the
 * instance: a script only stores and forwards it. ARGV first: now (ms), the visitors' channel
 * prefix, the chat's id; then each script's own.
 */
export const CHAT_ARGS = 3;

const PRELUDE = `
local CHAT, EV, EVC = KEYS[1], KEYS[2], KEYS[3]
local now, CH, ID = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local A = ${CHAT_ARGS}
`;

// Only in the scripts that call it (withShared): making a function is part of each call's cost.
const SHARED = `
-- Announces to visitor v (on side 'a' or 'b' of the chat, when given: see above).
local function announce(v, id, json, extra, side)
  local payload = ID .. '.' .. id .. '\\t' .. json
  if extra and extra ~= '' then payload = payload .. '\\t' .. extra end
  if side and KEYS[4] then
    redis.call('SPUBLISH', side == 'a' and KEYS[4] or KEYS[5], payload)
  else
    redis.call('PUBLISH', CH .. v, payload)
  end
end

-- On one Redis an instance keeps and announces a message itself, in one transaction (no
-- script), while the stream has the name EV. When it loses that name (a mute) or gets it back,
-- both sides' instances hear it first, in order on their channels ("!", the chat, its count of
-- such changes, 1 closed / 0 open), so they drop what a transaction announced but could not keep
-- (redis-broker.ts, LocalStream). On a Cluster every message is a script: nothing to tell.
local function gate(a, b, closed)
  if KEYS[4] then return end
  local payload = '!\t' .. ID .. '\t' .. redis.call('HINCRBY', CHAT, 'g', 1) .. '\t' .. closed
  redis.call('PUBLISH', CH .. a, payload)
  redis.call('PUBLISH', CH .. b, payload)
end
`;

export const CHAT_SCRIPTS = {
  /**
   * ARGV: a, b, ipa, ipb, cca, ccb, coa, cob, mute of a, mute of b, life ms, the most events
   * kept, each side's "matched" event, what each side's instance keeps of the chat, and where a
   * and b hear "matched": '' on their own channel; 'both' there and on their side's channel,
   * which an instance subscribed before the chat opened (so it comes ahead of what follows
   * there); 'side' on that one only (no other instance holds them). Opens the chat the pool
   * paired, unless it ended before it opened.
   */
  open: `
local a, b = ARGV[A + 1], ARGV[A + 2]
local fields = { 'a', a, 'b', b, 'ipa', ARGV[A + 3], 'ipb', ARGV[A + 4], 'cca', ARGV[A + 5],
  'ccb', ARGV[A + 6], 'coa', ARGV[A + 7], 'cob', ARGV[A + 8], 'ma', ARGV[A + 9], 'mb', ARGV[A + 10] }
if redis.call('HSET', CHAT, unpack(fields)) < #fields / 2 then
  -- Its keys were there already: it ended before it opened.
  if redis.call('HGET', CHAT, 'ended') then return 0 end
end
local life = ARGV[A + 11]
-- A side muted from the start: messages go through the checks (see the stream's names above).
local S = EV
if (tonumber(ARGV[A + 9]) or 0) > now or (tonumber(ARGV[A + 10]) or 0) > now then S = EVC end
local id = redis.call('XADD', S, 'MAXLEN', '~', ARGV[A + 12], '*', 'a', ARGV[A + 13], 'b', ARGV[A + 14])
redis.call('PEXPIRE', CHAT, life)
redis.call('PEXPIRE', S, life)
-- What each side's instance keeps, and whether the stream starts closed (see gate).
local closed = S == EVC and '\t1' or '\t0'
for i, x in ipairs({ { a, 'a' }, { b, 'b' } }) do
  local json, keep, where = ARGV[A + 12 + i], ARGV[A + 14 + i] .. closed, ARGV[A + 16 + i]
  if where ~= 'side' then announce(x[1], id, json, keep) end
  if where ~= '' then announce(x[1], id, json, keep, x[2]) end
end
return id
`,
  /**
   * ARGV: sender, message id, the partner's event (JSON), the most events kept, the sender's side
   * and their partner as the calling instance knows them ('' and '' when it does not). Answers 1
   * (relayed), 2 (the sender is muted: relayed to no one), 3 (a ban ended the chat for the
   * sender), 0 (not the sender's chat, or ended) or -1 (no such chat). While the chat runs with
   * nobody muted its stream has the name EV, so the XADD finding it is the check: a message is
   * then two commands, and the chat's hash is read only when it finds none.
   */
  send: `
local known, to, other, id = ARGV[A + 5], ARGV[A + 6], nil, nil
if known ~= '' then
  other = known == 'a' and 'b' or 'a'
  id = redis.call('XADD', EV, 'NOMKSTREAM', 'MAXLEN', '~', ARGV[A + 4], '*', 'm', ARGV[A + 2], other,
    ARGV[A + 3])
end
if not id then
  local h = redis.call('HMGET', CHAT, 'a', 'b', 'ended', 'ma', 'mb', 'x')
  if not h[1] then return -1 end
  local side
  if h[1] == ARGV[A + 1] then side, to, other = 'a', h[2], 'b' elseif h[2] == ARGV[A + 1] then side, to, other = 'b', h[1], 'a' else return 0 end
  if h[3] then
    if h[6] == side then return 3 end
    return 0
  end
  if (tonumber(side == 'a' and h[4] or h[5]) or 0) > now then return 2 end
  local S = EVC
  if redis.call('EXISTS', EV) == 1 then
    S = EV
  elseif (tonumber(side == 'a' and h[5] or h[4]) or 0) <= now and redis.call('EXISTS', EVC) == 1 then
    -- The mutes have run out: the next messages need no checks again.
    redis.call('RENAME', EVC, EV)
    if not KEYS[4] then
      -- What gate does, written out: a function would be made on every call of this one.
      local open = '!\t' .. ID .. '\t' .. redis.call('HINCRBY', CHAT, 'g', 1) .. '\t0'
      redis.call('PUBLISH', CH .. h[1], open)
      redis.call('PUBLISH', CH .. h[2], open)
    end
    S = EV
  end
  id = redis.call('XADD', S, 'MAXLEN', '~', ARGV[A + 4], '*', 'm', ARGV[A + 2], other, ARGV[A + 3])
end
-- What announce does, written out: the commonest script, and making the function costs ~2 µs.
local payload = ID .. '.' .. id .. '\\t' .. ARGV[A + 3]
if KEYS[4] then
  redis.call('SPUBLISH', other == 'a' and KEYS[4] or KEYS[5], payload)
else
  redis.call('PUBLISH', CH .. to, payload)
end
return 1
`,
  /**
   * ARGV: a, b (as the pool knew them), keep ms, the most events kept, a's event, b's event
   * ('' for none), the side a ban ended it for ('' for none). Ends the chat; answers 0 when it
   * had ended already. A chat that never opened is marked ended, so a late open does not start
   * it, and the events go out as events outside a chat.
   */
  finish: `
local h = redis.call('HMGET', CHAT, 'a', 'b', 'ended')
local keep, ea, eb = ARGV[A + 3], ARGV[A + 5], ARGV[A + 6]
if not h[1] then
  redis.call('HSET', CHAT, 'ended', now)
  redis.call('PEXPIRE', CHAT, keep)
  if ea ~= '' then redis.call('PUBLISH', CH .. ARGV[A + 1], '-\\t' .. ea) end
  if eb ~= '' then redis.call('PUBLISH', CH .. ARGV[A + 2], '-\\t' .. eb) end
  return 0
end
if h[3] then return 0 end
redis.call('HSET', CHAT, 'ended', now, 'x', ARGV[A + 7])
-- From now on every message goes through the checks, which refuse it.
if redis.call('EXISTS', EV) == 1 then redis.call('RENAME', EV, EVC) end
local entry = {}
if ea ~= '' then entry[#entry + 1] = 'a'; entry[#entry + 1] = ea end
if eb ~= '' then entry[#entry + 1] = 'b'; entry[#entry + 1] = eb end
if #entry > 0 then
  local id = redis.call('XADD', EVC, 'MAXLEN', '~', ARGV[A + 4], '*', unpack(entry))
  if ea ~= '' then announce(h[1], id, ea, nil, 'a') end
  if eb ~= '' then announce(h[2], id, eb, nil, 'b') end
end
redis.call('PEXPIRE', CHAT, keep)
redis.call('PEXPIRE', EVC, keep)
return 1
`,
  /**
   * ARGV: side, until, the most events kept, the event telling that side ('' when told
   * elsewhere). That side's messages reach no one until then.
   */
  mute: `
local field = 'm' .. ARGV[A + 1]
if tonumber(ARGV[A + 2]) > (tonumber(redis.call('HGET', CHAT, field)) or 0) then
  redis.call('HSET', CHAT, field, ARGV[A + 2])
end
local h = redis.call('HMGET', CHAT, 'a', 'b', 'ended')
-- The muted side's messages go through the checks from now on (and reach no one).
if redis.call('EXISTS', EV) == 1 then
  redis.call('RENAME', EV, EVC)
  if h[1] and not h[3] then gate(h[1], h[2], 1) end
end
if ARGV[A + 4] ~= '' and h[1] and not h[3] then
  local id = redis.call('XADD', EVC, 'MAXLEN', '~', ARGV[A + 3], '*', ARGV[A + 1], ARGV[A + 4])
  announce(ARGV[A + 1] == 'a' and h[1] or h[2], id, ARGV[A + 4], nil, ARGV[A + 1])
end
return 1
`,
  /**
   * ARGV: visitor, after (a stream id; '-' for everything kept, '$' for only the last id).
   * Answers the visitor's side, the stream's last id, its gate (the count of its changes, and 1
   * closed / 0 open: see gate), then pairs of id and event for that side, or nothing when the
   * chat is not kept or not theirs.
   */
  read: `
local h = redis.call('HMGET', CHAT, 'a', 'b', 'g')
local side
if h[1] == ARGV[A + 1] then side = 'a' elseif h[2] == ARGV[A + 1] then side = 'b' else return false end
local open = redis.call('EXISTS', EV) == 1
local S = open and EV or EVC
local last = redis.call('XREVRANGE', S, '+', '-', 'COUNT', 1)[1]
local out = { side, last and last[1] or '0-0', h[3] or '0', open and '0' or '1' }
if ARGV[A + 2] == '$' then return out end
local from = '-'
if ARGV[A + 2] ~= '-' then from = '(' .. ARGV[A + 2] end
for _, entry in ipairs(redis.call('XRANGE', S, from, '+')) do
  local fields = entry[2]
  for i = 1, #fields, 2 do
    if fields[i] == side then
      out[#out + 1] = entry[1]
      out[#out + 1] = fields[i + 1]
    end
  end
end
return out
`,
  /**
   * ARGV: visitor, message id, how many events to look back. A message the visitor's partner
   * sent them in this chat: its event, its sender and their address.
   */
  held: `
local h = redis.call('HMGET', CHAT, 'a', 'b', 'ipa', 'ipb')
local side, sender, ip
if h[1] == ARGV[A + 1] then side, sender, ip = 'a', h[2], h[4]
elseif h[2] == ARGV[A + 1] then side, sender, ip = 'b', h[1], h[3]
else return false end
local S = redis.call('EXISTS', EV) == 1 and EV or EVC
for _, entry in ipairs(redis.call('XREVRANGE', S, '+', '-', 'COUNT', ARGV[A + 3])) do
  local fields = entry[2]
  local message, json = nil, nil
  for i = 1, #fields, 2 do
    if fields[i] == 'm' then message = fields[i + 1] elseif fields[i] == side then json = fields[i + 1] end
  end
  if message == ARGV[A + 2] then
    if json then return { json, sender, ip or '' } end
    return false
  end
end
return false
`,
  /** ARGV: visitor. Whether the chat is kept, running, and theirs (after Redis came back). */
  alive: `
local h = redis.call('HMGET', CHAT, 'a', 'b', 'ended')
if h[3] then return 0 end
if h[1] == ARGV[A + 1] or h[2] == ARGV[A + 1] then return 1 end
return 0
`,
} as const;

export type ChatScript = keyof typeof CHAT_SCRIPTS;

export function chatScriptSource(name: ChatScript): string {
  return withShared(PRELUDE, SHARED, CHAT_SCRIPTS[name]);
}
