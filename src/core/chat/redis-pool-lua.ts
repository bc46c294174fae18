import { withShared } from "../redis-script.ts";

/**
 * The pool's steps on Redis (keys in redis-keys.ts), each one Lua script, so it is one atomic
 * step for every instance: pairing can never hand one visitor to two chats. Every script gets
 * the pool's keys (KEYS, in RedisKeys.poolKeys order) and these ARGV first; its own follow:
 *   1 now (ms), 2 the visitors' channel prefix, 3 the instances' life channel prefix,
 *   4 the calling instance, 5 how long a heartbeat vouches for an instance (ms),
 *   6 how many waiting visitors one look at the pool reads, 7 how long two recent partners
 *   both wait alone before meeting again (ms), 8 how long recent partners prefer others (ms).
 * Scripts answer JSON (cjson), read by redis-broker.ts.
 */
export const POOL_ARGS = 8;

const PRELUDE = `
local Q, T, VIS, GONE, HB, REL, RELX, IPV, BANS, MUTES, STATS, EPOCH, LEASE, ON =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11], KEYS[12], KEYS[13], KEYS[14]
local now = tonumber(ARGV[1])
local CH, LIFE, SELF = ARGV[2], ARGV[3], ARGV[4]
local hbTtl, scanLimit = tonumber(ARGV[5]), tonumber(ARGV[6])
local meetAgain, skipPartner = tonumber(ARGV[7]), tonumber(ARGV[8])
local A = ${POOL_ARGS}
`;

