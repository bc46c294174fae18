import { afterEach, describe, expect, test } from "bun:test";
import { deviceTargets } from "../../src/web/lib/device-translation.ts";

// The page's globals as Chrome names them; each test puts its own browser in.
const scope = globalThis as Record<string, unknown>;
afterEach(() => {
  delete scope.LanguageDetector;
  delete scope.Translator;
});

const never = () => new Promise<never>(() => {});
const translator = {
  availability: async ({ targetLanguage }: { targetLanguage: string }) =>
    targetLanguage === "ja" ? "available" : "unavailable",
  create: never,
};

describe("what the browser offers to translate on the device", () => {
  test("a ready detector and translator: the languages it has", async () => {
    scope.LanguageDetector = {
      availability: async () => "available",
      create: async () => ({ detect: async () => [{ detectedLanguage: "en", confidence: 0.9 }] }),
    };
    scope.Translator = translator;
    expect([...(await deviceTargets("Good morning from the harbour"))]).toEqual([["ja", "ready"]]);
  });

  test("a detector that must first download is not downloaded to answer: nothing is offered", async () => {
    let created = 0;
    scope.LanguageDetector = {
      availability: async () => "downloadable",
      create: () => {
        created++;
        return never();
      },
    };
    scope.Translator = translator;
    expect((await deviceTargets("A download that never ends")).size).toBe(0);
    expect(created).toBe(0);
  });

  test("a browser that never answers offers nothing once the wait is over", async () => {
    scope.LanguageDetector = { availability: never, create: never };
    scope.Translator = translator;
    expect((await deviceTargets("A browser that is thinking", 20)).size).toBe(0);
  });
});
