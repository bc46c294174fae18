/**
 * A reporter whose reports the operator dismissed this many times in the last 30 days stops
 * counting toward the reports that take a bottle out or ban a chat visitor, for as long as that
 * holds: a few people cannot report others off the site.
 */
export const DISMISSALS_TO_DISCOUNT = 3;
export const DISCOUNT_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How many independent sources these reports come from, taken in the order given: a report
 * counts as a new source when none of its keys (visitor id, address hash, account) belongs to a
 * report already counted; only counted reports claim their keys. So three cookies on one address,
 * or one cookie on three networks, or three accounts on one cookie, are one source.
 *
 * Not grouped by chains (A shares an address with B, B a cookie with C, so A and C are one): a
 * chain lets anyone who shares one address with each of several honest reporters fold them all
 * into one, which is how an offender's friend would keep the offender from ever being banned.
 * Here a report can only shadow reports that share one of its own keys, and it counts itself.
 * Empty keys (reports from before they were kept) claim nothing. Linear in the rows.
 */
export function independentSources(rows: Iterable<readonly string[]>, enough = Infinity): number {
  const claimed = new Set<string>();
  let sources = 0;
  for (const keys of rows) {
    if (keys.some((key) => key !== "" && claimed.has(key))) continue;
    for (const key of keys) if (key !== "") claimed.add(key);
    if (++sources >= enough) break;
  }
  return sources;
}
