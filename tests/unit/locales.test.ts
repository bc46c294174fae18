import { describe, expect, test } from "bun:test";
import {
  detectPrefix,
  notFoundSuggestion,
  resolvePath,
  splitPrefix,
  swapPrefix,
} from "../../src/common/locales.ts";

describe("language detection", () => {
  test("zh when the first language starts with zh", () => {
    expect(detectPrefix("zh-TW,zh;q=0.9,en;q=0.8")).toBe("zh");
    expect(detectPrefix("zh")).toBe("zh");
    expect(detectPrefix("ZH-hk")).toBe("zh");
    expect(detectPrefix("zh-CN, en")).toBe("zh");
  });
  test("en otherwise, including when Chinese is only a later choice", () => {
    expect(detectPrefix("en-US,en;q=0.9,zh-TW;q=0.8")).toBe("en");
    expect(detectPrefix("ja")).toBe("en");
    expect(detectPrefix("")).toBe("en");
    expect(detectPrefix(null)).toBe("en");
    expect(detectPrefix(undefined)).toBe("en");
  });
});

describe("prefix swap", () => {
  test("moves a page to the other language", () => {
    expect(swapPrefix("/en/faq", "zh")).toBe("/zh/faq");
    expect(swapPrefix("/zh/public-bottles", "en")).toBe("/en/public-bottles");
  });
  test("home is the bare prefix", () => {
    expect(swapPrefix("/en", "zh")).toBe("/zh");
    expect(swapPrefix("/zh/", "en")).toBe("/en");
  });
  test("a path without a prefix gains one", () => {
    expect(swapPrefix("/faq", "zh")).toBe("/zh/faq");
  });
  test("only a whole first segment counts as a prefix", () => {
    expect(splitPrefix("/english/x")).toEqual({ prefix: undefined, rest: "/english/x" });
    expect(swapPrefix("/zhx", "en")).toBe("/en/zhx");
  });
});

describe("path resolution", () => {
  test("the root redirects by language", () => {
    expect(resolvePath("/", "zh-TW")).toEqual({ kind: "redirect", location: "/zh" });
    expect(resolvePath("/", "fr")).toEqual({ kind: "redirect", location: "/en" });
  });
  test("unprefixed pages redirect to English", () => {
    for (const slug of [
      "create",
      "discover",
      "about",
      "privacy",
      "terms",
      "contact",
      "faq",
      "public-bottles",
      "random-chat",
      "my-bottles",
    ]) {
      expect(resolvePath(`/${slug}`)).toEqual({ kind: "redirect", location: `/en/${slug}` });
    }
  });
  test("prefixed pages and /auth are pages", () => {
    expect(resolvePath("/zh")).toEqual({ kind: "page", prefix: "zh", slug: "" });
    expect(resolvePath("/en/random-chat")).toEqual({
      kind: "page",
      prefix: "en",
      slug: "random-chat",
    });
    expect(resolvePath("/auth")).toEqual({ kind: "auth" });
    // The header's sign-in page, under a language prefix too.
    expect(resolvePath("/en/auth")).toEqual({ kind: "auth", prefix: "en" });
    expect(resolvePath("/zh/auth/")).toEqual({ kind: "auth", prefix: "zh" });
  });
  test("anything else is not found", () => {
    for (const path of [
      "/nope",
      "/en/nope",
      "/en/faq/extra",
      "/fr/faq",
      "/zh/auth/x",
      "/healthy",
    ]) {
      expect(resolvePath(path).kind).toBe("not-found");
    }
  });
});

describe("not-found suggestion", () => {
  test("suggests the same path under the current language when it has no prefix", () => {
    expect(notFoundSuggestion("/some/page", "zh")).toBe("/zh/some/page");
    expect(notFoundSuggestion("/missing", "en")).toBe("/en/missing");
  });
  test("suggests nothing for prefixed paths or the root", () => {
    expect(notFoundSuggestion("/en/missing", "en")).toBeUndefined();
    expect(notFoundSuggestion("/zh", "en")).toBeUndefined();
    expect(notFoundSuggestion("/", "en")).toBeUndefined();
  });
});
