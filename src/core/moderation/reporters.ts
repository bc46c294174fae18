/**
 * A reporter whose reports the operator dismissed this many times in the last 30 days stops
 * counting toward the reports that take a bottle out or ban a chat visitor, for as long as that
 * holds: a few people cannot report others off the site.
 */
export const DISMISSALS_TO_DISCOUNT = 3;
export const DISCOUNT_MS = 30 * 24 * 60 * 60 * 1000;
