const HOUR_MS = 60 * 60 * 1000;

/**
 * Formatters by time zone. Making one costs far more than using it (tens of microseconds, three
 * per bottle thrown), and there are only a few hundred zones; the bound keeps odd spellings of
 * them from growing the map without end.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1000;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    if (formatters.size < MAX_FORMATTERS) formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * Offsets already worked out, by zone and quarter hour. Offsets are whole quarter hours and
 * today's rules change them only at quarter-hour instants, so one quarter hour has one offset;
 * asking Intl costs several microseconds a time, three times per bottle.
 */
const offsets = new Map<string, number>();
const MAX_OFFSETS = 10_000;
const QUARTER_HOUR_MS = 15 * 60 * 1000;

/** The offset of a time zone from UTC at an instant, in milliseconds (east positive). */
function offsetAt(timeZone: string, instant: number): number {
  const key = `${timeZone} ${Math.floor(instant / QUARTER_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = formatOffset(timeZone, instant);
    if (offsets.size >= MAX_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

function formatOffset(timeZone: string, instant: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(
    get("year"),
    get("month") - 1,
    get("day"),
    get("hour"),
    get("minute"),
    get("second"),
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The calendar date an instant falls on in a time zone. */
function localDate(
  timeZone: string,
  instant: number,
): { year: number; month: number; day: number } {
  const local = new Date(instant + offsetAt(timeZone, instant));
  return { year: local.getUTCFullYear(), month: local.getUTCMonth(), day: local.getUTCDate() };
}

/**
 * 23:59:59.999 in `timeZone` on the day `days` after the writer's today: a bottle expires at
 * the end of its last day where it was written. Daylight-saving changes between now and then
 * are accounted for.
 */
export function expiryAt(now: number, days: number, timeZone: string): number {
  const today = localDate(timeZone, now);
  const wallClock = Date.UTC(today.year, today.month, today.day + days, 23, 59, 59, 999);
  // The offset at the target instant may differ from today's; two passes settle it.
  let instant = wallClock - offsetAt(timeZone, wallClock);
  instant = wallClock - offsetAt(timeZone, instant);
  return instant;
}

export function availableAt(now: number, driftHours: number): number {
  return now + driftHours * HOUR_MS;
}
