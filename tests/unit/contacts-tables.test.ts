import { describe, expect, test } from "bun:test";
import { ABUSED_TLDS } from "../../src/core/moderation/contact-links.ts";
import { contactText } from "../../src/core/moderation/contact-text.ts";
import { contactDetails } from "../../src/core/moderation/contacts.ts";

// Every entry of the tables the contact check reads: a word missing from one is a way around
// the check that no other test would notice.

describe("every digit word of the site's languages reads as its digit in a run", () => {
  const words: Record<string, string> = {
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
    fünf: "5",
    sechs: "6",
    sieben: "7",
    acht: "8",
    neun: "9",
  };
  for (const [word, digit] of Object.entries(words)) {
    test(word, () => {
      expect(contactText(`${word} ${word} ${word}`)).toBe(digit.repeat(3));
    });
  }

  test("Chinese digits, ordinary and financial, in both scripts", () => {
    const digits = "零0〇0一1壹1幺1二2貳2贰2兩2两2三3參3叁3四4肆4五5伍5六6陸6陆6七7柒7八8捌8九9玖9";
    for (let i = 0; i < digits.length; i += 2) {
      const [character = "", digit = ""] = [digits[i], digits[i + 1]];
      expect(`${character}: ${contactText(character.repeat(3))}`).toBe(
        `${character}: ${digit.repeat(3)}`,
      );
    }
  });

  test("Sino-Korean digits", () => {
    const digits = "공0영0일1이2삼3사4오5육6칠7팔8구9";
    for (let i = 0; i < digits.length; i += 2) {
      const [character = "", digit = ""] = [digits[i], digits[i + 1]];
      expect(`${character}: ${contactText(character.repeat(3))}`).toBe(
        `${character}: ${digit.repeat(3)}`,
      );
    }
  });
});

describe("domains that are also words or file names", () => {
  // "the end.it was fun": a missing space, not a link; with a path it is one.
  const everyday = [
    "live",
    "link",
    "win",
    "work",
    "fun",
    "rest",
    "best",
    "date",
    "party",
    "review",
    "men",
    "page",
    "chat",
    "group",
    "games",
    "it",
    "im",
    "me",
    "id",
    "so",
    "no",
    "my",
    "to",
    "in",
    "at",
    "be",
    "do",
    "as",
    "is",
    "us",
    "am",
    "an",
    "by",
    "la",
    "de",
    "es",
    "se",
    "si",
    "il",
    "ne",
  ];
  for (const tld of everyday) {
    test(`"tired.${tld} was long" is no link; "tired.${tld}/x" is`, () => {
      expect(contactDetails(`so tired.${tld} was long`).link).toBe(false);
      expect(contactDetails(`see tired.${tld}/x now`).link).toBe(true);
    });
  }

  test("a file name is no link; with a path it is", () => {
    // "cs" is no domain at all any more: it is never a link.
    for (const extension of ["md", "py", "sh", "pl", "rs", "ps", "mk", "ai"]) {
      expect(`setup.${extension}: ${contactDetails(`open setup.${extension} first`).link}`).toBe(
        `setup.${extension}: false`,
      );
      expect(contactDetails(`open setup.${extension}/x first`).link).toBe(true);
    }
    expect(contactDetails("open setup.cs first").link).toBe(false);
  });
});

describe("domains written with their dots left out or spaced", () => {
  const disguised = (
    "com|net|org|info|biz|io|co|app|dev|xyz|top|site|online|shop|store|club|link|live|click|vip|" +
    "win|tv|cc|ly|gg|ru|cn|tw|hk|jp|kr|sg|de|fr|es|uk|eu|br|au|ca|ee|ws|su|tk|ml|ga|cf|gq|pw|" +
    "icu|fun|buzz|cyou|cfd|sbs|work|bid|loan|monster|rest|asia|pro|mobi|cam|lol|chat|social|" +
    "page|me|to|in|us|it|be|my"
  ).split("|");
  test("'www name tld' is a domain for every domain spammers use", () => {
    for (const tld of disguised) {
      expect(contactText(`www home ${tld}`)).toBe(`www.home.${tld}`);
    }
  });

  test("a spaced dot before an everyday word is a sentence; '(dot)' before it is a domain", () => {
    for (const word of ["me", "to", "in", "us", "it", "be", "my", "fun", "work", "live"]) {
      expect(contactText(`i went home . ${word} bed`)).toBe(`i went home . ${word} bed`);
      expect(contactText(`home (dot) ${word}`)).toBe(`home.${word}`);
    }
    expect(contactText("i went home . com bed")).toBe("i went home.com bed");
  });
});

test("a link on any domain spam is sent from is a link", () => {
  for (const tld of ABUSED_TLDS) {
    expect(`${tld}: ${contactDetails(`visit pills-4u.${tld} now`).link}`).toBe(`${tld}: true`);
  }
  expect(ABUSED_TLDS).toContain("xyz");
  expect(ABUSED_TLDS.length).toBeGreaterThan(60);
});

describe("long numbers and counts", () => {
  test("a count, up or down, by groups or digits, is no phone number", () => {
    expect(contactDetails("100 200 300 400").phone).toBe(false);
    expect(contactDetails("987654321").phone).toBe(false);
    expect(contactDetails("1 2 3 4 5 6 7 8 9 10 11 12 13 14").phone).toBe(false);
  });

  test("more than 15 digits in one group is no phone number; two numbers in a row are", () => {
    expect(contactDetails("order 12345678901234567890").phone).toBe(false);
    expect(contactDetails("0912 345 678 0987 654 321").phone).toBe(true);
  });
});

describe("messenger accounts", () => {
  const cases: Array<[string, boolean, string]> = [
    ["QQ 12345", true, "a QQ number"],
    ["扣扣 12345", true, "a QQ number, by QQ's nickname"],
    ["QQ群 12345678", true, "a QQ group's number"],
    ["加qq群：12345678", true, "a QQ group's number after an invitation"],
    ["wechat 12345678", true, "a WeChat number"],
    ["微信 12345678", true, "a WeChat number in Chinese"],
    ["QQ 1234", false, "four digits are no QQ number"],
    ["line 12345", false, "LINE accounts are not numbers"],
    ["微 mei0912", true, "微 alone with an account a person picks"],
    ["薇 mei_lin", true, "薇 alone with an account a person picks"],
    ["微 meilin", false, "微 alone before a plain word"],
    ["l1ne: mei0912", true, "a name of four letters written with digits"],
    ["w3chat mei0912", true, "a name written with digits"],
    ["s1gnal: meilin", true, "a name written with digits, before a colon"],
    ["k1k: mei0912", false, "a name under four letters is read only as written"],
    ["kik: mei0912", true, "a name under four letters as written"],
    ["telegram v1.2.3", false, "a version number"],
    ["line: telegram", false, "a messenger's name"],
    ["line: abc", false, "three characters after a colon"],
    ["line @abc", true, "three characters after an @"],
    ["line id: abc", true, "three characters after a label"],
    ["line: abcd", true, "four characters after a colon"],
  ];
  for (const [text, found, why] of cases) {
    test(`${text}: ${why}`, () => {
      expect(contactDetails(text).handle).toBe(found);
    });
  }
});
