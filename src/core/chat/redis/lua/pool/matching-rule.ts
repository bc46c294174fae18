import { INTEREST_WINDOW_MS } from "../../../../../common/chat-preferences.ts";
import { lua } from "../lua.ts";

/**
 * The matching rule in Lua, as the pool applies it while pairing (match.ts). preferences.ts
 * states it in TypeScript (fitOf, tierOf, bestTierOf) for the memory broker; the contract test
 * (tests/cluster/matching-rule.test.ts) runs random visitors through both and asserts the same
 * answers, so the two cannot drift apart.
 *
 * A seeker is a table: languages (" en ja ", or nil when none asked), interest_keys (each
 * between newlines, or nil), anyone_from (ms: when anyone will do; 0 at once), waiting_since
 * (ms: when they pressed start, their interest window's start). Uses `now`.
 */
export const MATCHING_RULE = lua`
-- Whether a list (items parted by sep) and another (each item between seps) share an item.
local function share_any(list, other, sep)
  for item in string.gmatch(list, '[^' .. sep .. ']+') do
    if string.find(other, sep .. item .. sep, 1, true) then return true end
  end
  return false
end

-- When a shared language alone will do: once the interest window ends (at once when they named
-- no interest), or sooner once anyone will do (they widened).
local function language_from(seeker)
  local since = tonumber(seeker.waiting_since) or now
  if not seeker.interest_keys then return since end
  return math.min(since + ${String(INTEREST_WINDOW_MS)}, seeker.anyone_from)
end

-- How well two seekers fit now: 2 a shared interest (in a shared language, unless one named no
-- language), 1 a shared language once both take one alone, 0 anyone once both accept anyone,
-- -1 while either still waits for something better.
local function tier_of(a, b)
  local language = a.languages and b.languages and share_any(a.languages, b.languages, ' ')
  if a.interest_keys and b.interest_keys and (language or not a.languages or not b.languages)
    and share_any(a.interest_keys, b.interest_keys, '\n') then
    return 2
  end
  if language and now >= language_from(a) and now >= language_from(b) then return 1 end
  if now >= a.anyone_from and now >= b.anyone_from then return 0 end
  return -1
end

-- The best tier a seeker can be paired at: what they asked allows no better.
local function best_tier_of(seeker)
  if seeker.interest_keys then return 2 end
  if seeker.languages then return 1 end
  return 0
end

-- Whether a waiting visitor at this tier could change the choice made so far: a better tier
-- than found (a shared language, found first; anyone, found first of all).
local function could_change_choice(tier, found_language, found_anyone)
  return tier == 2 or (tier == 1 and not found_language)
    or (tier == 0 and not found_language and not found_anyone)
end
`;
