import { confusablesMap } from "confusables";

/**
 * Text as a spammer's contact details read once their disguises are taken off: NFKC, invisible
 * characters and keycap marks gone, Latin look-alikes folded, digits of any script and digit
 * words ("zero nine", "零九", "공일") turned into digits, spelled-out letters joined ("L I N E"),
 * and domains written around ("example dot com", "example[.]com", "example點com", "hxxp") made
 * plain again. Case is kept: links tell a sentence's missing space ("end.It was") by it.
 *
 * The look-alike table is the `confusables` package's; the rest is written here because no
 * maintained package undoes these disguises (phone and link finders expect them undone).
 */
export function contactText(text: string): string {
  // Digits first: the look-alike table reads some digits of other scripts as letters (١ as l).
  let normal = undisguised(text);
  normal = normal.replace(SPELLED_OUT, (run) => (/[a-z]/i.test(run) ? run.replace(/ /g, "") : run));
  normal = digitWords(normal);
  // Each step below runs only when the text holds what it looks for: most texts hold none.
  if (/\d/.test(normal)) {
    normal = normal.replace(LETTER_DIGITS, (token) =>
      LOOK_ALIKE_DIGIT_TOKEN.test(token) ? digitsFor(token) : token,
    );
    normal = normal.replace(LETTER_BETWEEN_DIGITS, digitsFor);
  }
  if (/:/.test(normal)) {
    normal = normal.replace(SCHEME, (_match, secure: string) => `http${secure.toLowerCase()}://`);
  }
  if (/www/i.test(normal)) normal = normal.replace(SPACED_WWW, "www.$1.$2");
  if (MAY_HIDE_A_DOMAIN.test(normal)) normal = plainDomains(normal);
  if (MAY_HIDE_AN_AT.test(normal)) normal = normal.replace(DISGUISED_AT, plainAddress);
  return normal;
}

/**
 * The skeleton two texts are compared by for repeats: like contactText's first steps (NFKC,
 * invisible characters gone, look-alikes folded), then case folded and without spaces,
 * punctuation and symbols, so "Buy NOW!!!", "buy now" and "bսy n​ow" are one text.
 */
export function skeleton(text: string): string {
  return undisguised(text)
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, "");
}

// Printable ASCII is its own NFKC form and holds no invisible, other-script digit or look-alike
// (the table's ASCII entries are left out), so most chat lines skip the four passes below.
const ASCII = /^[\t\n\r\x20-\x7E]*$/;

/** NFKC, invisible characters gone, digits of any script as ASCII, look-alikes folded. */
function undisguised(text: string): string {
  if (ASCII.test(text)) return text;
  return foldLookAlikes(asciiDigits(stripInvisibles(text.normalize("NFKC"))));
}

// Format characters (zero-width spaces and joiners, bidirectional marks, soft hyphens, tags),
// variation selectors, the keycap mark of "0️⃣", combining marks stacked on Latin letters, and
// the Hangul fillers that render as nothing.
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: ranges of code points, each removed on its own
  /[\p{Cf}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u{0300}-\u{036F}\u{1AB0}-\u{1AFF}\u{1DC0}-\u{1DFF}\u{20D0}-\u{20FF}\u{FE20}-\u{FE2F}\u{034F}\u{115F}\u{1160}\u{3164}\u{FFA0}\u{180B}-\u{180F}]/gu;

function stripInvisibles(text: string): string {
  return text.replace(INVISIBLE, "");
}

// Chinese, Japanese and Korean are never folded: the table maps some of their characters to
// Latin shapes (七 → T, ロ → O, 〇 → O), which would garble the text and its digits. ß is a
// letter of German words, not a look-alike of B.
const NEVER_FOLDED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}ß]/u;
// Letters and digits only (not ❤ → O or © → C), plus the squared and regional-indicator letters
// (🅰, 🇦), which NFKC leaves alone.
const FOLDABLE = /^(?:[\p{L}\p{N}]|[\u{1F100}-\u{1F1FF}])$/u;
// Where the table disagrees with how the letter reads: Greek iota and the dotless i are an i.
const READS_AS: Record<string, string> = { ι: "i", Ι: "I", І: "I", ı: "i" };

const LOOK_ALIKES = new Map<string, string>();
for (const [character, latin] of confusablesMap) {
  if ((character.codePointAt(0) ?? 0) < 0x80) continue;
  if (NEVER_FOLDED.test(character) || !FOLDABLE.test(character)) continue;
  LOOK_ALIKES.set(character, latin);
}
for (const [character, latin] of Object.entries(READS_AS)) LOOK_ALIKES.set(character, latin);

