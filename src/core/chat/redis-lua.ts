/**
 * The chat's steps on Redis, each one Lua script so it runs as one atomic step for every
 * instance: pairing can never hand one visitor to two chats, and an event is appended to a
 * visitor's stream and announced to the instances holding that stream in the same step.
 *
 * Every script gets the key prefix as ARGV[1] and the time (ms) as ARGV[2]; the rest follow.
 * Keys, under the prefix:
 *   ticket             INCR counter: the pool's order, first come first served, no clocks
 *   pool               ZSET visitor -> ticket
 *   v:<id>             HASH ip, cc, country, chat (current chat id), since (joined the pool);
 *                      while in the pool only: anyone (when anyone will do), and when they
 *                      asked for any: langs (" en ja "), ikeys (each between newlines), prefs (JSON)
 *   alive:<id>         count of open streams, with a TTL the holding instances refresh
 *   where:<id>         SET of instances holding a stream of the visitor
 *   present            ZSET visitor -> last seen (stream open or closed at); swept after the grace
 *   ev:<id>            STREAM of the visitor's events; its ids are the streams' tracked ids
 *   chat:<id>          HASH a, b, ended
 *   msgs:<id>          LIST of the chat's last messages (JSON), for reports
 *   vchats:<id>        LIST of the visitor's recent chat ids
 *   chats              SET of running chats
 *   parted:<a>|<b>     set while two visitors who parted prefer others
 *   ban:<key>          until, while a ban ("visitor:<id>", "ip:<hash>") lasts
 *   ip:<hash>          SET of visitors seen from an address (bans by address end their chats)
 *   block:<a>|<b>      set while one of the two blocked the other
 *   blockip:<v>|<hash> set while visitor v blocked everyone from that address
 *   mute:<id>          until, while the visitor's messages reach no one
 *   mute:ip:<hash>     until, while the messages of everyone on that address reach no one
 * Channel inbox:<instance> carries "<visitor> <event id> <event JSON>" for each event.
 */
