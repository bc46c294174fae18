import type { Country } from "./country.ts";
import { locales } from "./locales.ts";
import { z } from "./zod.ts";

/** A bottle holds at most 1,000 characters after trimming. */
export const BOTTLE_LIMITS = {
  message: 1000,
  driftMaxHours: 168,
  expiryMaxDays: 7,
} as const;

export const EXPIRY_DAY_OPTIONS = [1, 3, 5, 7] as const;
export const DEFAULT_EXPIRY_DAYS = 7;

export const bottleReportReasons = [
  "offensive",
  "spam",
  "inappropriate",
  "harassment",
  "scam",
  /** Hides the bottle at once and goes to the top of the operator's queue. */
  "childSafety",
  "other",
] as const;
export type BottleReportReason = (typeof bottleReportReasons)[number];

/** Expiry days: 1 to 7; more than 7 is capped at 7, and 0 or less means the full 7. */
export function normalizeExpiryDays(days: number): number {
  return days <= 0 || days > BOTTLE_LIMITS.expiryMaxDays ? DEFAULT_EXPIRY_DAYS : days;
}

/** Zones already found valid: checking one makes a formatter, which is slow (scripts/bench). */
const knownTimeZones = new Set<string>();

export function isTimeZone(value: string): boolean {
  if (knownTimeZones.has(value)) return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
  } catch {
    return false;
  }
  if (knownTimeZones.size < 1000) knownTimeZones.add(value);
  return true;
}

export const createBottleInput = z.object({
  message: z.string().trim().min(1).max(BOTTLE_LIMITS.message),
  driftHours: z.number().int().min(0).max(BOTTLE_LIMITS.driftMaxHours),
  isPublic: z.boolean(),
  expiryDays: z.number().int().min(-1000).max(1000).transform(normalizeExpiryDays),
  /** The writer's IANA time zone: expiry ends at midnight there. */
  timeZone: z.string().min(1).max(64).refine(isTimeZone),
  /** The writer's interface language, used to prefer bottles in the reader's language. */
  locale: z.enum(locales),
});

export const bottleIdInput = z.object({ bottleId: z.number().int().positive() });
export const reportBottleInput = bottleIdInput.extend({ reason: z.enum(bottleReportReasons) });
/** A bottle asked about again (to translate it), with the pass discover gave with it. */
export const shownBottleInput = bottleIdInput.extend({ shownPass: z.string().max(64).optional() });

/** A bottle as a reader sees it: no address, no visitor, nothing that identifies the writer. */
export interface BottleCard {
  id: number;
  message: string;
  /** The writer's. */
  country: Country;
  driftHours: number;
  isPublic: boolean;
  createdAt: number;
  likeCount: number;
  isLiked: boolean;
  /**
   * From discover: its proof that this reader was shown this bottle, sent back to translate it
   * (a bottle that is not public is translated only for a reader it was shown to).
   */
  shownPass?: string;
}

/** My bottles shows this many a page, newest first. */
export const MY_BOTTLES_PAGE_SIZE = 20;

/**
 * Where a writer's bottle is: drifting (not surfaced yet), in the ocean, expired, taken out
 * by the moderators (reports or the operator), or sunk by its writer.
 */
export const bottleStates = ["drifting", "ocean", "expired", "hidden", "sunk"] as const;
export type BottleState = (typeof bottleStates)[number];

/** A page of My bottles: after the bottle `cursor` names (the last of the page before). */
export const myBottlesInput = z.object({
  cursor: z.number().int().positive().nullish(),
});

/**
 * Finds on the writer's bottles after `since` (server time, from an earlier answer; 0 for all
 * of them); null asks only for the server's time, to start from.
 */
export const findsSinceInput = z.object({
  since: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
});

export interface FindsSince {
  finds: number;
  /** How many of the writer's bottles those finds were of. */
  bottles: number;
  /** The server's time of the answer: the next `since`. */
  asOf: number;
}

/** A country where a bottle washed ashore, and how many visitors found it there. */
export interface Shore {
  countryCode: string;
  finds: number;
}

/** One of the writer's own bottles, as My bottles shows it: nothing about who found it. */
export interface MyBottle {
  id: number;
  message: string;
  createdAt: number;
  availableAt: number;
  expiresAt: number | null;
  isPublic: boolean;
  state: BottleState;
  /** Visitors discover showed it to, each once; never the writer. */
  finds: number;
  likes: number;
  /** Countries of the finds that had one, most finds first. */
  shores: Shore[];
}

export interface MyBottlesPage {
  bottles: MyBottle[];
  /** The cursor of the next page, or null on the last. */
  nextCursor: number | null;
  /** The server's time of the answer: what the writer has now seen. */
  asOf: number;
}