// One character class of every look-alike, so a text without any is scanned once, unchanged.
const LOOK_ALIKE = new RegExp(
  `[${[...LOOK_ALIKES.keys()].map((character) => character.replace(/[\\\][^-]/g, "\\$&")).join("")}]`,
  "gu",
);

function foldLookAlikes(text: string): string {
  return text.replace(LOOK_ALIKE, (character) => LOOK_ALIKES.get(character) ?? character);
}

// Decimal digits of other scripts (Arabic-Indic, Devanagari, Thai…), as ASCII digits. Each
// script's digits are ten code points in a row from zero, so a digit's value is how far back
// its run of digits starts.
const OTHER_DIGIT = /[^\P{Nd}0-9]/gu;
const DIGIT = /^\p{Nd}$/u;

function asciiDigits(text: string): string {
  return text.replace(OTHER_DIGIT, (digit) => {
    const code = digit.codePointAt(0) ?? 0;
    let zero = code;
    while (code - zero < 9 && DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
    return String((code - zero) % 10);
  });
}

// Three or more single letters or digits set apart by single spaces: "L I N E", "w w w",
// "m e i 0 9" are joined; spaced digits alone are left as written (contactText checks for a
// letter), so that a count ("1 2 3 4 5") stays a count.
export const SPELLED_OUT = /(?<![a-z0-9])(?:[a-z0-9] ){2,}[a-z0-9](?![a-z0-9])/gi;

// Digit words of the site's languages, with accents already folded ("zéro" reads "zero",
// "fünf" "funf").
const WORD_DIGITS: Record<string, string> = {
  zero: "0",
  oh: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  cero: "0",
  uno: "1",
  dos: "2",
  tres: "3",
  cuatro: "4",
  cinco: "5",
  seis: "6",
  siete: "7",
  ocho: "8",
  nueve: "9",
  un: "1",
  deux: "2",
  trois: "3",
  quatre: "4",
  cinq: "5",
  sept: "7",
  huit: "8",
  neuf: "9",
  null: "0",
  eins: "1",
  zwei: "2",
  zwo: "2",
  drei: "3",
  vier: "4",
  funf: "5",
  sechs: "6",
  sieben: "7",
  acht: "8",
  neun: "9",
};
// Chinese (and Japanese) digits, ordinary and financial, both scripts; 幺 and 兩 as said aloud.
const CJK_DIGITS: Record<string, string> = {
  零: "0",
  〇: "0",
  一: "1",
  壹: "1",
  幺: "1",
  二: "2",
  貳: "2",
  贰: "2",
  兩: "2",
  两: "2",
  三: "3",
  參: "3",
  叁: "3",
  四: "4",
  肆: "4",
  五: "5",
  伍: "5",
  六: "6",
  陸: "6",
  陆: "6",
  七: "7",
  柒: "7",
  八: "8",
  捌: "8",
  九: "9",
  玖: "9",
};
// Sino-Korean digits, as phone numbers are read out ("공일공" is 010).
const KOREAN_DIGITS: Record<string, string> = {
  공: "0",
  영: "0",
  일: "1",
  이: "2",
  삼: "3",
  사: "4",
  오: "5",
  육: "6",
  칠: "7",
  팔: "8",
  구: "9",
};

// A word may touch digits ("0912three45six78") but not Latin letters ("someone", "tone"); the
// look-alikes are folded by then.
const WORD_DIGIT = `(?:${Object.keys(WORD_DIGITS).join("|")})(?![a-z])`;
const CJK_DIGIT = `[${Object.keys(CJK_DIGITS).join("")}]`;
const KOREAN_DIGIT = `[${Object.keys(KOREAN_DIGITS).join("")}]`;
// What may stand between the digits of a run: a few spaces, dashes, dots, commas or slashes.
const BETWEEN_DIGITS = "[\\s,.\\-–—‐‑/|、·]{0,3}";
const DIGIT_TOKEN = `(?:\\d|${CJK_DIGIT}|${KOREAN_DIGIT}|(?<![a-z])${WORD_DIGIT})`;
/**
 * A run of three or more digits written as digits or digit words, at least one of them a word.
 * A word alone ("one of two", "一起", "이사") stays prose; "zero nine one two" is a number.
 */
export const DIGIT_WORD_RUN = new RegExp(
  `${DIGIT_TOKEN}(?:${BETWEEN_DIGITS}${DIGIT_TOKEN}){2,}`,
  "gi",
);
const HAS_WORD = /[^\d\s,.\-–—‐‑/|、·]/;
const WORD = new RegExp(WORD_DIGIT, "gi");
// Every character a run's digits are written with, to its digit (a Map: looking characters
// outside ASCII up in a plain object is ten times slower).
const CHARACTER_DIGITS = new Map([
  ...Object.entries(CJK_DIGITS),
  ...Object.entries(KOREAN_DIGITS),
  ..."0123456789".split("").map((digit) => [digit, digit] as const),
]);

function digitWords(text: string): string {
  return text.replace(DIGIT_WORD_RUN, (run) => {
    if (!HAS_WORD.test(run)) return run;
    const spoken = run.replace(WORD, (word) => WORD_DIGITS[word.toLowerCase()] ?? word);
    let digits = "";
    for (let i = 0; i < spoken.length; i++) digits += CHARACTER_DIGITS.get(spoken[i] ?? "") ?? "";
    return digits;
  });
}

// A word of letters and digits in which O stands for 0 and l or I for 1: "O912", "09l2".
const LETTER_DIGITS = /(?<![A-Za-z0-9])[oOlIi|\d]*\d[oOlIi|\d]*(?![A-Za-z0-9])/g;
const LOOK_ALIKE_DIGIT_TOKEN = /^(?=(?:[^\d]*\d){3})(?=[^oOlIi|]*[oOlIi|])[\doOlIi|]+$/;
// A look-alike between two digits, in a number written in groups: "9I2-345-678".
const LETTER_BETWEEN_DIGITS = /(?<=\d)[oOlI|](?=\d)/g;

function digitsFor(letters: string): string {
  return letters.replace(/[oO]/g, "0").replace(/[lIi|]/g, "1");
}

// "hxxp://", "hXXps://", "h**p://", "https ://", "http[:]//".
const SCHEME = /(?<![a-z])h(?:xx|\*\*|tt)p(s?)\s{0,3}(?:\[:\]|\(:\)|:)\s{0,3}\/\s{0,3}\//gi;

/**
 * Top-level domains a disguised address is recognised by ("example dot com"). Kept short:
 * every name here turns "word . name" into a domain, so names that are everyday words ("me",
 * "to", "it") join only with an explicit disguise ("[.]", "(dot)", "點") or a path after them.
 */
const DISGUISE_TLDS =
  "com|net|org|info|biz|io|co|app|dev|xyz|top|site|online|shop|store|club|link|live|click|vip|" +
  "win|tv|cc|ly|gg|ru|cn|tw|hk|jp|kr|sg|de|fr|es|uk|eu|br|au|ca|ee|ws|su|tk|ml|ga|cf|gq|pw|" +
  "icu|fun|buzz|cyou|cfd|sbs|work|bid|loan|monster|rest|asia|pro|mobi|cam|lol|chat|social|" +
  "page|me|to|in|us|it|be|my";
// "www example com": a domain with its dots left out.
const SPACED_WWW = new RegExp(
  `(?<![a-z0-9])www\\s{1,3}([a-z0-9][a-z0-9-]*)\\s{1,3}(${DISGUISE_TLDS})(?![a-z0-9])`,
  "gi",
);
const EVERYDAY_WORD_TLDS = new Set([
  "me",
  "to",
  "in",
  "us",
  "it",
  "be",
  "my",
  "fun",
  "work",
  "live",
]);
// A dot as it is written around: "[.]", "(dot)", "{.}", "<dot>", "點", "点", or the words for
// it in the site's Latin-script languages. Spaces are bounded (here and below) so that no
// expression walks a long run of spaces again from every position.
const EXPLICIT_DOT =
  "\\s{0,3}(?:[\\[({<]\\s{0,3}(?:\\.|dot|d0t|點|点|punto|point|punkt)\\s{0,3}[\\])}>]|點|点)\\s{0,3}" +
  "|\\s{1,3}(?:dot|d0t|punto|point|punkt)\\s{1,3}";
// A full stop of Chinese or Japanese, or a middle dot, ends a sentence as often as it hides a
// domain: it joins like a spaced dot. A comma stands for a dot only before com, net and org
// ("example,com"): chat often leaves out the space after a comma ("first,top priority").
const DOT = `(?:${EXPLICIT_DOT}|\\s{0,3}[.。·•∙・⋅‧]\\s{0,3}|,(?=(?:com|net|org)(?![a-z0-9])))`;
// A dot and a top-level domain after a letter or digit: where a disguised domain ends.
// (The lookahead turns most positions away at their first character.)
const DOMAIN_END = new RegExp(
  `(?<=[a-z0-9])(?=[\\s.。·•∙・⋅‧\\[({<點点,])(${DOT})(?:${DISGUISE_TLDS})(?![a-z0-9])(\\s{0,3}/)?`,
  "gi",
);
const MAY_HIDE_A_DOMAIN =
  /[.。·•∙・⋅‧點点]|,(?:com|net|org)|(?<![a-z])(?:dot|d0t|punto|point|punkt)(?![a-z])/i;
const LABEL_BEFORE = /[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const DOT_BEFORE = new RegExp(`(?:${DOT})$`, "i");
const EXPLICIT = new RegExp(`^(?:${EXPLICIT_DOT})$`, "i");

/**
 * Domains written around made plain: from each top-level domain found after a dot, walks back
 * over labels and dots ("www dot example dot com"). A domain ends before the next one starts,
 * so every character is walked once.
 */
function plainDomains(text: string): string {
  let plain = "";
  let done = 0;
  for (const end of text.matchAll(DOMAIN_END)) {
    // A plain dot before the top-level domain: linkify-it reads that domain as written.
    if (end.index < done || end[1] === ".") continue;
    const dots: Array<[number, string]> = [[end.index, end[1] ?? ""]];
    let start = end.index;
    for (;;) {
      const label = LABEL_BEFORE.exec(text.slice(Math.max(done, start - 63), start));
      if (!label) break;
      start -= label[0].length;
      const dot = DOT_BEFORE.exec(text.slice(Math.max(done, start - 16), start));
      const dotStart = start - (dot?.[0].length ?? 0);
      if (!dot || dotStart <= done || !/[a-z0-9]/i.test(text[dotStart - 1] ?? "")) break;
      dots.push([dotStart, dot[0]]);
      start = dotStart;
    }
    const stop = end.index + end[0].length;
    const domain = joinDots(text, start, stop, dots.reverse(), end[2] !== undefined);
    if (domain === undefined) continue;
    plain += text.slice(done, start) + domain;
    done = stop;
  }
  return done === 0 ? text : plain + text.slice(done);
}

/** The domain between start and stop with its dots as dots, or undefined to leave it be. */
function joinDots(
  text: string,
  start: number,
  stop: number,
  dots: Array<[number, string]>,
  path: boolean,
): string | undefined {
  let explicit = false;
  let spaced = false;
  let joined = "";
  let at = start;
  for (const [index, dot] of dots) {
    if (EXPLICIT.test(dot)) explicit = true;
    else if (dot !== ".") spaced = true;
    joined += `${text.slice(at, index)}.`;
    at = index + dot.length;
  }
  if (!explicit && !spaced) return undefined;
  const rest = text.slice(at, stop);
  const tld = rest.replace(/\s*\/$/, "").toLowerCase();
  // "that's it . me too": a spaced dot before an everyday word is a sentence, not a domain.
  if (!explicit && EVERYDAY_WORD_TLDS.has(tld) && !path) return undefined;
  return joined + (path ? rest.replace(/\s+(?=\/$)/, "") : rest);
}

// E-mail providers recognised without a top-level domain ("mei0912 at gmail").
export const MAIL_PROVIDERS =
  "gmail|googlemail|yahoo|hotmail|outlook|icloud|protonmail|proton|qq|163|126|sina|naver|daum|" +
  "hanmail|gmx|yandex|aol";
// "mei (at) example.com", "mei[at]gmail", "mei 艾特 qq.com", "mei 小老鼠 gmail.com", "mei
// arroba gmail.com", "mei at example.com": the word "at" counts only before a domain, or before
// a provider when what comes before it looks like an account ("mei0912 at gmail", not "I worked
// at Yahoo").
const DISGUISED_AT = new RegExp(
  "(?<![a-z0-9._%+-])([a-z0-9][a-z0-9._%+-]*)" +
    "(\\s{0,3}(?:[\\[({<]\\s{0,3}(?:at|@)\\s{0,3}[\\])}>]|艾特|小老鼠|アットマーク|골뱅이|@)\\s{0,3}" +
    "|\\s{1,3}(?:at|arroba|arobase|ät)\\s{1,3})" +
    `([a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.[a-z]{2,}(?![a-z0-9])|(?:${MAIL_PROVIDERS})(?![a-z0-9]))`,
  "gi",
);
const MAY_HIDE_AN_AT =
  /[@＠]|(?<![a-z])(?:at|arroba|arobase|ät)(?![a-z])|艾特|小老鼠|アットマーク|골뱅이/i;
const AT_WORD = /^\s+\p{L}+\s+$/u;
const LOOKS_LIKE_ACCOUNT = /[\d_.]/;

function plainAddress(written: string, account: string, at: string, domain: string): string {
  if (AT_WORD.test(at) && !domain.includes(".") && !LOOKS_LIKE_ACCOUNT.test(account)) {
    return written;
  }
  return `${account}@${domain}`;
}