/** What the pool's scripts share; each script is made with only those it uses (withShared). */
const SHARED = `
local function f(v, name) return v .. '|' .. name end

-- An event outside any chat: not kept, so its id ('-') names no place to resume from.
local function tell(v, json) redis.call('PUBLISH', CH .. v, '-\\t' .. json) end

local function bannedUntil(v, ip)
  local b = redis.call('HMGET', BANS, 'visitor:' .. v, 'ip:' .. (ip or ''))
  local u = math.max(tonumber(b[1]) or 0, tonumber(b[2]) or 0)
  if u > now then return u end
  return nil
end

-- An instance: 'live' (its heartbeat is fresh and its subscriber connected), 'quiet' (fresh
-- heartbeat, subscriber reconnecting) or 'dead'. A killed instance's connection closes with it,
-- so it is never 'live' a moment after it died, whatever its last heartbeat says.
local instances = {}
local function instance(inst)
  local s = instances[inst]
  if s then return s end
  if inst == SELF then
    s = 'live'
  else
    local beat = tonumber(redis.call('ZSCORE', HB, inst))
    if not beat or now - beat > hbTtl then
      s = 'dead'
    elseif redis.call('PUBSUB', 'SHARDNUMSUB', LIFE .. inst)[2] > 0 then
      s = 'live'
    else
      s = 'quiet'
    end
  end
  instances[inst] = s
  return s
end

-- 'yes' when a stream of the visitor is open on a live instance; 'dead' when every instance
-- that held one has died; 'no' otherwise (none opened yet, or only on a reconnecting one).
local function listening(insts)
  local any, dead = false, true
  for inst in string.gmatch(insts or '', '%S+') do
    any = true
    local s = instance(inst)
    if s == 'live' then return 'yes' end
    if s ~= 'dead' then dead = false end
  end
  if any and dead then return 'dead' end
  return 'no'
end

local function without(insts, inst)
  local kept = {}
  for i in string.gmatch(insts or '', '%S+') do if i ~= inst then kept[#kept + 1] = i end end
  return table.concat(kept, ' ')
end

local function with(insts, inst)
  local list = without(insts, inst)
  if list == '' then return inst end
  return list .. ' ' .. inst
end

local function pairOf(x, y)
  if x < y then return x .. '|' .. y end
  return y .. '|' .. x
end

-- A relation lasting until a time; the later end wins.
local function relate(field, untilMs)
  if untilMs <= now or untilMs <= (tonumber(redis.call('HGET', REL, field)) or 0) then return end
  redis.call('HSET', REL, field, untilMs)
  redis.call('ZADD', RELX, untilMs, field)
end

-- Whether a waiting visitor suits the one looking: 'yes'; 'later' for recent partners (they meet
-- again only when both have waited long enough alone); 'no' while either blocked the other, by
-- visitor or by the other's address. Shared languages and interests: see tier.
local function compatible(me, myIp, other, otherIp)
  local pair = pairOf(me, other)
  local r = redis.call('HMGET', REL, 'b:' .. pair, 'i:' .. me .. '|' .. otherIp,
    'i:' .. other .. '|' .. myIp, 'p:' .. pair)
  for i = 1, 3 do if (tonumber(r[i]) or 0) > now then return 'no' end end
  if (tonumber(r[4]) or 0) > now then return 'later' end
  return 'yes'
end

local function waitedEnough(since) return now - (tonumber(since) or now) >= meetAgain end

-- What a waiting visitor asked of a match, kept only while they wait: anyone (when anyone will
-- do; none: at once), langs (" en ja "), ikeys (interest keys, each between newlines), prefs
-- (what they asked, as JSON, for telling what two share).
local PREFS = { 'anyone', 'langs', 'ikeys', 'prefs' }
local function forgetAsked(...)
  local names = {}
  for _, v in ipairs({ ... }) do
    for _, name in ipairs(PREFS) do names[#names + 1] = f(v, name) end
  end
  redis.call('HDEL', VIS, unpack(names))
end

-- Whether a visitor's info says they asked anything of a match (kept until they are paired).
local function asks(info) return info.anyone ~= 0 or info.langs or info.ikeys or info.prefs end

-- A waiting visitor's ticket (their 'q'): "<number>", or "<number> <chat id> <instance>" when
-- that instance subscribed the chat id's side "a" channel ahead (on a Cluster: see
-- redis-broker.ts), to be paired in that chat. Answers the chat id and instance, or nil.
local function readyIn(ticket)
  local _, id, inst = string.match(ticket or '', '^(%S+) (%S+) (%S+)$')
  return id, inst
end

-- A visitor's asked fields as the matching rule reads them ('' is none).
local function asked(info, anyone, langs, ikeys, prefs)
  info.anyone = tonumber(anyone) or 0
  if langs and langs ~= '' then info.langs = langs end
  if ikeys and ikeys ~= '' then info.ikeys = ikeys end
  if prefs and prefs ~= '' then info.prefs = prefs end
  return info
end

-- Adds to the visitor's writes what they asked, as the pool keeps it while they wait.
local function keepAsked(v, mine, writes)
  for _, name in ipairs(PREFS) do
    local value = mine[name]
    if value and value ~= 0 then
      writes[#writes + 1] = f(v, name)
      writes[#writes + 1] = value
    end
  end
end

local function shares(list, other, sep)
  for item in string.gmatch(list, '[^' .. sep .. ']+') do
    if string.find(other, sep .. item .. sep, 1, true) then return true end
  end
  return false
end

-- The matching rule (preferences.ts states it too): 2 a shared language and interest, 1 a
-- shared language, 0 anyone once both accept anyone, -1 while either still waits for a language.
local function tier(a, b)
  if a.langs and b.langs and shares(a.langs, b.langs, ' ') then
    if a.ikeys and b.ikeys and shares(a.ikeys, b.ikeys, '\\n') then return 2 end
    return 1
  end
  if now >= a.anyone and now >= b.anyone then return 0 end
  return -1
end

local function unqueue(v)
  redis.call('ZREM', Q, v)
  redis.call('HSET', VIS, f(v, 'q'), '')
  forgetAsked(v)
end

-- Pairs the longer-waiting 'first' with 'second' in chat 'chatId'; 'writes' are more fields to
-- set in the same step. Answers what the chat's own script needs to open it.
local function pair(first, fi, second, si, chatId, writes)
  redis.call('ZREM', Q, first, second)
  local w = writes or {}
  local ready
  local id, inst = readyIn(fi.q)
  if id then
    -- The chat id the waiting visitor's instance is ready for; never to be used again.
    chatId = id
    w[#w + 1] = f(first, 'used')
    w[#w + 1] = chatId
    -- Where they hear "matched": only there when no other instance holds a stream of theirs.
    ready = fi.inst == inst and 'side' or 'both'
  end
  for _, x in ipairs({ { first, 'a', second }, { second, 'b', first } }) do
    local v = x[1]
    for _, kv in ipairs({ { 'q', '' }, { 'chat', chatId }, { 'side', x[2] }, { 'pt', x[3] } }) do
      w[#w + 1] = f(v, kv[1])
      w[#w + 1] = kv[2]
    end
  end
  redis.call('HSET', VIS, unpack(w))
  if asks(fi) or asks(si) then forgetAsked(first, second) end
  redis.call('HINCRBY', STATS, 'chats', 1)
  return { paired = { chat = chatId, ready = ready,
    a = { id = first, ip = fi.ip, cc = fi.cc, co = fi.co, mute = fi.mute, prefs = fi.prefs },
    b = { id = second, ip = si.ip, cc = si.cc, co = si.co, mute = si.mute, prefs = si.prefs,
      inst = si.inst } } }
end

-- Pairs waiting visitor 'me' (listening) with a visitor who listens, is not banned and suits
-- them, by the matching rule: the longest-waiting of the best tier; a recent partner only when
-- both waited long enough and nobody else suits. The tier is read first: a visitor who could not
-- change the choice costs no more lookups, and the first of the best tier 'me' can reach is
-- taken at once. Visitors looked at whose instances all died, and banned ones, leave the pool.
local function match(me, mine, chatId, writes)
  local best = (not mine.langs and 0) or (not mine.ikeys and 1) or 2
  local language, languageInfo, anyone, anyoneInfo, again, againInfo
  for _, other in ipairs(redis.call('ZRANGE', Q, 0, scanLimit - 1)) do
    if other ~= me then
      local o = redis.call('HMGET', VIS, f(other, 'ip'), f(other, 'inst'), f(other, 'since'),
        f(other, 'cc'), f(other, 'co'), f(other, 'mute'), f(other, 'anyone'), f(other, 'langs'),
        f(other, 'ikeys'), f(other, 'prefs'), f(other, 'q'))
      local oi = asked({ ip = o[1] or '', since = o[3], cc = o[4] or '', co = o[5] or '',
        mute = o[6] or '', q = o[11], inst = o[2] }, o[7], o[8], o[9], o[10])
      local t = tier(mine, oi)
      -- Whether they could change the choice: a better tier than found, or a recent partner
      -- while nobody else was found.
      local worth = t == 2 or (t == 1 and not language) or (t == 0 and not language and not anyone)
      local state = worth and listening(o[2]) or 'no'
      if state == 'dead' then
        unqueue(other)
      elseif state == 'yes' then
        if bannedUntil(other, oi.ip) then
          unqueue(other)
        else
          local c = compatible(me, mine.ip, other, oi.ip)
          if c == 'later' then
            if not again and waitedEnough(mine.since) and waitedEnough(oi.since) then
              again, againInfo = other, oi
            end
          elseif c == 'no' then
            -- blocked
          elseif t == best then
            return pair(other, oi, me, mine, chatId, writes)
          elseif t == 1 then
            language, languageInfo = other, oi
          else
            anyone, anyoneInfo = other, oi
          end
        end
      end
    end
  end
  if language then return pair(language, languageInfo, me, mine, chatId, writes) end
  if anyone then return pair(anyone, anyoneInfo, me, mine, chatId, writes) end
  if again then return pair(again, againInfo, me, mine, chatId, writes) end
  return nil
end

-- Where the visitor stands, with what the instances holding their streams keep of the chat.
local function status(v)
  local s = redis.call('HMGET', VIS, f(v, 'q'), f(v, 'chat'), f(v, 'side'), f(v, 'pt'),
    f(v, 'ip'), f(v, 'cc'), f(v, 'co'), f(v, 'inst'), f(v, 'at'))
  local out = { state = 'idle', ip = s[5] or '', cc = s[6] or '', co = s[7] or '', inst = s[8] or '',
    present = s[9] and true or false }
  if s[2] and s[2] ~= '' then
    local p = redis.call('HMGET', VIS, f(s[4], 'cc'), f(s[4], 'co'))
    out.state, out.chat, out.side, out.pt = 'chatting', s[2], s[3], s[4]
    out.pcc, out.pco = p[1] or '', p[2] or ''
  elseif s[1] and s[1] ~= '' then
    out.state = 'waiting'
  end
  return out
end

-- Takes the visitor out of the pool (telling them 'idle' when asked) or out of their chat, whose
-- partner is out of it too; the two prefer others for a while. Answers the chat to end on its own
-- slot ({ chat, side, pt }), if there was one, and whether there was anything to leave.
local function leave(v, tellIdle)
  local s = redis.call('HMGET', VIS, f(v, 'q'), f(v, 'chat'), f(v, 'side'), f(v, 'pt'))
  if s[1] and s[1] ~= '' then
    unqueue(v)
    if tellIdle then tell(v, '{"type":"idle"}') end
    return nil, true
  end
  local chat, pt = s[2], s[4]
  if not chat or chat == '' then return nil, false end
  redis.call('HSET', VIS, f(v, 'chat'), '')
  if pt and redis.call('HGET', VIS, f(pt, 'chat')) == chat then
    redis.call('HSET', VIS, f(pt, 'chat'), '')
  end
  if pt then
    local field = 'p:' .. pairOf(v, pt)
    redis.call('HSET', REL, field, now + skipPartner)
    redis.call('ZADD', RELX, now + skipPartner, field)
  end
  redis.call('HINCRBY', STATS, 'chats', -1)
  return { chat = chat, side = s[3], pt = pt or '', visitor = v }, true
end

-- A visitor present from now on (counted once).
local function arrive(v, present, writes)
  if present then return end
  writes[#writes + 1] = f(v, 'at')
  writes[#writes + 1] = now
  redis.call('HINCRBY', STATS, 'present', 1)
end

local FIELDS = { 'ip', 'cc', 'co', 'at', 'since', 'q', 'chat', 'side', 'pt', 'inst', 'mute',
  'anyone', 'langs', 'ikeys', 'prefs', 'used' }
local function forget(v, ip)
  local names = {}
  for i, name in ipairs(FIELDS) do names[i] = f(v, name) end
  if redis.call('HDEL', VIS, unpack(names)) > 0 then redis.call('HINCRBY', STATS, 'present', -1) end
  if ip and ip ~= '' then redis.call('ZREM', IPV, ip .. '|' .. v) end
end

-- Notes the visitor's address (bans and mutes by address find them by it); answers their mute.
local function sighted(v, oldIp, ip, writes)
  if oldIp and oldIp ~= '' then redis.call('ZREM', IPV, oldIp .. '|' .. v) end
  redis.call('ZADD', IPV, 0, ip .. '|' .. v)
  local m = redis.call('HMGET', MUTES, 'visitor:' .. v, 'ip:' .. ip)
  local untilMs = math.max(tonumber(m[1]) or 0, tonumber(m[2]) or 0)
  local mute = ''
  if untilMs > now then mute = tostring(untilMs) end
  writes[#writes + 1] = f(v, 'mute')
  writes[#writes + 1] = mute
  return mute
end

-- The visitors an address covers.
local function fromAddress(ip)
  local out = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', IPV, '[' .. ip .. '|', '[' .. ip .. '|\\255')) do
    out[#out + 1] = string.sub(m, #ip + 2)
  end
  return out
end
`;

