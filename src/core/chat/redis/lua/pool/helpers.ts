import { lua } from "../lua.ts";
import { MATCHING_RULE } from "./matching-rule.ts";

/**
 * The helpers the pool's scripts share, in the order they are defined (one may call those
 * above it). Uses the inputs named in prelude.ts.
 */
export const POOL_HELPERS = lua`
-- A visitor's field in the visitors hash.
local function field(visitor, name) return visitor .. '|' .. name end

-- An event outside any chat: not kept, so its id ('-') names no place to resume from.
local function tell(visitor, json)
  redis.call('PUBLISH', visitor_channel_prefix .. visitor, '-\t' .. json)
end

-- Until when the visitor or their address is banned, or nil.
local function banned_until(visitor, ip)
  local ends = redis.call('HMGET', bans, 'visitor:' .. visitor, 'ip:' .. (ip or ''))
  local until_ms = math.max(tonumber(ends[1]) or 0, tonumber(ends[2]) or 0)
  if until_ms > now then return until_ms end
  return nil
end

-- An instance: 'live' (its heartbeat is fresh and its subscriber connected), 'quiet' (fresh
-- heartbeat, subscriber reconnecting; or no heartbeat since Redis came back) or 'dead'. A
-- killed instance's connection closes with it, so it is never 'live' a moment after it died,
-- whatever its last heartbeat says.
local instance_states = {}
local function instance_state(instance)
  local state = instance_states[instance]
  if state then return state end
  if instance == this_instance then
    state = 'live'
  else
    local beat = tonumber(redis.call('ZSCORE', heartbeats, instance))
    if not beat then
      -- Not beaten since Redis came back empty (or gone and swept): not heard, not dead.
      state = 'quiet'
    elseif now - beat > heartbeat_vouches_ms then
      state = 'dead'
    elseif redis.call('PUBSUB', 'SHARDNUMSUB', life_channel_prefix .. instance)[2] > 0 then
      state = 'live'
    else
      state = 'quiet'
    end
  end
  instance_states[instance] = state
  return state
end

-- 'yes' when a stream of the visitor is open on a live instance; 'dead' when every instance
-- that held one has died; 'no' otherwise (none opened yet, or only on a reconnecting one).
local function listening(instances)
  local any, all_dead = false, true
  for instance in string.gmatch(instances or '', '%S+') do
    any = true
    local state = instance_state(instance)
    if state == 'live' then return 'yes' end
    if state ~= 'dead' then all_dead = false end
  end
  if any and all_dead then return 'dead' end
  return 'no'
end

-- A space-separated list of instances, without one, or with it (once).
local function without(instances, instance)
  local kept = {}
  for other in string.gmatch(instances or '', '%S+') do
    if other ~= instance then kept[#kept + 1] = other end
  end
  return table.concat(kept, ' ')
end

local function with(instances, instance)
  local list = without(instances, instance)
  if list == '' then return instance end
  return list .. ' ' .. instance
end

-- Two visitors as one name, the same whichever comes first.
local function pair_name(x, y)
  if x < y then return x .. '|' .. y end
  return y .. '|' .. x
end

-- A relation lasting until a time; the later end wins.
local function relate(relation, until_ms)
  if until_ms <= now or until_ms <= (tonumber(redis.call('HGET', relations, relation)) or 0) then
    return
  end
  redis.call('HSET', relations, relation, until_ms)
  redis.call('ZADD', relation_ends, until_ms, relation)
end

-- Whether a waiting visitor suits the one looking: 'yes'; 'later' for recent partners (they meet
-- again only when both have waited long enough alone); 'no' while either blocked the other, by
-- visitor or by the other's address. Shared languages and interests: see the matching rule.
local function suits(me, my_ip, other, other_ip)
  local both = pair_name(me, other)
  local ends = redis.call('HMGET', relations, 'blocked:' .. both,
    'blocked_address:' .. me .. '|' .. other_ip, 'blocked_address:' .. other .. '|' .. my_ip,
    'parted:' .. both)
  for i = 1, 3 do if (tonumber(ends[i]) or 0) > now then return 'no' end end
  if (tonumber(ends[4]) or 0) > now then return 'later' end
  return 'yes'
end

local function waited_enough(since) return now - (tonumber(since) or now) >= meet_again_after_ms end

-- What a waiting visitor asked of a match, kept only while they wait: anyone_from (when anyone
-- will do; none: at once), languages (" en ja "), interest_keys (each between newlines), asked
-- (what they asked, as JSON, for telling what two share).
local ASKED_FIELDS = { 'anyone_from', 'languages', 'interest_keys', 'asked' }

local function forget_asked(...)
  local names = {}
  for _, visitor in ipairs({ ... }) do
    for _, name in ipairs(ASKED_FIELDS) do names[#names + 1] = field(visitor, name) end
  end
  redis.call('HDEL', visitors, unpack(names))
end

-- Whether a seeker asked anything of a match (kept until they are paired).
local function asks(seeker)
  return seeker.anyone_from ~= 0 or seeker.languages or seeker.interest_keys or seeker.asked
end

-- A waiting visitor's ticket: "<number>", or "<number> <chat id> <instance>" when that instance
-- subscribed the chat id's side "a" channel ahead (on a Cluster: see redis/sides.ts), to be
-- paired in that chat. Answers the chat id and instance, or nil.
local function ready_in(ticket)
  local _, chat_id, instance = string.match(ticket or '', '^(%S+) (%S+) (%S+)$')
  return chat_id, instance
end

-- A visitor as the matching rule reads them: what they asked added to 'seeker' ('' is none).
local function seeker_asking(seeker, anyone_from, languages, interest_keys, asked)
  seeker.anyone_from = tonumber(anyone_from) or 0
  if languages and languages ~= '' then seeker.languages = languages end
  if interest_keys and interest_keys ~= '' then seeker.interest_keys = interest_keys end
  if asked and asked ~= '' then seeker.asked = asked end
  return seeker
end

-- Adds to the visitor's writes what they asked, as the pool keeps it while they wait.
local function keep_asked(visitor, seeker, writes)
  for _, name in ipairs(ASKED_FIELDS) do
    local value = seeker[name]
    if value and value ~= 0 then
      writes[#writes + 1] = field(visitor, name)
      writes[#writes + 1] = value
    end
  end
end
${MATCHING_RULE}
local function leave_line(visitor)
  redis.call('ZREM', waiting_line, visitor)
  redis.call('HSET', visitors, field(visitor, 'ticket'), '')
  forget_asked(visitor)
end

-- What a side of a chat tells the chat's own script: the answer's field names are read by
-- redis/pairing.ts (PairSide).
local function pair_side(visitor, seeker)
  return { id = visitor, ip = seeker.ip, country = seeker.country,
    mute = seeker.muted_until, prefs = seeker.asked, inst = seeker.instances }
end

-- Pairs the longer-waiting 'first' with 'second' in chat 'chat_id'; 'writes' are more fields to
-- set in the same step. Answers what the chat's own script needs to open it.
local function pair(first, first_seeker, second, second_seeker, chat_id, writes)
  redis.call('ZREM', waiting_line, first, second)
  writes = writes or {}
  local ready
  local ready_chat, ready_instance = ready_in(first_seeker.ticket)
  if ready_chat then
    -- The chat id the waiting visitor's instance is ready for; never to be used again.
    chat_id = ready_chat
    writes[#writes + 1] = field(first, 'used_chat')
    writes[#writes + 1] = chat_id
    -- Where they hear "matched": only there when no other instance holds a stream of theirs.
    ready = first_seeker.instances == ready_instance and 'side' or 'both'
  end
  for _, side in ipairs({ { first, 'a', second }, { second, 'b', first } }) do
    local visitor = side[1]
    for _, name_value in ipairs({ { 'ticket', '' }, { 'chat', chat_id }, { 'side', side[2] },
      { 'partner', side[3] } }) do
      writes[#writes + 1] = field(visitor, name_value[1])
      writes[#writes + 1] = name_value[2]
    end
  end
  redis.call('HSET', visitors, unpack(writes))
  if asks(first_seeker) or asks(second_seeker) then forget_asked(first, second) end
  redis.call('HINCRBY', stats, 'chats', 1)
  local a, b = pair_side(first, first_seeker), pair_side(second, second_seeker)
  a.inst = nil
  return { paired = { chat = chat_id, ready = ready, a = a, b = b } }
end

-- A waiting visitor as the matching rule and pair read them, from their fields.
local SEEKER_FIELDS = { 'ip', 'instances', 'waiting_since', 'country_code', 'country_name',
  'muted_until', 'anyone_from', 'languages', 'interest_keys', 'asked', 'ticket' }
local function waiting_seeker(visitor)
  local names = {}
  for i, name in ipairs(SEEKER_FIELDS) do names[i] = field(visitor, name) end
  local v = redis.call('HMGET', visitors, unpack(names))
  return seeker_asking({ ip = v[1] or '', instances = v[2], waiting_since = v[3],
    country = { code = v[4] or '', name = v[5] or '' }, muted_until = v[6] or '', ticket = v[11] },
    v[7], v[8], v[9], v[10])
end

-- Pairs waiting visitor 'me' (listening) with a visitor who listens, is not banned and suits
-- them, by the matching rule: the longest-waiting of the best tier; a recent partner only when
-- both waited long enough and nobody else suits. The tier is read first: a visitor who could not
-- change the choice costs no more lookups, and the first of the best tier 'me' can reach is
-- taken at once. Visitors looked at whose instances all died, and banned ones, leave the pool.
local function match(me, my_seeker, chat_id, writes)
  local best = best_tier_of(my_seeker)
  local language, language_seeker, anyone, anyone_seeker, again, again_seeker
  for _, other in ipairs(redis.call('ZRANGE', waiting_line, 0, pool_scan - 1)) do
    if other ~= me then
      local seeker = waiting_seeker(other)
      local tier = tier_of(my_seeker, seeker)
      local state = 'no'
      if could_change_choice(tier, language, anyone) then state = listening(seeker.instances) end
      if state == 'dead' or (state == 'yes' and banned_until(other, seeker.ip)) then
        leave_line(other)
      elseif state == 'yes' then
        local suited = suits(me, my_seeker.ip, other, seeker.ip)
        if suited == 'later' then
          if not again and waited_enough(my_seeker.waiting_since)
            and waited_enough(seeker.waiting_since) then
            again, again_seeker = other, seeker
          end
        elseif suited == 'no' then
          -- blocked
        elseif tier == best then
          return pair(other, seeker, me, my_seeker, chat_id, writes)
        elseif tier == 1 then
          language, language_seeker = other, seeker
        else
          anyone, anyone_seeker = other, seeker
        end
      end
    end
  end
  if language then return pair(language, language_seeker, me, my_seeker, chat_id, writes) end
  if anyone then return pair(anyone, anyone_seeker, me, my_seeker, chat_id, writes) end
  if again then return pair(again, again_seeker, me, my_seeker, chat_id, writes) end
  return nil
end

-- Where the visitor stands, with what the instances holding their streams keep of the chat.
-- The answer's field names are read by redis/local.ts (PoolStatus).
local function status(visitor)
  local s = redis.call('HMGET', visitors, field(visitor, 'ticket'), field(visitor, 'chat'),
    field(visitor, 'side'), field(visitor, 'partner'), field(visitor, 'ip'),
    field(visitor, 'country_code'), field(visitor, 'country_name'), field(visitor, 'instances'),
    field(visitor, 'present_since'))
  local ticket, chat, side, partner = s[1], s[2], s[3], s[4]
  local out = { state = 'idle', ip = s[5] or '', country = { code = s[6] or '', name = s[7] or '' },
    inst = s[8] or '', present = s[9] and true or false }
  if chat and chat ~= '' then
    local p = redis.call('HMGET', visitors, field(partner, 'country_code'),
      field(partner, 'country_name'))
    out.state, out.chat, out.side, out.pt = 'chatting', chat, side, partner
    out.partner_country = { code = p[1] or '', name = p[2] or '' }
  elseif ticket and ticket ~= '' then
    out.state = 'waiting'
  end
  return out
end

-- Takes the visitor out of the pool (telling them 'idle' when asked) or out of their chat, whose
-- partner is out of it too; the two prefer others for a while. Answers the chat to end on its own
-- slot ({ chat, side, pt, visitor }), if there was one, and whether there was anything to leave.
local function leave(visitor, tell_idle)
  local s = redis.call('HMGET', visitors, field(visitor, 'ticket'), field(visitor, 'chat'),
    field(visitor, 'side'), field(visitor, 'partner'))
  local ticket, chat, side, partner = s[1], s[2], s[3], s[4]
  if ticket and ticket ~= '' then
    leave_line(visitor)
    if tell_idle then tell(visitor, '{"type":"idle"}') end
    return nil, true
  end
  if not chat or chat == '' then return nil, false end
  redis.call('HSET', visitors, field(visitor, 'chat'), '')
  if partner and redis.call('HGET', visitors, field(partner, 'chat')) == chat then
    redis.call('HSET', visitors, field(partner, 'chat'), '')
  end
  if partner then
    local parted = 'parted:' .. pair_name(visitor, partner)
    redis.call('HSET', relations, parted, now + prefer_others_ms)
    redis.call('ZADD', relation_ends, now + prefer_others_ms, parted)
  end
  redis.call('HINCRBY', stats, 'chats', -1)
  return { chat = chat, side = side, pt = partner or '', visitor = visitor }, true
end

-- A visitor present from now on (counted once).
local function arrive(visitor, present, writes)
  if present then return end
  writes[#writes + 1] = field(visitor, 'present_since')
  writes[#writes + 1] = now
  redis.call('HINCRBY', stats, 'present', 1)
end

-- Every field a visitor may have; all let go of when they are gone.
local VISITOR_FIELDS = { 'ip', 'country_code', 'country_name', 'present_since', 'waiting_since',
  'ticket', 'chat', 'side', 'partner', 'instances', 'muted_until', 'anyone_from', 'languages',
  'interest_keys', 'asked', 'used_chat' }
local function forget(visitor, ip)
  local names = {}
  for i, name in ipairs(VISITOR_FIELDS) do names[i] = field(visitor, name) end
  if redis.call('HDEL', visitors, unpack(names)) > 0 then
    redis.call('HINCRBY', stats, 'present', -1)
  end
  if ip and ip ~= '' then redis.call('ZREM', by_address, ip .. '|' .. visitor) end
end

-- Notes the visitor's address (bans and mutes by address find them by it); answers their mute.
local function sighted(visitor, old_ip, ip, writes)
  if old_ip and old_ip ~= '' then redis.call('ZREM', by_address, old_ip .. '|' .. visitor) end
  redis.call('ZADD', by_address, 0, ip .. '|' .. visitor)
  local ends = redis.call('HMGET', mutes, 'visitor:' .. visitor, 'ip:' .. ip)
  local until_ms = math.max(tonumber(ends[1]) or 0, tonumber(ends[2]) or 0)
  local muted_until = ''
  if until_ms > now then muted_until = tostring(until_ms) end
  writes[#writes + 1] = field(visitor, 'muted_until')
  writes[#writes + 1] = muted_until
  return muted_until
end

-- The visitors an address covers.
local function from_address(ip)
  local out = {}
  local first, last = '[' .. ip .. '|', '[' .. ip .. '|\255'
  for _, entry in ipairs(redis.call('ZRANGEBYLEX', by_address, first, last)) do
    out[#out + 1] = string.sub(entry, #ip + 2)
  end
  return out
end
`;
