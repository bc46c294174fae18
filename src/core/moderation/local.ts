import {
  DataSet,
  englishDataset,
  englishRecommendedTransformers,
  pattern,
  RegExpMatcher,
} from "obscenity";
import type { ModerationReason, ModerationVerdict, Moderator } from "./moderator.ts";
import { DE_TERMS } from "./words/de.ts";
import { ES_TERMS } from "./words/es.ts";
import { FR_TERMS } from "./words/fr.ts";
import { JA_PATTERNS, JA_TERMS } from "./words/ja.ts";
import { KO_PATTERNS, KO_TERMS } from "./words/ko.ts";
import { ZH_TERMS } from "./words/zh.ts";

/** More links than this in one message reads as advertising. */
export const MAX_LINKS = 3;
/** The same letter, digit or emoji this many times in a row reads as flooding. */
export const CHAR_RUN_LIMIT = 20;
/** The same word or short phrase this many times in a row reads as flooding. */
export const PHRASE_RUN_LIMIT = 10;

// Phrases obscenity's English set flags that are ordinary words in the other seven languages or
// in polite English: "negro" is Spanish for black, "dick" German for thick, and "sex" stands in
// "same-sex marriage" and "sex education".
const ENGLISH_DROPPED = new Set(["negro", "dick", "sex"]);

// Innocent words that contain a flagged one: shiitake (shit), Penistone (penis), cum laude,
// cumin and Spanish cumpleaños (cum), French assez (ass), "a chink in the armour".
const ENGLISH_ALLOWED = [
  "shiitake",
  "penistone",
  "cum laude",
  "cumin",
  "cumpl",
  "assez",
  "chink in",
];

const englishWords = new DataSet<{ originalWord: string }>()
  .addAll(englishDataset)
  .removePhrasesIf((phrase) => ENGLISH_DROPPED.has(phrase.metadata?.originalWord ?? ""))
  // Keep the insults "dick" was dropped from.
  .addPhrase((phrase) =>
    phrase
      .setMetadata({ originalWord: "dickhead" })
      .addPattern(pattern`dickhead`)
      .addPattern(pattern`suck my dick`),
  );
const englishTerms = englishWords.build();

// Three or more single letters or digits set apart by spaces or punctuation: "f u c k",
// "s.h.1.t", "幹 你 娘", "개 새 끼".
const SPELLED_OUT =
  /(?<![\p{L}\p{N}])(?:[\p{L}\p{N}][\s\p{P}\p{S}]+){2,}[\p{L}\p{N}](?![\p{L}\p{N}])/gu;
const SEPARATORS = /[\s\p{P}\p{S}]+/gu;
const PUNCTUATION = /[\p{P}\p{S}]+/gu;
const INVISIBLE = /\p{Cf}/gu;

// Built once per process: obscenity compiles a regular expression per pattern, and the word
// lists are joined into one alternation each, so a check is a handful of regex scans.
const ENGLISH = new RegExpMatcher({
  blacklistedTerms: englishTerms.blacklistedTerms,
  whitelistedTerms: [...(englishTerms.whitelistedTerms ?? []), ...ENGLISH_ALLOWED],
  ...englishRecommendedTransformers,
});
/** Spanish, French and German: whole words, so "computadora" is not "puta". */
const WHOLE_WORDS = wholeWords([...ES_TERMS, ...FR_TERMS, ...DE_TERMS]);
/** Chinese and Japanese: substrings, since neither puts spaces between words. */
const CJ_SUBSTRINGS = substrings([...ZH_TERMS, ...JA_TERMS], JA_PATTERNS);
/** Korean: substrings (particles attach to words), matched with spaces kept. */
const KO_SUBSTRINGS = substrings(KO_TERMS, KO_PATTERNS);

// A URL with a scheme or "www.", or a bare domain under a common top-level domain (a fixed
// list, so "node.js", "e.g." and "3.14" are not counted). Addresses in e-mail are not links.
export const LINK = new RegExp(
  "(?:https?://|www\\.)\\S+|(?<![\\p{L}\\p{N}@.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+" +
    "(?:com|net|org|info|biz|io|co|me|app|dev|xyz|top|site|online|shop|store|club|link|live|" +
    "click|vip|win|tv|cc|ly|gg|ru|cn|tw|hk|jp|kr|de|fr|es|uk|us|eu|in|br|au|ca)" +
    "(?![\\p{L}\\p{N}-])",
  "giu",
);

