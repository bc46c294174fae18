import { Converter, type ConverterFunction } from "opencc-js";
import {
  MATCH_TIMING,
  type MatchPreferencesInput,
  type MatchTiming,
  matchStages,
  normalizeInterest,
  type SharedGround,
} from "../../common/chat-preferences.ts";
import type { FieldIssue } from "../../common/errors.ts";
import type { TargetLanguage } from "../../common/translation.ts";
import { systemTime } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { ExpiringMap } from "../limits/expiring-map.ts";
import { hasContactDetails } from "../moderation/contacts.ts";
import { LocalModerator } from "../moderation/local.ts";

/**
 * What a waiting visitor asked of a match, as the pool compares it: chat languages (Traditional
 * and Simplified Chinese are one, "zh"), and interests by a key that folds case, width, spaces
 * and Chinese script, each with the visitor's own words for it. Held only in the pool while they
 * wait, never stored.
 */
export interface MatchPreferences {
  languages: readonly string[];
  interests: ReadonlyArray<{ key: string; label: string }>;
}

/** The language a chat is held in: both Chinese scripts are one spoken language. */
export function chatLanguage(tag: TargetLanguage): string {
  return tag === "zh-TW" || tag === "zh-CN" ? "zh" : tag;
}

// Built on first use: OpenCC's tables load when a converter is made. Traditional (with Taiwan's
// variants) folded into Simplified, character by character, a small table, where the phrase
// tables of Simplified into Taiwan's Traditional are several times larger and slower to load,
// for keys that are only compared, never shown.
let toSimplified: ConverterFunction | undefined;

/** An interest as the pool compares it: normalized, and Traditional Chinese folded to Simplified. */
export function interestKey(tag: string): string {
  toSimplified ??= Converter({ from: "tw", to: "cn" });
  return toSimplified(normalizeInterest(tag));
}

let preparing = false;

/**
 * Loads the script table in the background, once: asked when a chat stream opens, so the first
 * start with interests does not wait for it.
 */
export function prepareInterestKeys(): void {
  if (preparing || toSimplified) return;
  preparing = true;
  setTimeout(() => interestKey(""), 0).unref?.();
}

const words = new LocalModerator();

/**
 * Each interest's key, or null when it is refused, as last worked out: most visitors name a few
 * common interests, and the word lists and the script table are the dearest part of a start.
 * Bounded, and let go of after minutes unused.
 */
const interestVerdicts = new ExpiringMap<string, string | null>(
  10 * 60 * 1000,
  () => systemTime.now(),
  4096,
);

function checkedInterestKey(label: string): string | null {
  let verdict = interestVerdicts.get(label);
  if (verdict === undefined) {
    verdict = hasContactDetails(label) || !words.checkNow(label).safe ? null : interestKey(label);
    interestVerdicts.set(label, verdict);
  }
  return verdict;
}

/**
 * The pool's form of what the page sent, or undefined when nothing was asked ("Anyone").
 * Interests are text a stranger sees: those with contact details or a slur (the offline word
 * lists) are refused, each named by its place ("interests.1"), so the page can mark them and
 * keep the others.
 */
export function matchPreferencesOf(
  input: MatchPreferencesInput | undefined,
): MatchPreferences | undefined {
  if (!input || (input.languages.length === 0 && input.interests.length === 0)) return undefined;
  const interests = new Map<string, string>();
  const refused: FieldIssue[] = [];
  for (const [index, label] of input.interests.entries()) {
    const key = checkedInterestKey(label);
    if (key === null) refused.push({ field: `interests.${index}`, kind: "invalid" });
    else if (!interests.has(key)) interests.set(key, label);
  }
  if (refused.length > 0) {
    throw new DomainError(
      "INTEREST_REFUSED",
      `${refused.length} interest(s) refused`,
      undefined,
      refused,
    );
  }
  return {
    languages: [...new Set(input.languages.map(chatLanguage))],
    interests: [...interests].map(([key, label]) => ({ key, label })),
  };
}

