import { describe, expect, test } from "bun:test";
import {
  INTEREST_WINDOW_MS,
  MATCH_FALLBACK_MS,
  matchPreferencesInput,
  normalizeInterest,
} from "../../src/common/chat-preferences.ts";
import {
  anyoneFrom,
  bestTierOf,
  interestKey,
  languageFrom,
  matchPreferencesOf,
  type Seeker,
  sharedGround,
  tierOf,
} from "../../src/core/chat/preferences.ts";
import { DomainError } from "../../src/core/errors.ts";

/** A waiting visitor who joined at `since` asking for these (nothing: "Anyone"). */
function seeker(languages: string[], interests: string[] = [], since = 0): Seeker {
  const preferences = matchPreferencesOf(matchPreferencesInput.parse({ languages, interests }));
  return {
    ...(preferences ? { preferences } : {}),
    since,
    anyoneFrom: anyoneFrom(preferences, since),
  };
}

describe("the matching rule, as a table", () => {
  const T = MATCH_FALLBACK_MS;
  const W = INTEREST_WINDOW_MS;
  const cases: Array<[string, Seeker, Seeker, number, number]> = [
    // [case, a, b, at, tier]
    [
      "a shared language and interest",
      seeker(["en"], ["hiking"]),
      seeker(["en"], ["Hiking"]),
      0,
      2,
    ],
    [
      "a shared language only, in the interest window",
      seeker(["en"], ["hiking"]),
      seeker(["en"], ["chess"]),
      W - 1,
      -1,
    ],
    [
      "a shared language only, once the window ends",
      seeker(["en"], ["hiking"]),
      seeker(["en"], ["chess"]),
      W,
      1,
    ],
    [
      "a shared language with one who named no interest waits for the other's window",
      seeker(["en"], ["origami"]),
      seeker(["en"]),
      W - 1,
      -1,
    ],
    ["a shared language, no interests named: at once", seeker(["en"]), seeker(["en"]), 0, 1],
    [
      "one who widened in the window takes a shared language",
      { ...seeker(["en"], ["origami"]), anyoneFrom: 0 },
      seeker(["en"]),
      0,
      1,
    ],
    ["both Chinese scripts are one language", seeker(["zh-TW"]), seeker(["zh-CN"]), 0, 1],
    [
      "an interest in either script",
      seeker(["zh-TW"], ["音樂"]),
      seeker(["zh-CN"], ["音乐"]),
      0,
      2,
    ],
    [
      "an interest without a shared language is nothing shared",
      seeker(["en"], ["chess"]),
      seeker(["ja"], ["chess"]),
      0,
      -1,
    ],
    ["nothing shared, before the fallback", seeker(["en"]), seeker(["ja"]), T - 1, -1],
    ["nothing shared, after both fallbacks", seeker(["en"]), seeker(["ja"]), T, 0],
    ["anyone meets anyone at once", seeker([]), seeker([]), 0, 0],
    ["anyone waits for one who insists on a language", seeker([]), seeker(["en"]), 0, -1],
    ["anyone meets them once their fallback passed", seeker([]), seeker(["en"]), T, 0],
    ["one who widened accepts anyone", { ...seeker(["en"]), anyoneFrom: 0 }, seeker([]), 0, 0],
    [
      "interests, no language: a shared interest at once, whatever the other's languages",
      seeker([], ["chess"]),
      seeker(["en"], ["chess"]),
      0,
      2,
    ],
    [
      "interests, no language: anyone once the window ends, not before",
      seeker([], ["chess"]),
      seeker([]),
      W - 1,
      -1,
    ],
    ["interests, no language: anyone after the window", seeker([], ["chess"]), seeker([]), W, 0],
  ];
  for (const [name, a, b, at, tier] of cases) {
    test(`${name}: ${tier}`, () => {
      expect(tierOf(a, b, at)).toBe(tier as -1 | 0 | 1 | 2);
      expect(tierOf(b, a, at)).toBe(tier as -1 | 0 | 1 | 2);
    });
  }
});

