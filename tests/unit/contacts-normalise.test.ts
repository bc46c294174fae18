import { describe, expect, test } from "bun:test";
import { linkFinder, linksAndAddresses } from "../../src/core/moderation/contact-links.ts";
import { contactText } from "../../src/core/moderation/contact-text.ts";
import {
  cannotHoldContactDetails,
  contactDetails,
  contactDetailsInFull,
  hasContactDetails,
} from "../../src/core/moderation/contacts.ts";
import forms from "../fixtures/contact-forms.json";
import ordinary from "../fixtures/ordinary-texts.json";

describe("contact text, as spammers write it", () => {
  const read: Array<[string, string, string]> = [
    ["keycaps lose their marks", "0️⃣9️⃣1️⃣2️⃣", "0912"],
    ["invisible characters go", "09\u200b12\u2060345\u00ad678", "09123456 78".replace(" ", "")],
    ["Cyrillic and Greek look-alikes fold to Latin", "раураl.com ορеn", "paypal.com open"],
    ["squared and circled letters fold", "🅴🆇🅰🅼🅿🅻🅴 ⓔⓧ", "EXAMPLE ex"],
    ["digits of other scripts are digits", "٠٩١٢", "0912"],
    ["digit words in a run are digits", "zero nine one two", "0912"],
    ["a digit word alone stays prose", "one of two things", "one of two things"],
    ["Chinese digits in a run are digits", "〇九一二 三四五", "0912345"],
    ["Chinese digits in words stay words", "一起去看海", "一起去看海"],
    ["幺 and 兩 read as said aloud", "幺三八兩", "1382"],
    ["Sino-Korean digits in a run", "공일공", "010"],
    ["spelled-out letters join", "L I N E", "LINE"],
    ["O and l stand for digits in a number", "O912-345-6l8", "0912-345-618"],
    ["'dot com' is a domain", "example dot com", "example.com"],
    ["[.] and (dot)", "example[.]com and example(dot)org", "example.com and example.org"],
    ["點 and the ideographic full stop", "example點com example。net", "example.com example.net"],
    ["spaces inside a domain", "www . example . com", "www.example.com"],
    ["hxxp is http", "hxxps://example[.]com", "https://example.com"],
    ["(at) before a domain is @", "mei (at) example (dot) org", "mei@example.org"],
    ["'at' before a provider, after an account", "mei0912 at gmail", "mei0912@gmail"],
  ];
  for (const [name, written, plain] of read) {
    test(name, () => {
      expect(contactText(written)).toBe(plain);
    });
  }

  const kept: Array<[string, string]> = [
    ["Chinese, Japanese and Korean are never folded to Latin", "七下丁山〇ロエモ카톡"],
    ["a spaced dot before an everyday word is a sentence", "that's it . me too"],
    ["'at' between words is not an address", "I worked at Yahoo"],
    ["a dot word not before a domain stays", "a dot on the map"],
    ["a comma stands for a dot only before com, net and org", "first,top priority"],
  ];
  for (const [name, text] of kept) {
    test(name, () => {
      expect(contactText(text)).toBe(text.normalize("NFKC"));
    });
  }
});

describe("phone numbers by the sender's region", () => {
  test("an 8-digit mobile counts with its region and not without", () => {
    expect(contactDetails("call 9123 4567", "SG").phone).toBe(true);
    expect(contactDetails("call 9123 4567", "sg").phone).toBe(true);
    expect(contactDetails("call 9123 4567").phone).toBe(false);
    expect(contactDetails("打俾我 6123 4567", "HK").phone).toBe(true);
  });
  test("an unknown region is ignored, not an error", () => {
    expect(contactDetails("call 9123 4567", "XX").phone).toBe(false);
    expect(contactDetails("call 9123 4567", "").phone).toBe(false);
    expect(contactDetails("call 0912 345 678", "ZZ").phone).toBe(true);
  });
  test("dates, prices and numbers that are not valid there do not count", () => {
    expect(hasContactDetails("Order 20261123 shipped", "SG")).toBe(false);
    expect(hasContactDetails("房租 8000 元，押金 16000 元", "HK")).toBe(false);
    expect(hasContactDetails("code 1234 5678", "SG")).toBe(false);
  });
});

