import { lua } from "../lua.ts";

/**
 * What every chat script starts with: its inputs named once, then the helpers they share.
 *
 * A chat's steps on Redis are each one Lua script on the chat's own slot (KEYS: the chat's hash,
 * its stream's two names, and on a Redis Cluster its two sides' channels; see redis/keys.ts;
 * the stream has the first name only while the chat runs with nobody muted): an event is kept in
 * the chat's stream and announced in the same step, and the stream's id is the event's (with
 * the chat's id in front), so a socket that reconnects anywhere resumes from it. "matched" goes
 * to the visitors' own channels, whose instances subscribe to them; what follows goes, on one
 * Redis, there too, and on a Cluster to the side's channel (SPUBLISH: a classic PUBLISH is
 * forwarded to every node of a Cluster, a sharded one stays on the chat's node), which the
 * instances holding that side subscribe to while the chat runs. The events' JSON is made by the
 * instance: a script only stores and forwards it. The stream's entries hold "a"/"b" (the event
 * for that side) and "m" (a message's id), as Relay (redis/relay.ts) also writes them.
 */
export const CHAT_ARGS = 3;

export const CHAT_INPUTS = lua`
local chat = KEYS[1]             -- HASH the chat (fields: see redis/keys.ts)
local events = KEYS[2]           -- STREAM under this name while nobody is muted
local checked_events = KEYS[3]   -- STREAM the same, under this name when messages are checked
local side_channels = { a = KEYS[4], b = KEYS[5] }   -- on a Cluster only

local now = tonumber(ARGV[1])
local visitor_channel_prefix = ARGV[2]
local chat_id = ARGV[3]
local A = ${CHAT_ARGS}
`;

export const CHAT_HELPERS = lua`
-- Announces event 'json' (stream id 'id') to 'visitor', on side 'side' of the chat: on their
-- own channel on one Redis, or when no side is given; on the side's channel on a Cluster.
-- 'extra' is what the instance keeps along with it.
local function announce(visitor, id, json, extra, side)
  local payload = chat_id .. '.' .. id .. '\t' .. json
  if extra and extra ~= '' then payload = payload .. '\t' .. extra end
  if side and side_channels.a then
    redis.call('SPUBLISH', side_channels[side], payload)
  else
    redis.call('PUBLISH', visitor_channel_prefix .. visitor, payload)
  end
end

-- On one Redis an instance keeps and announces a message itself, in one transaction (no
-- script), while the stream has the name 'events'. When it loses that name (a mute) or gets it
-- back, both sides' instances hear it first, in order on their channels ("!", the chat, its
-- count of such changes, 1 on / 0 off), so they drop what a transaction announced but
-- could not keep (redis/local.ts, LocalStream). On a Cluster every message is a script.
local function tell_checks(visitor_a, visitor_b, closed)
  if side_channels.a then return end
  local changes = redis.call('HINCRBY', chat, 'checks_changes', 1)
  local payload = '!\t' .. chat_id .. '\t' .. changes .. '\t' .. closed
  redis.call('PUBLISH', visitor_channel_prefix .. visitor_a, payload)
  redis.call('PUBLISH', visitor_channel_prefix .. visitor_b, payload)
end
`;