export function prelude(cfg: {
  skipPartnerMs: number;
  keepEndedMs: number;
  meetAgainAfterMs: number;
}): string {
  return `
local K = ARGV[1]
local now = tonumber(ARGV[2])
local cfg = { skipPartnerMs = ${cfg.skipPartnerMs}, keepEndedMs = ${cfg.keepEndedMs}, meetAgainAfterMs = ${cfg.meetAgainAfterMs} }

-- An event table, or its JSON already encoded (cjson writes an empty list as {}).
local function push(v, event)
  local key = K .. 'ev:' .. v
  local json = type(event) == 'string' and event or cjson.encode(event)
  local id = redis.call('XADD', key, 'MAXLEN', '~', 200, '*', 'e', json)
  -- Long enough to resume after any grace period, short enough not to pile up (ten minutes).
  redis.call('PEXPIRE', key, 600000)
  for _, inst in ipairs(redis.call('SMEMBERS', K .. 'where:' .. v)) do
    redis.call('PUBLISH', K .. 'inbox:' .. inst, v .. ' ' .. id .. ' ' .. json)
  end
  return id
end

local function partnerOf(v)
  local h = redis.call('HMGET', K .. 'v:' .. v, 'cc', 'country')
  return { countryCode = h[1] or cjson.null, country = h[2] or 'Unknown' }
end

local function banned(v)
  if redis.call('EXISTS', K .. 'ban:visitor:' .. v) == 1 then return true end
  local ip = redis.call('HGET', K .. 'v:' .. v, 'ip')
  return ip and redis.call('EXISTS', K .. 'ban:ip:' .. ip) == 1
end

local function currentChat(v)
  local chat = redis.call('HGET', K .. 'v:' .. v, 'chat')
  if not chat or chat == '' then return nil end
  local h = redis.call('HMGET', K .. 'chat:' .. chat, 'a', 'b', 'ended')
  if not h[1] or (h[3] and h[3] ~= '') then return nil end
  return { id = chat, a = h[1], b = h[2] }
end

-- Leaves the pool; what the visitor asked of a match goes with it. True when they were in it.
local function unpool(v)
  if redis.call('ZREM', K .. 'pool', v) == 0 then return false end
  redis.call('HDEL', K .. 'v:' .. v, 'anyone', 'langs', 'ikeys', 'prefs')
  return true
end

local function status(v)
  local chat = currentChat(v)
  if chat then
    local other = chat.a == v and chat.b or chat.a
    return { state = 'chatting', chatId = chat.id, partner = partnerOf(other) }
  end
  if redis.call('ZSCORE', K .. 'pool', v) then return { state = 'waiting' } end
  return { state = 'idle' }
end

local function pairKey(a, b)
  if a < b then return K .. 'parted:' .. a .. '|' .. b end
  return K .. 'parted:' .. b .. '|' .. a
end

local function blockKey(a, b)
  if a < b then return K .. 'block:' .. a .. '|' .. b end
  return K .. 'block:' .. b .. '|' .. a
end

local function finish(chat, tellA, tellB)
  redis.call('HSET', K .. 'chat:' .. chat.id, 'ended', now)
  redis.call('SREM', K .. 'chats', chat.id)
  redis.call('SET', pairKey(chat.a, chat.b), '1', 'PX', cfg.skipPartnerMs)
  redis.call('PEXPIRE', K .. 'chat:' .. chat.id, cfg.keepEndedMs)
  redis.call('PEXPIRE', K .. 'msgs:' .. chat.id, cfg.keepEndedMs)
  for _, side in ipairs({ { chat.a, tellA }, { chat.b, tellB } }) do
    redis.call('HSET', K .. 'v:' .. side[1], 'chat', '')
    if side[2] then
      push(side[1], { type = 'typing', chatId = chat.id, isTyping = false })
      push(side[1], { type = 'partner-left', chatId = chat.id })
    end
  end
end

-- Leaves the pool or the chat; the partner hears it. True when there was something to leave.
local function leave(v)
  if unpool(v) then
    push(v, { type = 'idle' })
    return true
  end
  local chat = currentChat(v)
  if not chat then return false end
  finish(chat, chat.a ~= v, chat.b ~= v)
  push(v, { type = 'idle' })
  return true
end

-- Whether either blocked the other, by visitor or by the other's address.
local function blocked(a, b)
  if redis.call('EXISTS', blockKey(a, b)) == 1 then return true end
  local aip = redis.call('HGET', K .. 'v:' .. a, 'ip') or ''
  local bip = redis.call('HGET', K .. 'v:' .. b, 'ip') or ''
  return redis.call('EXISTS', K .. 'blockip:' .. a .. '|' .. bip) == 1
    or redis.call('EXISTS', K .. 'blockip:' .. b .. '|' .. aip) == 1
end

local function list(t)
  if #t == 0 then return '[]' end
  return cjson.encode(t)
end

-- The "matched" event for one side: the partner's country, and what the two share in that
-- side's own words when either asked for anything.
local function matched(id, to, toPrefs, other, otherPrefs)
  local json = cjson.encode({ type = 'matched', chatId = id, partner = partnerOf(other) })
  if not toPrefs and not otherPrefs then return json end
  local languages, interests = {}, {}
  if toPrefs then
    local theirs = otherPrefs or { languages = {}, interests = {} }
    for _, l in ipairs(toPrefs.languages) do
      for _, m in ipairs(theirs.languages) do
        if l == m then languages[#languages + 1] = l break end
      end
    end
    for _, i in ipairs(toPrefs.interests) do
      for _, j in ipairs(theirs.interests) do
        if i.key == j.key then interests[#interests + 1] = i.label break end
      end
    end
  end
  return string.sub(json, 1, -2) .. ',"shared":{"languages":' .. list(languages)
    .. ',"interests":' .. list(interests) .. '}}'
end

local function prefsOf(v)
  local json = redis.call('HGET', K .. 'v:' .. v, 'prefs')
  if not json then return nil end
  return cjson.decode(json)
end

local function pair(first, second)
  local id = ARGV[#ARGV]
  local firstPrefs, secondPrefs = prefsOf(first), prefsOf(second)
  redis.call('HSET', K .. 'chat:' .. id, 'a', first, 'b', second, 'ended', '')
  redis.call('SADD', K .. 'chats', id)
  for _, v in ipairs({ first, second }) do
    unpool(v)
    redis.call('HSET', K .. 'v:' .. v, 'chat', id)
    redis.call('LPUSH', K .. 'vchats:' .. v, id)
    redis.call('LTRIM', K .. 'vchats:' .. v, 0, 9)
    redis.call('PEXPIRE', K .. 'vchats:' .. v, cfg.keepEndedMs)
  end
  push(first, matched(id, first, firstPrefs, second, secondPrefs))
  push(second, matched(id, second, secondPrefs, first, firstPrefs))
  return { state = 'chatting', chatId = id, partner = partnerOf(first) }
end

-- A waiting visitor as the matching rule sees them: when anyone will do, their languages as
-- " en ja " and interest keys each between newlines (found with plain string.find).
local function seeker(v)
  local h = redis.call('HMGET', K .. 'v:' .. v, 'anyone', 'langs', 'ikeys')
  return { anyone = tonumber(h[1] or '0'), langs = h[2], ikeys = h[3] }
end

local function shares(list, other, sep)
  for item in string.gmatch(list, '[^' .. sep .. ']+') do
    if string.find(other, sep .. item .. sep, 1, true) then return true end
  end
  return false
end

-- The matching rule, as preferences.ts states it: 2 a shared language and interest, 1 a shared
-- language, 0 anyone once both accept anyone, -1 while either still insists on a language.
local function tier(a, b)
  if a.langs and b.langs and shares(a.langs, b.langs, ' ') then
    if a.ikeys and b.ikeys and shares(a.ikeys, b.ikeys, '\\n') then return 2 end
    return 1
  end
  if now >= a.anyone and now >= b.anyone then return 0 end
  return -1
end

-- Pairs a waiting, listening visitor with another who is listening, not banned, not blocked and
-- not a recent partner, by the matching rule: the longest-waiting of the best tier. A recent
-- partner only when both waited long enough alone and nobody else fits.
local function match(me)
  if not redis.call('ZSCORE', K .. 'pool', me) then return nil end
  if redis.call('EXISTS', K .. 'alive:' .. me) == 0 then return nil end
  local waited = function(v)
    local since = tonumber(redis.call('HGET', K .. 'v:' .. v, 'since') or now)
    return now - since >= cfg.meetAgainAfterMs
  end
  local mine = seeker(me)
  local language, anyone, again = nil, nil, nil
  for _, other in ipairs(redis.call('ZRANGE', K .. 'pool', 0, 499)) do
    if other ~= me and redis.call('EXISTS', K .. 'alive:' .. other) == 1 then
      if banned(other) then
        unpool(other)
      elseif not blocked(me, other) then
        local t = tier(mine, seeker(other))
        if t < 0 then
          -- not yet: one of them still waits for a shared language
        elseif redis.call('EXISTS', pairKey(me, other)) == 1 then
          if not again and waited(me) and waited(other) then again = other end
        elseif t == 2 then
          return pair(other, me)
        elseif t == 1 then
          language = language or other
        else
          anyone = anyone or other
        end
      end
    end
  end
  local chosen = language or anyone or again
  if chosen then return pair(chosen, me) end
  return nil
end

local function encode(value)
  if value == nil then return nil end
  return cjson.encode(value)
end
`;
}

