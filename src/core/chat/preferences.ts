import { Converter, type ConverterFunction } from "opencc-js";
import {
  MATCH_FALLBACK_MS,
  type MatchPreferencesInput,
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
  /** When anyone will do for them: joining plus the fallback delay, or sooner if they widened. */
  anyoneFrom: number;
}

/** When a visitor joining the pool now will accept anyone. */
export function anyoneFrom(preferences: MatchPreferences | undefined, since: number): number {
  return preferences && preferences.languages.length > 0 ? since + MATCH_FALLBACK_MS : since;
}

/** How well two fit: 2 a shared language and interest, 1 a shared language, 0 nothing shared. */
export function fitOf(a: Seeker, b: Seeker): 0 | 1 | 2 {
  const pa = a.preferences;
  const pb = b.preferences;
  // A handful of languages and interests each: loops, no allocation (the pool scans often).
  if (!pa || !pb || !pa.languages.some((language) => pb.languages.includes(language))) return 0;
  for (const mine of pa.interests) {
    for (const theirs of pb.interests) if (mine.key === theirs.key) return 2;
  }
  return 1;
}

/**
 * The matching rule: the tier two waiting visitors would be paired at now, or -1 when one of them
 * still insists on a shared language they do not have. A visitor with preferences is paired first
 * with someone sharing a language and an interest (2), then a language (1), and with anyone (0)
 * once their fallback delay has passed; one without preferences accepts anyone at once, but is
 * not paired with a visitor still waiting for a shared language.
 */
export function tierOf(a: Seeker, b: Seeker, now: number): -1 | 0 | 1 | 2 {
  const fit = fitOf(a, b);
  if (fit > 0) return fit;
  return now >= a.anyoneFrom && now >= b.anyoneFrom ? 0 : -1;
}

/** The best tier a visitor can be paired at: what they asked allows no better (see tierOf). */
export function bestTierOf(a: Seeker): 0 | 1 | 2 {
  const asked = a.preferences;
  if (!asked || asked.languages.length === 0) return 0;
  return asked.interests.length === 0 ? 1 : 2;
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