/** The scripts: each is the prelude and a body; their own ARGV follow the shared ones. */
/** The restore script takes each visitor as this many arguments (see restore below). */
export const RESTORE_ARGS = 12;

export const POOL_SCRIPTS = {
  /**
   * ARGV: visitor, ip, country code ('' for none), country, the chat id to use if paired, how
   * long until anyone will do (ms), languages (" en ja ", '' for none asked), interest keys
   * (each between newlines, or ''), what they asked as JSON ('' for nothing), the chat id the
   * instance is ready for them to be paired in while they wait ('' for none). Joins the pool,
   * or answers the chat or wait already in progress (another tab). Answers spent = true when
   * that ready chat id was used already.
   */
  start: `
local v, ip, cc, co, chatId = ARGV[A + 1], ARGV[A + 2], ARGV[A + 3], ARGV[A + 4], ARGV[A + 5]
local fallback = tonumber(ARGV[A + 6]) or 0
local banned = bannedUntil(v, ip)
if banned then return cjson.encode({ banned = banned }) end
local s = redis.call('HMGET', VIS, f(v, 'at'), f(v, 'ip'), f(v, 'q'), f(v, 'chat'), f(v, 'inst'), f(v, 'mute'), f(v, 'used'))
local ready, spent = ARGV[A + 10], nil
if ready == '' then ready = nil
elseif ready == s[7] then ready, spent = nil, true
else ready = ready .. ' ' .. SELF end
if (s[4] and s[4] ~= '') or (s[3] and s[3] ~= '') then return cjson.encode({ status = status(v) }) end
local writes = { f(v, 'cc'), cc, f(v, 'co'), co, f(v, 'since'), now }
arrive(v, s[1], writes)
if not s[1] and (not s[5] or s[5] == '') then
  -- Pressed start before any stream opened: the grace period runs until one does.
  redis.call('ZADD', GONE, 'NX', now, v)
end
local mute = s[6] or ''
if s[2] ~= ip then
  writes[#writes + 1] = f(v, 'ip')
  writes[#writes + 1] = ip
  mute = sighted(v, s[2], ip, writes)
end
local mine = asked({ ip = ip, cc = cc, co = co, mute = mute, since = now, inst = s[5] },
  fallback > 0 and now + fallback or nil, ARGV[A + 7], ARGV[A + 8], ARGV[A + 9])
if listening(s[5]) == 'yes' then
  local paired = match(v, mine, chatId, writes)
  if paired then
    paired.spent = spent
    return cjson.encode(paired)
  end
end
-- Kept only while they wait (pairing and leaving the pool drop them).
keepAsked(v, mine, writes)
local ticket = redis.call('INCR', T)
-- Their place in line is kept from now, but with no stream open anywhere they could not hear of
-- a match: they join the line a look at the pool reads when their first stream opens (attach),
-- so presses that never listen keep nobody else from being paired.
if s[5] and s[5] ~= '' then redis.call('ZADD', Q, ticket, v) end
writes[#writes + 1] = f(v, 'q')
writes[#writes + 1] = ready and (ticket .. ' ' .. ready) or ticket
redis.call('HSET', VIS, unpack(writes))
tell(v, '{"type":"waiting"}')
return cjson.encode({ status = { state = 'waiting' }, spent = spent })
`,
  /** ARGV: visitor, the chat id to use if paired. Pairs a waiting visitor if anyone suits now. */
  match: `
local v, chatId = ARGV[A + 1], ARGV[A + 2]
local s = redis.call('HMGET', VIS, f(v, 'q'), f(v, 'inst'), f(v, 'ip'), f(v, 'cc'), f(v, 'co'), f(v, 'mute'), f(v, 'since'),
  f(v, 'anyone'), f(v, 'langs'), f(v, 'ikeys'), f(v, 'prefs'))
if not s[1] or s[1] == '' or listening(s[2]) ~= 'yes' then return cjson.encode({}) end
local mine = asked({ ip = s[3] or '', cc = s[4] or '', co = s[5] or '', mute = s[6] or '', since = s[7],
  inst = s[2] },
  s[8], s[9], s[10], s[11])
return cjson.encode(match(v, mine, chatId) or {})
`,
  /**
   * ARGV: visitor, the chat id to use if paired. A waiting visitor takes anyone from now on;
   * paired at once if anyone suits.
   */
  widen: `
local v, chatId = ARGV[A + 1], ARGV[A + 2]
local s = redis.call('HMGET', VIS, f(v, 'q'), f(v, 'inst'), f(v, 'ip'), f(v, 'cc'), f(v, 'co'), f(v, 'mute'), f(v, 'since'),
  f(v, 'langs'), f(v, 'ikeys'), f(v, 'prefs'))
if not s[1] or s[1] == '' then return cjson.encode({}) end
redis.call('HDEL', VIS, f(v, 'anyone'))
if listening(s[2]) ~= 'yes' then return cjson.encode({}) end
local mine = asked({ ip = s[3] or '', cc = s[4] or '', co = s[5] or '', mute = s[6] or '', since = s[7],
  inst = s[2] },
  nil, s[8], s[9], s[10])
return cjson.encode(match(v, mine, chatId) or {})
`,
  /** ARGV: visitor. */
  status: `return cjson.encode({ status = status(ARGV[A + 1]) })`,
  /**
   * ARGV: visitor, the chat id to use if paired. The calling instance holds a stream of the
   * visitor from now on; a waiting visitor can be paired now. Answers where they stood first.
   */
  attach: `
local v, chatId = ARGV[A + 1], ARGV[A + 2]
local before = status(v)
local writes = { f(v, 'inst'), with(before.inst, SELF) }
arrive(v, before.present, writes)
redis.call('HSET', VIS, unpack(writes))
redis.call('SADD', ON, v)
redis.call('ZREM', GONE, v)
local out = { status = before }
if before.state == 'waiting' then
  local s = redis.call('HMGET', VIS, f(v, 'mute'), f(v, 'since'), f(v, 'anyone'), f(v, 'langs'),
    f(v, 'ikeys'), f(v, 'prefs'), f(v, 'q'))
  local mine = asked({ ip = before.ip, cc = before.cc, co = before.co, mute = s[1] or '', since = s[2] },
    s[3], s[4], s[5], s[6])
  local paired = match(v, mine, chatId)
  if paired then
    out.paired = paired.paired
  else
    -- Pressed start before any stream opened: into the line now, in the place they pressed for.
    redis.call('ZADD', Q, 'NX', tonumber(string.match(s[7], '^%d+')), v)
  end
end
return cjson.encode(out)
`,
  /**
   * ARGV: visitor. The calling instance holds no stream of the visitor any more; with none left
   * anywhere, a waiting visitor leaves the pool at once and the grace period starts.
   */
  detach: `
local v = ARGV[A + 1]
redis.call('SREM', ON, v)
local s = redis.call('HMGET', VIS, f(v, 'inst'), f(v, 'at'), f(v, 'q'))
if not s[2] then return 0 end
local insts = without(s[1], SELF)
redis.call('HSET', VIS, f(v, 'inst'), insts)
if insts == '' then
  -- The grace period is for resuming a chat, not for being paired meanwhile.
  if s[3] and s[3] ~= '' then
    unqueue(v)
    tell(v, '{"type":"idle"}')
  end
  redis.call('ZADD', GONE, now, v)
end
return 1
`,
  /**
   * ARGV: visitor, '1' to leave only when no other instance holds a stream of theirs. Leaves the
   * pool or the chat; answers the chat to end on its slot.
   */
  leave: `
local v = ARGV[A + 1]
if ARGV[A + 2] == '1' and without(redis.call('HGET', VIS, f(v, 'inst')), SELF) ~= '' then
  return cjson.encode({})
end
local chat = leave(v, true)
return cjson.encode({ chat = chat })
`,
  /** ARGV: visitor, until. Ends the chat and keeps the two apart, by visitor and by address. */
  block: `
local v, untilMs = ARGV[A + 1], tonumber(ARGV[A + 2])
local s = status(v)
if s.state ~= 'chatting' then return cjson.encode({}) end
local ptIp = redis.call('HGET', VIS, f(s.pt, 'ip')) or ''
relate('b:' .. pairOf(v, s.pt), untilMs)
relate('i:' .. v .. '|' .. ptIp, untilMs)
local chat = leave(v, false)
return cjson.encode({ chat = chat, blocked = { id = s.pt, ip = ptIp, cc = s.pcc, co = s.pco } })
`,
  /** ARGV: blocker, blocked visitor, blocked address, until. */
  remember: `
relate('b:' .. pairOf(ARGV[A + 1], ARGV[A + 2]), tonumber(ARGV[A + 4]))
relate('i:' .. ARGV[A + 1] .. '|' .. ARGV[A + 3], tonumber(ARGV[A + 4]))
return 1
`,
  /**
   * ARGV: visitor, address, until, the mutes channel. Mutes the visitor and everyone on the
   * address, announced to every instance's copy of the mutes; answers the chats their sides are
   * muted in.
   */
  mute: `
local v, ip, untilMs = ARGV[A + 1], ARGV[A + 2], tonumber(ARGV[A + 3])
for _, key in ipairs({ 'visitor:' .. v, 'ip:' .. ip }) do
  if untilMs > (tonumber(redis.call('HGET', MUTES, key)) or 0) then
    redis.call('HSET', MUTES, key, untilMs)
    redis.call('PUBLISH', ARGV[A + 4], ARGV[A + 3] .. ' ' .. key)
  end
end
local covered = fromAddress(ip)
covered[#covered + 1] = v
local chats, seen, inChat = {}, {}, false
for _, x in ipairs(covered) do
  if not seen[x] then
    seen[x] = true
    local s = redis.call('HMGET', VIS, f(x, 'at'), f(x, 'mute'), f(x, 'chat'), f(x, 'side'))
    if s[1] then
      if untilMs > (tonumber(s[2]) or 0) then redis.call('HSET', VIS, f(x, 'mute'), untilMs) end
      if s[3] and s[3] ~= '' then
        chats[#chats + 1] = { chat = s[3], side = s[4], visitor = x }
        if x == v then inChat = true end
      end
    end
  end
end
-- In a chat, the chat's own script tells them (kept in its stream); otherwise, here.
if not inChat then tell(v, '{"type":"muted","until":' .. ARGV[A + 3] .. '}') end
return cjson.encode({ chats = chats })
`,
  /**
   * ARGV: pairs of a ban key ('visitor:<id>' or 'ip:<hash>') and its end. Ends what the visitors
   * they cover are doing and tells each once, until the latest end among their keys (in their
   * chat's stream when they were chatting: answered here, for the chat's own script).
   */
  ban: `
local covered, order = {}, {}
local function cover(v, untilMs)
  if not covered[v] then order[#order + 1] = v end
  covered[v] = math.max(covered[v] or 0, untilMs)
end
for i = A + 1, #ARGV, 2 do
  local key, untilMs = ARGV[i], tonumber(ARGV[i + 1])
  if untilMs > now and untilMs > (tonumber(redis.call('HGET', BANS, key)) or 0) then
    redis.call('HSET', BANS, key, untilMs)
  end
  if string.sub(key, 1, 8) == 'visitor:' then
    local v = string.sub(key, 9)
    if redis.call('HEXISTS', VIS, f(v, 'at')) == 1 then cover(v, untilMs) end
  else
    for _, v in ipairs(fromAddress(string.sub(key, 4))) do cover(v, untilMs) end
  end
end
local chats = {}
for _, v in ipairs(order) do
  local chat = leave(v, false)
  if chat then
    chat['until'] = covered[v]
    chats[#chats + 1] = chat
  else
    tell(v, '{"type":"banned","until":' .. string.format('%d', covered[v]) .. '}')
  end
end
return cjson.encode({ chats = chats })
`,
  /**
   * ARGV: grace ms, the most visitors to let go of in one step, the most past relations, bans
   * or mutes to read in one look, then cursors ('-' to skip) for letting past bans and mutes go.
   * Answers the instances whose heartbeat stopped, the chats of visitors gone past the grace
   * period, to end on their slots, and whether more are gone than one step took.
   */
  sweep: `
local grace, batch, page = tonumber(ARGV[A + 1]), tonumber(ARGV[A + 2]), tonumber(ARGV[A + 3])
local dead = redis.call('ZRANGEBYSCORE', HB, '-inf', now - hbTtl, 'LIMIT', 0, 10)
local chats = {}
local gone = redis.call('ZRANGEBYSCORE', GONE, '-inf', now - grace, 'LIMIT', 0, batch)
for _, v in ipairs(gone) do
  local s = redis.call('HMGET', VIS, f(v, 'inst'), f(v, 'ip'))
  if not s[1] or s[1] == '' then
    local chat = leave(v, false)
    if chat then chats[#chats + 1] = chat end
    forget(v, s[2])
  end
  redis.call('ZREM', GONE, v)
end
local past = redis.call('ZRANGEBYSCORE', RELX, '-inf', now, 'LIMIT', 0, page)
if #past > 0 then
  redis.call('HDEL', REL, unpack(past))
  redis.call('ZREM', RELX, unpack(past))
end
local cursors = {}
for i, hash in ipairs({ BANS, MUTES }) do
  local cursor = ARGV[A + 3 + i]
  if cursor ~= '-' then
    local scanned = redis.call('HSCAN', hash, cursor, 'COUNT', page)
    local over = {}
    for j = 1, #scanned[2], 2 do
      if (tonumber(scanned[2][j + 1]) or 0) <= now then over[#over + 1] = scanned[2][j] end
    end
    if #over > 0 then redis.call('HDEL', hash, unpack(over)) end
    cursors[i] = scanned[1]
  else
    cursors[i] = '-'
  end
end
return cjson.encode({ dead = dead, chats = chats, cursors = cursors, more = #gone == batch })
`,
  /**
   * KEYS' last is the instance's set. ARGV: a dead instance (or the caller, stopping), the most
   * to take in one step. Its visitors lose it; those left with no stream anywhere start their
   * grace period from its last heartbeat (or now, for the caller), and a waiting one leaves the
   * pool. Answers how many remain.
   */
  orphan: `
local inst, batch = ARGV[A + 1], tonumber(ARGV[A + 2])
local since = now
if inst ~= SELF then
  local beat = tonumber(redis.call('ZSCORE', HB, inst))
  if beat and now - beat <= hbTtl then return 0 end
  since = math.min(beat or now, now)
end
for _, v in ipairs(redis.call('SPOP', ON, batch)) do
  local s = redis.call('HMGET', VIS, f(v, 'inst'), f(v, 'at'), f(v, 'q'))
  if s[2] then
    local insts = without(s[1], inst)
    redis.call('HSET', VIS, f(v, 'inst'), insts)
    if insts == '' then
      if s[3] and s[3] ~= '' then unqueue(v) end
      redis.call('ZADD', GONE, 'NX', since, v)
    end
  end
end
local left = redis.call('SCARD', ON)
if left == 0 then redis.call('ZREM', HB, inst) end
return left
`,
  /**
   * ARGV: the calling instance's visitors as groups of visitor, state ('idle', 'waiting' or
   * 'chatting'), chat, side, partner, ip, country code, country, and what a waiting one asked
   * (when anyone will do, languages, interest keys, JSON; each '' when nothing). After Redis
   * restarted empty, the instance tells it again whom it holds, as they were; waiting ones
   * rejoin the pool with what they asked.
   */
  restore: `
for i = A + 1, #ARGV, ${RESTORE_ARGS} do
  local v, state, chat, side, pt = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local ip, cc, co = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7]
  local s = redis.call('HMGET', VIS, f(v, 'at'), f(v, 'inst'), f(v, 'ip'), f(v, 'chat'), f(v, 'q'))
  local writes = { f(v, 'inst'), with(s[2], SELF) }
  arrive(v, s[1], writes)
  if ip ~= '' and s[3] ~= ip then
    writes[#writes + 1] = f(v, 'ip')
    writes[#writes + 1] = ip
    sighted(v, s[3], ip, writes)
  end
  if cc ~= '' or co ~= '' then
    for _, kv in ipairs({ { 'cc', cc }, { 'co', co } }) do
      writes[#writes + 1] = f(v, kv[1])
      writes[#writes + 1] = kv[2]
    end
  end
  local busy = (s[4] and s[4] ~= '') or (s[5] and s[5] ~= '')
  if state == 'chatting' and not busy then
    for _, kv in ipairs({ { 'chat', chat }, { 'side', side }, { 'pt', pt } }) do
      writes[#writes + 1] = f(v, kv[1])
      writes[#writes + 1] = kv[2]
    end
    if side == 'a' then redis.call('HINCRBY', STATS, 'chats', 1) end
  elseif state == 'waiting' and not busy then
    writes[#writes + 1] = f(v, 'since')
    writes[#writes + 1] = now
    keepAsked(v, asked({}, ARGV[i + 8], ARGV[i + 9], ARGV[i + 10], ARGV[i + 11]), writes)
    writes[#writes + 1] = f(v, 'q')
    writes[#writes + 1] = redis.call('INCR', T)
    redis.call('ZADD', Q, writes[#writes], v)
  end
  redis.call('HSET', VIS, unpack(writes))
  redis.call('SADD', ON, v)
  redis.call('ZREM', GONE, v)
end
return 1
`,
  /**
   * ARGV: chat, and its two visitors. The chat's own keys are gone (its node restarted empty, or
   * it never opened): both leave it, and hear that it was lost (a fresh status).
   */
  lost: `
local chat = ARGV[A + 1]
local ended = false
for i = A + 2, A + 3 do
  local v = ARGV[i]
  if v ~= '' and redis.call('HGET', VIS, f(v, 'chat')) == chat then
    redis.call('HSET', VIS, f(v, 'chat'), '')
    ended = true
    tell(v, '{"type":"status","status":{"state":"idle"}}')
  end
end
if ended then redis.call('HINCRBY', STATS, 'chats', -1) end
return 1
`,
  counts: `
local s = redis.call('HMGET', STATS, 'chats', 'present')
return cjson.encode({ waiting = redis.call('ZCARD', Q), chatting = math.max(0, tonumber(s[1]) or 0),
  present = math.max(0, tonumber(s[2]) or 0) })
`,
} as const;

export type PoolScript = keyof typeof POOL_SCRIPTS;

/** Each pool script as Redis runs it: the prelude, what it uses of the shared, its body. */
export function poolScriptSource(name: PoolScript): string {
  return withShared(PRELUDE, SHARED, POOL_SCRIPTS[name]);
}

/**
 * ARGV: now, instance, a new epoch, the instance's life channel. KEYS: the heartbeats, the
 * epoch. The instance is alive; the answer is Redis's epoch, which changes only when Redis lost
 * its state, and how many subscribe to the life channel here (none: the instance's sharded
 * subscriptions were lost).
 */
export const BEAT = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local listening = redis.call('PUBSUB', 'SHARDNUMSUB', ARGV[4])[2]
local epoch = redis.call('GET', KEYS[2])
if epoch then return { epoch, listening } end
redis.call('SET', KEYS[2], ARGV[3])
return { ARGV[3], listening }
`;

/**
 * KEYS: the lease. ARGV: instance, ms. Takes the lease when nobody holds it (SET NX PX) or
 * extends it for its holder; answers whether the caller holds it now.
 */
export const LEASE_TAKE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`;

/** KEYS: the lease. ARGV: instance. Lets it go, only if the caller holds it. */
export const LEASE_RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
