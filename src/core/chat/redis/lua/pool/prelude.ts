/**
 * What every pool script starts with: its inputs named once, then the helpers the scripts share,
 * each a plain Lua function. KEYS are the pool's keys in RedisKeys.poolKeys order (see
 * redis/keys.ts for what each holds); ARGV start with the arguments every pool script gets (the
 * first POOL_ARGS), then the script's own, from ARGV[A + 1] on.
 */
export const POOL_ARGS = 8;

export const POOL_INPUTS = `
local waiting_line = KEYS[1]     -- ZSET visitor -> ticket, first come first served
local last_ticket = KEYS[2]      -- STRING
local visitors = KEYS[3]         -- HASH "<visitor>|<field>" -> value
local gone = KEYS[4]             -- ZSET visitor -> since when no stream is open anywhere
local heartbeats = KEYS[5]       -- ZSET instance -> its last heartbeat
local relations = KEYS[6]        -- HASH relation -> until
local relation_ends = KEYS[7]    -- ZSET relation -> until, so past ones are let go
local by_address = KEYS[8]       -- ZSET "<ip>|<visitor>", read by prefix
local bans = KEYS[9]             -- HASH "visitor:<id>" or "ip:<hash>" -> until
local mutes = KEYS[10]           -- HASH the same keys -> until
local stats = KEYS[11]           -- HASH chats, present
local on_instance = KEYS[14]     -- SET the visitors holding a stream on the instance named

local now = tonumber(ARGV[1])
local visitor_channel_prefix = ARGV[2]
local life_channel_prefix = ARGV[3]
local this_instance = ARGV[4]
local heartbeat_vouches_ms = tonumber(ARGV[5])
local pool_scan = tonumber(ARGV[6])              -- waiting visitors one look at the pool reads
local meet_again_after_ms = tonumber(ARGV[7])    -- recent partners both wait alone this long
local prefer_others_ms = tonumber(ARGV[8])       -- recent partners prefer others this long
local A = ${POOL_ARGS}
`;
