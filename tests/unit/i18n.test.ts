import { describe, expect, test } from "bun:test";
import { compareDictionaries } from "../../i18n/check";
import en from "../../i18n/en/index";
import zhTW from "../../i18n/zh-TW/index";

describe("dictionaries", () => {
  test("en and zh-TW name the same keys and none is empty", () => {
    expect(compareDictionaries(en, zhTW)).toEqual([]);
  });

  test("the check notices a missing key and an empty value", () => {
    expect(compareDictionaries({ a: "x", b: { c: "y" } }, { a: "", b: {} })).toEqual([
      "zh-TW lacks b.c",
      "zh-TW: a is empty",
    ]);
  });

  test("the not-found page's title reads as written in each language", () => {
    expect(en.notFound.title).toBe("Oops! Page not found");
    expect(zhTW.notFound.title).toBe("糟糕！找不到頁面");
  });
});

/** Every string of a dictionary with its dotted key. */
function strings(dictionary: object, prefix = ""): Array<[string, string]> {
  return Object.entries(dictionary).flatMap(([key, value]): Array<[string, string]> => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") return [[path, value]];
    return value && typeof value === "object" ? strings(value, path) : [];
  });
}

describe("the copy review (zh-TW against en)", () => {
  test("one ellipsis, …, in both languages", () => {
    const dotted = [...strings(en), ...strings(zhTW)].filter(([, text]) => text.includes("..."));
    expect(dotted).toEqual([]);
  });

  test("a chat ban reads as a pause with the time left, in the visitor's own words", () => {
    expect(en.randomChat.restrictedToast).toStartWith("Your chat is paused");
    expect(en.randomChat.restrictedToast).toContain("{time:string}");
    expect(zhTW.randomChat.restrictedToast).toBe("你的聊天功能已暫停（約 {time}後即可再次聊天）。");
    expect(JSON.stringify(zhTW)).not.toContain("禁止使用聊天");
  });

  test("too long names the limit as the most allowed, not one less", () => {
    expect(en.errors.tooLong).toBe("Please use no more than {limit:number} characters.");
    expect(zhTW.errors.tooLong).toBe("請勿超過 {limit} 個字元。");
  });

  test("terms and FAQ agree: no person reviews a message first, filters screen each one", () => {
    expect(en.terms.sections.disclaimer.body).toContain("automatic filters screen each message");
    expect(en.faq.items.allowedContent.answer).toContain("automatic filters screen each one");
    expect(zhTW.terms.sections.disclaimer.body).toContain("自動篩選");
    expect(zhTW.faq.items.allowedContent.answer).toContain("自動篩選");
  });

  test("Chinese word choices: sessions, send verbs, expiry, storage", () => {
    const zh = JSON.stringify(zhTW);
    for (const word of ["登入紀錄", "保存", "發送", "傳送中", "他。", "..."]) {
      expect(zh).not.toContain(word);
    }
    expect(zhTW.create.failedTitle).toBe("送出失敗");
    expect(zhTW.create.expiry).toBe("有效期限");
    expect(zhTW.meta.titles.home).toBe("Tidings · 瓶中信");
    expect(zhTW.nav.main).toBe("主選單");
    expect(zhTW.discover.card.likeSignIn).toContain("確保每個讚都代表一個人");
  });
});
