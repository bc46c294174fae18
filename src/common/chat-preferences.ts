import { targetLanguages } from "./translation.ts";
import { z } from "./zod.ts";

/** Interests a visitor may name before starting, and how long each may be. */
export const INTEREST_LIMITS = { count: 5, length: 24 } as const;

/**
 * A visitor who asked for a shared language waits this long (from pressing start) for one
 * before anyone will do (the page counts it down, and can widen at once).
 */
export const MATCH_FALLBACK_MS = 5000;

/**
 * A visitor who named interests is first paired only on a shared interest, for this long from
 * pressing start; then on a shared language until the fallback (or with anyone, when they named
 * no language). Chosen by scripts/bench/benchmarks/match-rule.ts (BENCHMARKS.md).
 */
export const INTEREST_WINDOW_MS = 3000;

/** How long each stage of the wait lasts: see INTEREST_WINDOW_MS and MATCH_FALLBACK_MS. */
export interface MatchTiming {
  interestWindowMs: number;
  fallbackMs: number;
}
export const MATCH_TIMING: MatchTiming = {
  interestWindowMs: INTEREST_WINDOW_MS,
  fallbackMs: MATCH_FALLBACK_MS,
};

/**
 * When, after pressing start, a visitor asking for these takes a shared language alone
 * (`language`, null when they named none) and anyone (`anyone`), in ms: 0 is at once. Interests
 * come first for the interest window; a visitor who named no language takes anyone after it.
 */
export function matchStages(
  asked: { languages: readonly unknown[]; interests: readonly unknown[] } | undefined,
  timing: MatchTiming = MATCH_TIMING,
): { language: number | null; anyone: number } {
  const interests = (asked?.interests.length ?? 0) > 0;
  const languages = (asked?.languages.length ?? 0) > 0;
  const window = interests ? Math.min(timing.interestWindowMs, timing.fallbackMs) : 0;
  if (!languages) return { language: null, anyone: window };
  return { language: window, anyone: timing.fallbackMs };
}

/**
 * Characters Unicode says draw nothing (zero-width spaces and joiners, the word joiner, the byte
 * order mark, bidi controls, soft hyphens, variation selectors, Hangul fillers): left in, they
 * would make look-alike interests different keys and split words the filters look for.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * An interest as the page and the server both compare it: full-width forms folded (NFKC),
 * invisible characters removed, case folded, spaces collapsed. The server also folds Traditional
 * Chinese to Simplified, so 音乐 and 音樂 are the same interest.
 */
export function normalizeInterest(tag: string): string {
  // Removed before folding too, so a mark split from its letter by one still joins it.
  return tag
    .replace(INVISIBLE, "")
    .normalize("NFKC")
    .replace(INVISIBLE, "")
    .toLowerCase()
    .replace(/\s+/gu, " ")
    .trim();
}

/**
 * What a visitor asks of a match: languages they can chat in, and a few interests. Either may be
 * left out (an empty object, as a client without preferences may send, is "Anyone").
 */
export const matchPreferencesInput = z.object({
  languages: z
    .array(z.enum(targetLanguages))
    .max(targetLanguages.length)
    .default([])
    .transform((list) => [...new Set(list)]),
  interests: z
    .array(
      z.string().transform(normalizeInterest).pipe(z.string().min(1).max(INTEREST_LIMITS.length)),
    )
    .max(INTEREST_LIMITS.count)
    .default([])
    .transform((list) => [...new Set(list)]),
});
export type MatchPreferencesInput = z.infer<typeof matchPreferencesInput>;

/** What two matched visitors have in common, told to both, each in their own words. */
export interface SharedGround {
  /** Languages both can chat in (Traditional and Simplified Chinese count as one: "zh"). */
  languages: string[];
  interests: string[];
}
