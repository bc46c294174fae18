import type { TranslationFunctions } from "../../../../i18n/i18n-types";
import type { Locale } from "../../../common/locales.ts";

export const HOUR_MS = 60 * 60 * 1000;
/** From this much drift on, the hours are also shown in days. */
const SHOW_DAYS_FROM_HOURS = 24;
/** The time zone sent when the browser cannot name its own. */
const FALLBACK_TIME_ZONE = "UTC";

/** The writer's IANA time zone; the server ends the expiry day there. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || FALLBACK_TIME_ZONE;
  } catch {
    return FALLBACK_TIME_ZONE;
  }
}

/**
 * 23:59:59.999 local time, `days` after today. For display and the early check only: the
 * server computes the stored expiry from the time zone the browser sends.
 */
export function expiryOf(now: number, days: number): number {
  const today = new Date(now);
  return new Date(
    today.getFullYear(),
    today.getMonth(),
    today.getDate() + days,
    23,
    59,
    59,
    999,
  ).getTime();
}

/** Whether a bottle thrown now would expire before it surfaces. */
export function expiresBeforeSurfacing(now: number, driftHours: number, expiryDays: number) {
  return now + driftHours * HOUR_MS >= expiryOf(now, expiryDays);
}

export function formatWhen(instant: number, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, {
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
  }).format(instant);
}

/** "Visible immediately", or "Drifts for N hours", with "≈ N days" from a day on. */
export function driftLabels(
  LL: TranslationFunctions,
  hours: number,
): { main: string; days?: string } {
  if (hours === 0) return { main: LL.create.driftNone() };
  const main = LL.create.driftHours({ hours });
  if (hours < SHOW_DAYS_FROM_HOURS) return { main };
  return { main, days: LL.create.driftDays({ days: Math.round((hours / 24) * 10) / 10 }) };
}

/** The wait a rate limit asks for, in seconds, minutes or hours, rounded up. */
export function slowDownMessage(LL: TranslationFunctions, retryAfter: number | undefined): string {
  const seconds = Math.max(1, Math.ceil(retryAfter ?? 60));
  if (seconds < 60) return LL.create.slowSeconds({ seconds });
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return LL.create.slowMinutes({ minutes });
  return LL.create.slowHours({ hours: Math.ceil(minutes / 60) });
}
