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

  test("the spec's strings are used as written", () => {
    expect(en.notFound.title).toBe("Oops! Page not found");
    expect(zhTW.notFound.title).toBe("糟糕！找不到頁面");
  });
});