describe("preferences", () => {
  test("interests are folded by case, width, spaces and Chinese script; each side keeps its words", () => {
    expect(interestKey("  ＨＩＫＩＮＧ   in  the hills ")).toBe("hiking in the hills");
    expect(interestKey("音乐")).toBe(interestKey("音樂"));
    // Taiwan's own forms too.
    expect(interestKey("夜裡散步")).toBe(interestKey("夜里散步"));
    expect(interestKey("爬山")).not.toBe(interestKey("音樂"));
    const a = seeker(["en"], ["Board Games", "hiking"]);
    const b = seeker(["en", "ja"], ["board   games"]);
    expect(sharedGround(a, b)).toEqual({ languages: ["en"], interests: ["board games"] });
    expect(sharedGround(b, a)).toEqual({ languages: ["en"], interests: ["board games"] });
    expect(sharedGround(seeker([]), seeker([]))).toBeUndefined();
  });

  test("invisible characters never split an interest: zero-width, word joiner, BOM, bidi controls", () => {
    const invisible = [
      "\u200B", // zero-width space
      "\u200C", // zero-width non-joiner
      "\u200D", // zero-width joiner
      "\u2060", // word joiner
      "\uFEFF", // byte order mark
      "\u200E", // left-to-right mark
      "\u200F", // right-to-left mark
      "\u061C", // Arabic letter mark
      "\u202A", // left-to-right embedding
      "\u202B", // right-to-left embedding
      "\u202C", // pop directional formatting
      "\u202D", // left-to-right override
      "\u202E", // right-to-left override
      "\u2066", // left-to-right isolate
      "\u2067", // right-to-left isolate
      "\u2068", // first strong isolate
      "\u2069", // pop directional isolate
      "\u00AD", // soft hyphen
    ];
    for (const mark of invisible) {
      const name = `U+${mark.codePointAt(0)?.toString(16).toUpperCase()}`;
      expect(normalizeInterest(`hi${mark}king`), name).toBe("hiking");
      expect(normalizeInterest(`${mark}hiking${mark}`), name).toBe("hiking");
      expect(interestKey(`音${mark}樂`), name).toBe(interestKey("音乐"));
      expect(seeker(["en"], [`Hi${mark}king`]).preferences?.interests, name).toEqual([
        { key: "hiking", label: "hiking" },
      ]);
    }
    // Many at once, and around a space: still one space, one interest.
    expect(normalizeInterest("\u202Eboard\u200B \u2066 games\u2069\uFEFF")).toBe("board games");
    // A mark split from its letter by one joins it again.
    expect(normalizeInterest("cafe\u200B\u0301")).toBe(normalizeInterest("café"));
    // Nothing but invisible characters is an empty interest, which the form refuses.
    expect(() =>
      matchPreferencesInput.parse({ languages: ["en"], interests: ["\u200B\u2060\uFEFF"] }),
    ).toThrow();
    const a = seeker(["en"], ["hik\u200Bing"]);
    const b = seeker(["en"], ["hiking"]);
    expect(tierOf(a, b, 0)).toBe(2);
  });

  test("an invisible character does not hide contact details or a slur from the filters", () => {
    for (const bad of ["f\u200Buck", "line\u2060 id mei0912", "@mei\u200D_lin"]) {
      expect(() => seeker(["en"], [bad])).toThrow(DomainError);
    }
  });

  test("an interest with contact details or a slur is refused; nothing asked is Anyone", () => {
    // Twice each: the second time the remembered verdict decides.
    for (const bad of ["line id mei0912", "fuck", "@mei_lin", "fuck"]) {
      expect(() => seeker(["en"], [bad])).toThrow(DomainError);
      expect(() => seeker(["en"], ["hiking", bad])).toThrow(DomainError);
    }
    expect(seeker([]).preferences).toBeUndefined();
  });

  test("at most five interests of at most 24 characters, doubles dropped", () => {
    expect(() =>
      matchPreferencesInput.parse({ languages: ["en"], interests: ["a", "b", "c", "d", "e", "f"] }),
    ).toThrow();
    expect(() =>
      matchPreferencesInput.parse({ languages: ["en"], interests: ["x".repeat(25)] }),
    ).toThrow();
    expect(
      matchPreferencesInput.parse({ languages: ["en", "en"], interests: ["Sea", "sea "] }),
    ).toEqual({ languages: ["en"], interests: ["sea"] });
    // Doubles the pool folds together too: both Chinese scripts, one interest in each script
    // (kept in the words written first); what two share is then said once.
    const both = seeker(["zh-TW", "zh-CN"], ["音樂", "音乐"]);
    expect(both.preferences?.languages).toEqual(["zh"]);
    expect(both.preferences?.interests.map((i) => i.label)).toEqual(["音樂"]);
    expect(sharedGround(both, seeker(["zh-CN"], ["音乐"]))).toEqual({
      languages: ["zh"],
      interests: ["音樂"],
    });
  });
});

describe("what the pool reads of two visitors", () => {
  test("a refused interest is named by its place, the others kept unnamed", () => {
    try {
      seeker(["en"], ["hiking", "fuck", "sea", "line id mei0912"]);
      throw new Error("not refused");
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      expect(error.code).toBe("INTEREST_REFUSED");
      expect(error.issues).toEqual([
        { field: "interests.1", kind: "invalid" },
        { field: "interests.3", kind: "invalid" },
      ]);
    }
  });

  test("one shared language among several is enough, for an interest and for the language", () => {
    const both = seeker(["en", "ja"], ["hiking"]);
    const one = seeker(["ja"], ["hiking"]);
    expect(tierOf(both, one, 0)).toBe(2);
    expect(tierOf(one, both, 0)).toBe(2);
    const noInterest = seeker(["ja", "ko"]);
    expect(tierOf(seeker(["en", "ko"]), noInterest, 0)).toBe(1);
  });

  test("the best tier a visitor can reach: an interest, else a language, else anyone", () => {
    expect(bestTierOf(seeker(["en"], ["hiking"]))).toBe(2);
    expect(bestTierOf(seeker([], ["hiking"]))).toBe(2);
    expect(bestTierOf(seeker(["en"]))).toBe(1);
    expect(bestTierOf(seeker([]))).toBe(0);
  });

  test("a visitor who asked nothing takes a language at once", () => {
    const anyone = seeker([], [], 5);
    expect(languageFrom(anyone)).toBe(5);
    expect(languageFrom(seeker(["en"], [], 5))).toBe(5);
    expect(languageFrom(seeker(["en"], ["hiking"], 5))).toBe(5 + INTEREST_WINDOW_MS);
  });

  test("what two share, when one of them asked nothing: nothing, in either's words", () => {
    const asked = seeker(["en"], ["hiking"]);
    const nothing = seeker([]);
    expect(sharedGround(asked, nothing)).toEqual({ languages: [], interests: [] });
    expect(sharedGround(nothing, asked)).toEqual({ languages: [], interests: [] });
    expect(sharedGround(nothing, seeker([]))).toBeUndefined();
  });
});