/** The scripts: each is the prelude and a body; ARGV after the prefix and time as named. */
export const SCRIPTS = {
  /**
   * ARGV: visitor, ip, country code ('' for none), country, how long until anyone will do (ms),
   * languages (" en ja ", or '' for none asked), interest keys (each between newlines, or ''), what they
   * asked as JSON ('' for nothing), chat id to use if paired.
   */
  start: `
local v = ARGV[3]
local hash = K .. 'v:' .. v
redis.call('HSET', hash, 'ip', ARGV[4], 'country', ARGV[6])
if ARGV[5] == '' then redis.call('HDEL', hash, 'cc') else redis.call('HSET', hash, 'cc', ARGV[5]) end
redis.call('PEXPIRE', hash, 86400000)
redis.call('SADD', K .. 'ip:' .. ARGV[4], v)
redis.call('PEXPIRE', K .. 'ip:' .. ARGV[4], 86400000)
if banned(v) then return cjson.encode({ banned = true }) end
local current = status(v)
if current.state ~= 'idle' then return cjson.encode(current) end
redis.call('ZADD', K .. 'pool', redis.call('INCR', K .. 'ticket'), v)
redis.call('HSET', hash, 'since', now, 'anyone', now + tonumber(ARGV[7]))
redis.call('HDEL', hash, 'langs', 'ikeys', 'prefs')
if ARGV[8] ~= '' then redis.call('HSET', hash, 'langs', ARGV[8]) end
if ARGV[9] ~= '' then redis.call('HSET', hash, 'ikeys', ARGV[9]) end
if ARGV[10] ~= '' then redis.call('HSET', hash, 'prefs', ARGV[10]) end
if not redis.call('ZSCORE', K .. 'present', v) then redis.call('ZADD', K .. 'present', now, v) end
push(v, { type = 'waiting' })
return cjson.encode(match(v) or { state = 'waiting' })
`,
  /** ARGV: visitor, chat id to use if paired. Pairs a waiting visitor if anyone fits now. */
  match: "return encode(match(ARGV[3]))",
  /** ARGV: visitor, chat id to use if paired. A waiting visitor takes anyone from now on. */
  widen: `
local v = ARGV[3]
if not redis.call('ZSCORE', K .. 'pool', v) then return nil end
local anyone = tonumber(redis.call('HGET', K .. 'v:' .. v, 'anyone') or now)
if anyone > now then redis.call('HSET', K .. 'v:' .. v, 'anyone', now) end
return encode(match(v))
`,
  /** ARGV: visitor. */
  status: "return cjson.encode(status(ARGV[3]))",
  /** ARGV: visitor, instance, alive TTL ms, chat id to use if paired. A stream opens. */
  attach: `
local v = ARGV[3]
redis.call('INCR', K .. 'alive:' .. v)
redis.call('PEXPIRE', K .. 'alive:' .. v, ARGV[5])
redis.call('SADD', K .. 'where:' .. v, ARGV[4])
redis.call('PEXPIRE', K .. 'where:' .. v, ARGV[5])
redis.call('ZADD', K .. 'present', now, v)
match(v)
local last = redis.call('XREVRANGE', K .. 'ev:' .. v, '+', '-', 'COUNT', 1)[1]
return cjson.encode({ status = status(v), lastId = last and last[1] or '0-0' })
`,
  /** ARGV: visitor, instance. A stream closes; a waiting visitor with none left leaves the pool. */
  detach: `
local v = ARGV[3]
local left = redis.call('DECR', K .. 'alive:' .. v)
redis.call('ZADD', K .. 'present', now, v)
if left <= 0 then
  redis.call('DEL', K .. 'alive:' .. v)
  redis.call('SREM', K .. 'where:' .. v, ARGV[4])
  if unpool(v) then push(v, { type = 'idle' }) end
end
return left
`,
  /** ARGV: instance, alive TTL ms, then visitors. Streams still open: keep them alive. */
  refresh: `
for i = 5, #ARGV do
  local v = ARGV[i]
  redis.call('PEXPIRE', K .. 'alive:' .. v, ARGV[4])
  redis.call('SADD', K .. 'where:' .. v, ARGV[3])
  redis.call('PEXPIRE', K .. 'where:' .. v, ARGV[4])
  redis.call('ZADD', K .. 'present', now, v)
end
return #ARGV - 4
`,
  /**
   * ARGV: visitor, content, message id, then '1' when the message holds contact details.
   * Answers the sender's copy (the only one they get), or an error code. A muted sender's
   * message (by visitor or by address) reaches no one.
   */
  send: `
local v = ARGV[3]
local chat = currentChat(v)
if not chat then return cjson.encode({ error = 'NOT_FOUND' }) end
if banned(v) then return cjson.encode({ error = 'CHAT_BANNED' }) end
local ip = redis.call('HGET', K .. 'v:' .. v, 'ip') or ''
local receiver = chat.a == v and chat.b or chat.a
local sender = partnerOf(v)
local held = { id = ARGV[5], senderVisitorId = v, senderIpKey = ip, content = ARGV[4], timestamp = now }
redis.call('RPUSH', K .. 'msgs:' .. chat.id, cjson.encode(held))
redis.call('LTRIM', K .. 'msgs:' .. chat.id, -50, -1)
local function message(from)
  local m = { id = held.id, content = held.content, timestamp = now, countryCode = sender.countryCode, country = sender.country, from = from }
  if ARGV[6] == '1' then m.contact = true end
  return m
end
if redis.call('EXISTS', K .. 'mute:' .. v) == 0 and redis.call('EXISTS', K .. 'mute:ip:' .. ip) == 0 then
  push(receiver, { type = 'message', chatId = chat.id, message = message('partner') })
end
return cjson.encode({ message = message('me') })
`,
  /** ARGV: visitor, typing ('1' or '0'). */
  typing: `
local v = ARGV[3]
local chat = currentChat(v)
if not chat then return 0 end
local receiver = chat.a == v and chat.b or chat.a
push(receiver, { type = 'typing', chatId = chat.id, isTyping = ARGV[4] == '1' })
return 1
`,
  /** ARGV: visitor. */
  end: "leave(ARGV[3]) return 1",
  /** ARGV: visitor, until. Ends the chat and keeps the two apart; answers who was blocked. */
  block: `
local v = ARGV[3]
local chat = currentChat(v)
if not chat then return nil end
local other = chat.a == v and chat.b or chat.a
local ip = redis.call('HGET', K .. 'v:' .. other, 'ip') or ''
local ttl = tonumber(ARGV[4]) - now
if ttl > 0 then
  redis.call('SET', blockKey(v, other), '1', 'PX', ttl)
  redis.call('SET', K .. 'blockip:' .. v .. '|' .. ip, '1', 'PX', ttl)
end
leave(v)
local p = partnerOf(other)
return cjson.encode({ visitorId = other, ipKey = ip, country = p })
`,
  /** ARGV: blocker, blocked visitor, blocked address, until. */
  rememberBlock: `
local ttl = tonumber(ARGV[6]) - now
if ttl <= 0 then return 0 end
redis.call('SET', blockKey(ARGV[3], ARGV[4]), '1', 'PX', ttl)
redis.call('SET', K .. 'blockip:' .. ARGV[3] .. '|' .. ARGV[5], '1', 'PX', ttl)
return 1
`,
  /** ARGV: visitor, address, until. */
  mute: `
local ttl = tonumber(ARGV[5]) - now
if ttl > 0 then
  redis.call('SET', K .. 'mute:' .. ARGV[3], ARGV[5], 'PX', ttl)
  redis.call('SET', K .. 'mute:ip:' .. ARGV[4], ARGV[5], 'PX', ttl)
end
push(ARGV[3], { type = 'muted', ['until'] = tonumber(ARGV[5]) })
return 1
`,
  /**
   * ARGV: pairs of a ban key ('visitor:<id>' or 'ip:<hash>') and its end. Ends the chats they
   * cover and tells each visitor covered once, until the latest end among their keys.
   */
  ban: `
local covered, order = {}, {}
local function cover(v, untilMs)
  if not covered[v] then order[#order + 1] = v end
  covered[v] = math.max(covered[v] or 0, untilMs)
end
for i = 3, #ARGV, 2 do
  local key, untilMs = ARGV[i], tonumber(ARGV[i + 1])
  local current = tonumber(redis.call('GET', K .. 'ban:' .. key) or '0')
  if untilMs > now and untilMs > current then
    redis.call('SET', K .. 'ban:' .. key, untilMs, 'PX', untilMs - now)
  end
  if string.sub(key, 1, 8) == 'visitor:' then
    cover(string.sub(key, 9), untilMs)
  else
    for _, v in ipairs(redis.call('SMEMBERS', K .. 'ip:' .. string.sub(key, 4))) do cover(v, untilMs) end
  end
end
for _, v in ipairs(order) do
  leave(v)
  push(v, { type = 'banned', ['until'] = covered[v] })
end
return #order
`,
  /**
   * ARGV: grace ms, the most to look at. Visitors whose streams stayed closed past the grace
   * period leave (their partners hear it); their presence ends.
   */
  sweep: `
local gone = redis.call('ZRANGEBYSCORE', K .. 'present', '-inf', now - tonumber(ARGV[3]), 'LIMIT', 0, tonumber(ARGV[4]))
local n = 0
for _, v in ipairs(gone) do
  if redis.call('EXISTS', K .. 'alive:' .. v) == 1 then
    redis.call('ZADD', K .. 'present', now, v)
  else
    leave(v)
    redis.call('ZREM', K .. 'present', v)
    n = n + 1
  end
end
return n
`,
  counts: `
return cjson.encode({
  waiting = redis.call('ZCARD', K .. 'pool'),
  chatting = redis.call('SCARD', K .. 'chats'),
  present = redis.call('ZCARD', K .. 'present'),
})
`,
} as const;

export type ScriptName = keyof typeof SCRIPTS;
