/**
 * A ban or a mute is held against a visitor under two keys, their own and their address's, so
 * clearing cookies does not lift it.
 */
export function holdKeys(visitorId: string, ipKey: string): [string, string] {
  return [`visitor:${visitorId}`, `ip:${ipKey}`];
}

/**
 * When the latest hold under these keys ends, or null when none is in force. Ended holds met on
 * the way are forgotten.
 */
export function latestHold(
  ends: Map<string, number>,
  keys: readonly string[],
  now: number,
): number | null {
  let latest: number | null = null;
  for (const key of keys) {
    const until = ends.get(key);
    if (until === undefined) continue;
    if (until <= now) ends.delete(key);
    else latest = Math.max(latest ?? 0, until);
  }
  return latest;
}