describe("contact text: each disguise in each of its forms", () => {
  const read: Array<[string, string, string]> = [
    ["Greek iota and the dotless i read as i", "ιnfo lıne Ιnfo Іnfo", "info line Info Info"],
    ["symbols are not folded to letters", "I ❤ you ©", "I ❤ you ©"],
    [
      "every run of digit words, in any case",
      "zero nine one two and THREE FOUR FIVE",
      "0912 and 345",
    ],
    [
      "letters standing alone beside digits stay letters",
      "my i5 laptop on O2",
      "my i5 laptop on O2",
    ],
    ["hxxp without an s", "go hxxp://x.com", "go http://x.com"],
    ["a space before the colon", "see h**ps ://x.com", "see https://x.com"],
    ["a space after the colon", "see hXXps: //x.com", "see https://x.com"],
    ["a space between the slashes", "see http:/ /x.com", "see http://x.com"],
    [
      "every spaced www, in any case",
      "www example com and WWW other NET",
      "www.example.com and www.other.NET",
    ],
    ["a name of one letter", "t[.]me/mei", "t.me/mei"],
    ["DOT in capitals, twice", "www DOT example DOT com", "www.example.com"],
    ["DOT in capitals before an everyday word", "find meilin DOT me", "find meilin.me"],
    ["spaces before a path's slash", "find meilin . me  /mei", "find meilin.me/mei"],
    ["'at' set apart by two spaces between words", "I worked  at  Yahoo", "I worked  at  Yahoo"],
  ];
  for (const [name, written, plain] of read) {
    test(name, () => {
      expect(contactText(written)).toBe(plain);
    });
  }

  test("a look-alike closing a number is a digit", () => {
    expect(contactDetails("call 09123456l").phone).toBe(true);
  });

  test("a text that cannot hold any says so in full", () => {
    expect(contactDetails("hello there")).toEqual({
      link: false,
      email: false,
      phone: false,
      handle: false,
    });
  });
});

describe("messenger accounts, and what only looks like one", () => {
  const handles: Array<[string, boolean]> = [
    ["ping @mei_lin", true],
    // Three characters at least after "@".
    ["ping @jo", false],
    ["加我 meilin", true],
    ["line: 0912mei", true],
    ["我的line是mei0912", true],
    ["discord: mei_lin", true],
    ["telegram: meilin, see you", true],
    ["Telegram: such  an old thing", false],
    // 微 and 薇 stand in ordinary words too: only an account a person picks counts after them.
    ["微：meilin", false],
    ["薇：meilin", false],
    ["微：mei0912", true],
    // A version number is not an account.
    ["update telegram: 10.25.3", false],
    ["LINE v10.25.3", false],
  ];
  for (const [text, handle] of handles) {
    test(`${text}: ${handle ? "an account" : "no account"}`, () => {
      expect(contactDetails(text).handle).toBe(handle);
    });
  }
});

describe("links and addresses the link finder does not read", () => {
  // A finder that knows no top-level domain in use: what is found is found by the expressions
  // for messenger links and addresses alone.
  const blind = linkFinder(["zzzz"], false);
  const found = (text: string) => linksAndAddresses(contactText(text), blind);

  test("messenger invitations, with or without spaces around the slash", () => {
    for (const text of [
      "join t.me/mei",
      "t.me / mei",
      "wa.me/886912345678",
      "line.me/ti/p/abc",
      "discord.gg/abc",
      "qm.qq.com/x",
      "open.kakao.com/o/abc",
      "chat.whatsapp.com/abc",
    ]) {
      expect({ text, ...found(text) }).toEqual({ text, link: true, email: false });
    }
    // The end of another word is no messenger's name.
    expect(found("what.me/now")).toEqual({ link: false, email: false });
  });

  test("addresses with any top-level domain, in any script, or a provider alone", () => {
    for (const text of [
      "mei@example.coffee",
      "write to mei.lin_0912+chat@mail.example.coffee now",
      "美玲@例子.公司",
      "0912@163.coffee",
      "mei@ex-ample.coffee",
      "mei0912@gmail",
      "MEI0912@GMAIL",
    ]) {
      expect({ text, ...found(text) }).toEqual({ text, link: false, email: true });
    }
    expect(found("@example.coffee")).toEqual({ link: false, email: false });
  });

  test("a link and an address in one text are both found", () => {
    expect(contactDetails("see x.com or write mei@example.com")).toMatchObject({
      link: true,
      email: true,
    });
    expect(hasContactDetails("I was tired.so I slept, see meilin.com")).toBe(true);
  });

  test("an everyday word as top-level domain: a link with more labels or before a comma", () => {
    const link = (text: string) => contactDetails(text).link;
    expect(link("see notes.example.md")).toBe(true);
    expect(link("add mail.meilin.me today")).toBe(true);
    expect(link("add 0912mei.me today")).toBe(true);
    expect(link("see meilin.me, hello")).toBe(true);
    expect(link("see meilin.tw")).toBe(true);
    // A sentence missing its space, however many spaces follow; a file name.
    expect(link("I was tired.so  I slept")).toBe(false);
    expect(link("open Program.cs")).toBe(false);
  });
});

