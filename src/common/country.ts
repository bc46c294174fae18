// Country codes, names and flags, shared by the server (bottles, chat) and the web (display).
import type { Locale } from "./locales.ts";

/**
 * A country as it travels (a visitor's, a chat partner's, a bottle's writer's): the code the
 * web draws the flag from and names in the visitor's language, and the English name.
 */
export interface Country {
  /** ISO 3166-1 alpha-2, upper case; null when unknown. */
  code: string | null;
  /** English name; "Unknown" when there is none. */
  name: string;
}

/** The flag shown when the country is unknown (the product's bottle flow uses 🏴). */
export const UNKNOWN_FLAG = "🏴";

const UNKNOWN_NAME: Record<Locale, string> = { en: "Unknown", "zh-TW": "未知" };

// fallback "none" makes `of` answer undefined for a code CLDR does not know, instead of echoing it.
const displayNames: Record<Locale, Intl.DisplayNames> = {
  en: new Intl.DisplayNames(["en"], { type: "region", fallback: "none" }),
  "zh-TW": new Intl.DisplayNames(["zh-TW"], { type: "region", fallback: "none" }),
};

const TWO_LETTERS = /^[A-Za-z]{2}$/;
// ISO 3166-1 leaves these for private use (CLDR names some, e.g. ZZ "Unknown Region", XA
// "Pseudo-Accents"); none is a country. XK is the exception: the de facto code for Kosovo.
const USER_ASSIGNED = /^(?:AA|Q[M-Z]|X[A-Z]|ZZ)$/;

/**
 * The upper-case ISO 3166-1 alpha-2 code if it names a country or territory, otherwise null.
 * Accepts lower case, as some databases and headers send it.
 */
export function knownCountryCode(code: string | null | undefined): string | null {
  if (!code || !TWO_LETTERS.test(code)) return null;
  const upper = code.toUpperCase();
  if (USER_ASSIGNED.test(upper) && upper !== "XK") return null;
  return displayNames.en.of(upper) === undefined ? null : upper;
}

// A flag emoji is the code's two letters as regional indicator symbols (🇦 is U+1F1E6).
const REGIONAL_INDICATOR_A = 0x1f1e6;
const LETTER_A = 65;

/** The flag emoji of a country code; 🏴 for null or a code that names no country. */
export function flagOf(code: string | null): string {
  const known = knownCountryCode(code);
  if (!known) return UNKNOWN_FLAG;
  return String.fromCodePoint(
    REGIONAL_INDICATOR_A + known.charCodeAt(0) - LETTER_A,
    REGIONAL_INDICATOR_A + known.charCodeAt(1) - LETTER_A,
  );
}

/** The country's name in the visitor's language; "Unknown" / "未知" when there is none. */
export function countryName(code: string | null, locale: Locale): string {
  const known = knownCountryCode(code);
  return (known && displayNames[locale].of(known)) || UNKNOWN_NAME[locale];
}

/** The country of a visitor whose address names none. */
export const UNKNOWN_COUNTRY: Country = Object.freeze({
  code: null,
  name: countryName(null, "en"),
});