// Emoji variation selectors, joiners and skin tones, dropped so "❤️" counts as one symbol.
const EMOJI_PARTS = /\u{200D}|[\u{FE00}-\u{FE0F}]|[\u{1F3FB}-\u{1F3FF}]/gu;
// Punctuation and spaces never count as a run, so "--------" dividers are fine.
const CHAR_RUN = new RegExp(`([\\p{L}\\p{N}\\p{So}])\\1{${CHAR_RUN_LIMIT - 1},}`, "u");
// A unit of 2 to 40 characters, then the same unit again and again, optionally set apart by
// spaces or punctuation: "buy now buy now ...", "spam, spam, spam".
const PHRASE_RUN = new RegExp(
  `([\\p{L}\\p{N}\\p{So}][^]{1,39}?)(?:[\\s\\p{P}]*\\1){${PHRASE_RUN_LIMIT - 1},}`,
  "u",
);

/**
 * Moderation that never leaves the machine: word lists for the eight languages the site
 * translates between (obscenity's English set with its obfuscation handling; curated lists for
 * Chinese in both scripts, Japanese, Korean, Spanish, French and German), plus two spam signals.
 */
export class LocalModerator implements Moderator {
  async check(text: string): Promise<ModerationVerdict> {
    return this.checkNow(text);
  }

  /** The same verdict without a promise, for callers on a hot path. */
  checkNow(text: string): ModerationVerdict {
    const reasons: ModerationReason[] = [];
    if (text.trim() === "") return { safe: true, reasons };
    const normal = normalize(text);
    if (isProfane(normal)) reasons.push("profanity");
    if (countLinks(normal) > MAX_LINKS) reasons.push("spam_links");
    if (isRepetitive(normal)) reasons.push("spam_repetition");
    return { safe: reasons.length === 0, reasons };
  }
}

/** Full-width letters to ASCII, case folded, invisible characters (zero-width spaces) gone. */
export function normalize(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(INVISIBLE, "");
}

/**
 * A number standing on its own (two digits or more, no letter beside it): the English matcher
 * reads digits as letters ("sh1t"), which would make "room 455" or "4550 Main St" a word.
 */
const NUMBER = /(?<![\p{L}\d])\d{2,}(?![\p{L}\d])/gu;
const withoutNumbers = (text: string) => text.replace(NUMBER, (run) => " ".repeat(run.length));

function isProfane(normal: string): boolean {
  const joined = normal.replace(SPELLED_OUT, (run) => run.replace(SEPARATORS, ""));
  if (
    ENGLISH.hasMatch(withoutNumbers(normal)) ||
    (joined !== normal && ENGLISH.hasMatch(withoutNumbers(joined)))
  ) {
    return true;
  }
  if (WHOLE_WORDS.test(joined)) return true;
  // Chinese and Japanese are matched with spaces and punctuation gone ("幹,你,娘"), and as
  // written, for the patterns that look at what follows a term (死ね。 versus 死ねない).
  if (CJ_SUBSTRINGS.test(normal.replace(SEPARATORS, "")) || CJ_SUBSTRINGS.test(normal)) {
    return true;
  }
  return KO_SUBSTRINGS.test(joined.replace(PUNCTUATION, ""));
}

function countLinks(normal: string): number {
  let count = 0;
  for (const _ of normal.matchAll(LINK)) {
    if (++count > MAX_LINKS) break;
  }
  return count;
}

function isRepetitive(normal: string): boolean {
  const text = normal.replace(EMOJI_PARTS, "");
  return CHAR_RUN.test(text) || (mayRepeatPhrase(text) && PHRASE_RUN.test(text));
}

/**
 * Whether PHRASE_RUN can match at all. Its unit is two characters or more and occurs ten times,
 * so the unit's first two characters start at ten places or more; when no pair of neighbouring
 * characters occurs that often, there is no run. Counting pairs is one pass, where the
 * expression tries every start and every length (tens of microseconds for a short message,
 * the largest part of moderating one; scripts/bench).
 */
function mayRepeatPhrase(text: string): boolean {
  const counts = new Map<number, number>();
  let previous = -1;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (previous !== -1) {
      const pair = previous * 0x110000 + code;
      const seen = (counts.get(pair) ?? 0) + 1;
      if (seen >= PHRASE_RUN_LIMIT) return true;
      counts.set(pair, seen);
    }
    previous = code;
  }
  return false;
}

/** Terms are prepared like the text (NFKC, lower case), so both meet in the same form. */
function prepare(term: string): string {
  return normalize(term).trim();
}

function escapeRegExp(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function wholeWords(terms: readonly string[]): RegExp {
  // A space inside a term ("nique ta mère") stands for any run of spaces.
  const alternatives = terms.map((term) => escapeRegExp(prepare(term)).replace(/ +/g, "\\s+"));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}])`, "u");
}

function substrings(terms: readonly string[], patterns: readonly string[]): RegExp {
  const alternatives = [...terms.map((term) => escapeRegExp(prepare(term))), ...patterns];
  return new RegExp(`(?:${alternatives.join("|")})`, "u");
}
