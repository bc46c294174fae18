import type { TranslationFunctions } from "../../../../i18n/i18n-types";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Below this many minutes the time left is said in minutes ("about 1 hour" just above). */
const MINUTES_BELOW = 55;
/** From this many hours on it is said in days (a 3-day ban reads "3 days", not "72 hours"). */
const DAYS_FROM_HOURS = 48;

/**
 * The time left of a ban as the "Chat restricted" notice says it: minutes (rounded up) under
 * 55, hours (rounded) under two days, days (rounded) beyond; never less than one.
 */
export function timeLeft(
  until: number,
  now = Date.now(),
): { unit: "minutes" | "hours" | "days"; count: number } {
  const left = Math.max(0, until - now);
  const minutes = Math.max(1, Math.ceil(left / MINUTE_MS));
  if (minutes < MINUTES_BELOW) return { unit: "minutes", count: minutes };
  const hours = Math.max(1, Math.round(left / HOUR_MS));
  if (hours < DAYS_FROM_HOURS) return { unit: "hours", count: hours };
  return { unit: "days", count: Math.round(left / DAY_MS) };
}

/** "45 minutes", "6 hours", "3 days" (or 45 分鐘, 6 小時, 3 天). */
export function timeLeftText(LL: TranslationFunctions, until: number, now = Date.now()): string {
  const { unit, count } = timeLeft(until, now);
  return LL.randomChat.duration[unit]({ count });
}
