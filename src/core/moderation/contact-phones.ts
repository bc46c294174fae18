import {
  type CountryCode,
  findPhoneNumbersInText,
  isSupportedCountry,
} from "libphonenumber-js/max";

// Phone numbers.

// Numbers that are not phone numbers, masked before digits are counted. Each is matched only
// standing alone (no more digits a separator away), so a phone written with dots or slashes
// ("06.12.34.56.78") is not read as a date followed by more.
const ALONE_BEFORE = "(?<!\\d[^\\p{L}\\p{N}\\n]{0,3})";
const ALONE_AFTER = "(?![^\\p{L}\\p{N}\\n]{0,3}\\d)";
const CURRENCY = "(?:[$€£¥₩₹]|元|円|圓|块|塊|원|euros?|eur|usd|dollars?|yen|won|ntd|twd|hkd|rmb)";
const NOT_PHONES: RegExp[] = [
  // Times: 9:30, 10:30:15.
  /(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)/gu,
  // Dates: 2026-11-23, 23.11.2026, 11/23/26.
  new RegExp(`${ALONE_BEFORE}\\d{4}([-./])\\d{1,2}\\1\\d{1,2}${ALONE_AFTER}`, "gu"),
  new RegExp(`${ALONE_BEFORE}\\d{1,2}([-./])\\d{1,2}\\1(?:\\d{4}|\\d{2})${ALONE_AFTER}`, "gu"),
  // Money: $1,299.99, 12,50 €, 1 000 €, NT$25,000, 300元.
  new RegExp(`${CURRENCY}\\s?\\d{1,3}(?:[,.]\\d{3})*(?:[.,]\\d+)?`, "giu"),
  new RegExp(
    `(?<![\\d.,])(?:\\d{1,3}(?:[ ,.]\\d{3})*(?:[.,]\\d+)?|\\d+(?:[.,]\\d+)?)\\s?${CURRENCY}(?!\\p{L})`,
    "giu",
  ),
  // Thousands: 23,400,000; 1.234.567,89.
  new RegExp(
    `${ALONE_BEFORE}(?:\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d{1,3}(?:\\.\\d{3})+,\\d+)${ALONE_AFTER}`,
    "gu",
  ),
  // Decimals: 3.14159265.
  new RegExp(`${ALONE_BEFORE}\\d+[.,]\\d+${ALONE_AFTER}`, "gu"),
];
// Versions and addresses: 10.0.19045.2965, 120.0.6099.109, 192.168.1.1, three to five groups
// with one of a single digit (phone groups are longer).
const DOTTED = new RegExp(`${ALONE_BEFORE}\\d+(?:\\.\\d+){2,4}${ALONE_AFTER}`, "gu");
const SINGLE_DIGIT_GROUP = /(?:^|\.)\d(?:\.|$)/;

// Digits and what may separate them in a written number: spaces, dashes, dots, brackets,
// slashes, emoji, the Japanese long mark ("090ー1234ー5678"). Not an underscore: it joins the
// parts of one word ("1764_0923_4567", an order or a test's unique text), not a number's groups;
// nor a colon, which sets apart times and addresses ("2001:4860:4860::8888"), never a phone's.
const NUMBER_RUN = /\d+(?:(?:[^\p{L}\p{N}\n_:]|[ー〜]){1,4}\d+)*/gu;
// Separators that set apart a list of numbers rather than the groups of one.
const LIST_SEPARATOR = /[,;|、]|\s{2,}/;
const MASK = "x";

export function hasPhoneNumber(normal: string, region: CountryCode | undefined): boolean {
  if (!/\d/.test(normal)) return false;
  let masked = normal;
  for (const pattern of NOT_PHONES) masked = masked.replace(pattern, MASK);
  masked = masked.replace(DOTTED, (dotted) => (SINGLE_DIGIT_GROUP.test(dotted) ? MASK : dotted));
  for (const [run] of masked.matchAll(NUMBER_RUN)) {
    for (const number of run.split(LIST_SEPARATOR)) {
      if (isPhoneNumber(number, region)) return true;
    }
  }
  return false;
}

function isPhoneNumber(number: string, region: CountryCode | undefined): boolean {
  const groups = number.match(/\d+/g) ?? [];
  const digits = groups.join("");
  if (digits.length > 15) {
    // Two numbers written one after the other, or a long count: each stretch of groups.
    for (let start = 0; start < groups.length; start++) {
      let stretch = "";
      for (let end = start; end < groups.length; end++) {
        stretch += groups[end];
        if (stretch.length > 15) break;
        if (stretch.length >= 9 && !isCount(groups.slice(start, end + 1), stretch)) return true;
      }
    }
    return false;
  }
  if (digits.length >= 9) return !isCount(groups, digits);
  if (region && digits.length >= 7 && !COMPACT_DATE.test(digits)) {
    return findPhoneNumbersInText(number.replace(/[^\d+]+/g, " "), region).length > 0;
  }
  return false;
}

const COMPACT_DATE = /^(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/;

/** "1 2 3 4 5 6 7 8 9 10", "10 20 30 40 50", "123456789": counting, not a number to call. */
function isCount(groups: string[], digits: string): boolean {
  if (groups.length >= 4) {
    const values = groups.map(Number);
    const step = (values[1] ?? 0) - (values[0] ?? 0);
    if (
      step !== 0 &&
      values.every((value, i) => i === 0 || value - (values[i - 1] ?? 0) === step)
    ) {
      return true;
    }
  }
  let up = true;
  let down = true;
  for (let i = 1; i < digits.length; i++) {
    const step = digits.charCodeAt(i) - digits.charCodeAt(i - 1);
    if (step !== 1) up = false;
    if (step !== -1) down = false;
  }
  return up || down;
}

export function phoneRegion(region: string | undefined): CountryCode | undefined {
  const code = region?.toUpperCase();
  return code && isSupportedCountry(code) ? code : undefined;
}