describe("numbers that are phones, and numbers that are not", () => {
  test("a date written as eight digits is no phone, where eight digits would be one", () => {
    // In Germany 2021123 and 20261123 are both numbers one can dial.
    expect(contactDetails("ruf 2021123 an", "DE").phone).toBe(true);
    for (const date of ["20261123", "20260505", "20261231", "19991030"]) {
      expect({ date, phone: contactDetails(`Bestellung ${date} verschickt`, "DE").phone }).toEqual({
        date,
        phone: false,
      });
    }
  });

  test("a phone written in dotted pairs or groups is a phone, not a date or a version", () => {
    expect(contactDetails("appelle-moi au 06.12.34.56.78").phone).toBe(true);
    expect(contactDetails("call 0912.345.678").phone).toBe(true);
  });

  test("a nine-digit number beside another number is a phone", () => {
    expect(contactDetails("091234567 12345678").phone).toBe(true);
  });

  test("every decimal, version and price in a text is set aside, not only the first", () => {
    for (const text of [
      "pi is 3.14159265 and e is 2.71828182",
      "Chrome 120.0.6099.109 on Windows 10.0.19045.2965",
      "budget 120000000元, spent 450000000元",
    ]) {
      expect({ text, phone: contactDetails(text).phone }).toEqual({ text, phone: false });
    }
  });
});

describe("the pre-check", () => {
  test("lets ordinary short messages through without the normaliser", () => {
    for (const text of [
      "haha same, how was your day?",
      "I'm at home at last",
      "哈哈我也是！今天好累喔",
      "오늘 바다 보러 갈래?",
      "またね！",
    ]) {
      expect(cannotHoldContactDetails(text)).toBe(true);
    }
  });

  test("never skips a text the full check would find something in", () => {
    const texts = [
      ...forms.texts.map((form) => form.text),
      ...ordinary.texts.map((text) => text.text),
      ...generated(4000),
    ];
    const skippedWrongly = texts.filter((text) => {
      if (!cannotHoldContactDetails(text)) return false;
      const found = contactDetailsInFull(text);
      return found.link || found.email || found.phone || found.handle;
    });
    expect(skippedWrongly).toEqual([]);
    // The forms themselves are never skipped.
    expect(forms.texts.filter((form) => cannotHoldContactDetails(form.text))).toEqual([]);
  });
});

/** Texts made of ordinary words and the pieces disguises are built from, in random order. */
function generated(count: number): string[] {
  const pieces = [
    "the",
    "sea",
    "line",
    "id",
    "me",
    "mei",
    "meilin",
    "at",
    "dot",
    "com",
    "so",
    "it",
    "one",
    "two",
    "nine",
    "oh",
    "一",
    "二",
    "九",
    "兩",
    "賴",
    "加我",
    "點",
    "微信",
    "이",
    "공",
    "a",
    "b",
    "I",
    "G",
    ".",
    ",",
    ":",
    "。",
    "，",
    "/",
    "(",
    ")",
    "[",
    "]",
    "-",
    "_",
    "#",
    "?",
    "!",
    "'",
  ];
  const separators = [" ", "", " ", "  "];
  let seed = 21;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  return Array.from({ length: count }, () => {
    let text = "";
    const length = 1 + random(12);
    for (let i = 0; i < length; i++) {
      text += (pieces[random(pieces.length)] ?? "") + (separators[random(separators.length)] ?? "");
    }
    return text;
  });
}

describe("cost", () => {
  // Each of these once took milliseconds to tens of milliseconds (an expression walking a chain
  // of labels again from every label). Measured in CPU time, with a wide margin for a shared
  // machine: they take well under a millisecond each.
  const repeatTo = (unit: string) => unit.repeat(Math.ceil(1000 / unit.length)).slice(0, 1000);
  const slow = [
    "a.",
    "1.",
    "a-",
    "a@",
    "1 ",
    "a ",
    "a . ",
    "a dot ",
    "one two ",
    "一二三 ",
    "line: ",
    "加我 ",
    "ab.cd ",
    "end.It ",
    "12345678 ",
    "oO1 ",
    "0️⃣ nine 點 exаmple (at) 賴: 加我 ",
  ];
  for (const unit of slow) {
    test(`1,000 characters of ${JSON.stringify(unit)} are checked in linear time`, () => {
      const text = repeatTo(unit);
      contactDetailsInFull(text);
      const started = process.cpuUsage();
      for (let i = 0; i < 5; i++) contactDetailsInFull(text.split("").join(""));
      const used = process.cpuUsage(started);
      expect((used.user + used.system) / 5).toBeLessThan(20_000);
    });
  }
});