/** A visitor waiting in the pool, as the matching rule sees them. */
export interface Seeker {
  preferences?: MatchPreferences;
  /** When they pressed start: their interest window runs from then. */
  since: number;
  /** When anyone will do for them: joining plus the fallback delay, or sooner if they widened. */
  anyoneFrom: number;
}

/** When a visitor joining the pool now will accept anyone. */
export function anyoneFrom(
  preferences: MatchPreferences | undefined,
  since: number,
  timing: MatchTiming = MATCH_TIMING,
): number {
  return since + matchStages(preferences, timing).anyone;
}

/**
 * When a shared language alone will do for a visitor: once their interest window ends (at once
 * when they named no interest), or sooner once anyone will do (they widened).
 */
export function languageFrom(a: Seeker, timing: MatchTiming = MATCH_TIMING): number {
  if (!a.preferences?.interests.length) return a.since;
  return Math.min(a.since + timing.interestWindowMs, a.anyoneFrom);
}

/** Whether two visitors' languages let them chat: they share one, or one of them named none. */
function languagesAllow(pa: MatchPreferences, pb: MatchPreferences): boolean {
  if (pa.languages.length === 0 || pb.languages.length === 0) return true;
  return pa.languages.some((language) => pb.languages.includes(language));
}

/**
 * How well two fit, whatever the time: 2 a shared interest (in a shared language, unless one of
 * them named no language), 1 a shared language, 0 nothing shared.
 */
export function fitOf(a: Pick<Seeker, "preferences">, b: Pick<Seeker, "preferences">): 0 | 1 | 2 {
  const pa = a.preferences;
  const pb = b.preferences;
  if (!pa || !pb) return 0;
  // A handful of languages and interests each: loops, no allocation (the pool scans often).
  if (languagesAllow(pa, pb)) {
    for (const mine of pa.interests) {
      for (const theirs of pb.interests) if (mine.key === theirs.key) return 2;
    }
  }
  return pa.languages.some((language) => pb.languages.includes(language)) ? 1 : 0;
}

/**
 * The matching rule: the tier two waiting visitors would be paired at now, or -1 when one of them
 * still waits for something better. A visitor who named interests is paired only on a shared
 * interest (2) during their interest window; then on a shared language (1) too, if they named
 * one; and with anyone (0) once their fallback delay has passed. One who asked nothing accepts
 * anyone at once, but is not paired with a visitor still waiting for a shared interest or
 * language.
 */
export function tierOf(
  a: Seeker,
  b: Seeker,
  now: number,
  timing: MatchTiming = MATCH_TIMING,
): -1 | 0 | 1 | 2 {
  const fit = fitOf(a, b);
  if (fit === 2) return 2;
  if (fit === 1 && now >= languageFrom(a, timing) && now >= languageFrom(b, timing)) return 1;
  return now >= a.anyoneFrom && now >= b.anyoneFrom ? 0 : -1;
}

/** The best tier a visitor can be paired at: what they asked allows no better (see tierOf). */
export function bestTierOf(a: Pick<Seeker, "preferences">): 0 | 1 | 2 {
  const asked = a.preferences;
  if (asked?.interests.length) return 2;
  return asked?.languages.length ? 1 : 0;
}

/** What two paired visitors share, in `a`'s own words. */
export function sharedGround(
  a: Pick<Seeker, "preferences">,
  b: Pick<Seeker, "preferences">,
): SharedGround | undefined {
  if (!a.preferences && !b.preferences) return undefined;
  const lb = b.preferences?.languages ?? [];
  const ib = new Set((b.preferences?.interests ?? []).map((i) => i.key));
  return {
    languages: (a.preferences?.languages ?? []).filter((language) => lb.includes(language)),
    interests: (a.preferences?.interests ?? []).filter((i) => ib.has(i.key)).map((i) => i.label),
  };
}
