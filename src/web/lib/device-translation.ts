// The browser's own translator (Chrome's Translator and LanguageDetector globals), which runs in
// the page: the text never leaves the visitor's device. Everything here is feature-detected;
// browsers without it simply offer nothing on the device.
import { type TargetLanguage, targetLanguages } from "../../common/translation.ts";

type Availability = "unavailable" | "downloadable" | "downloading" | "available";

/** The parts of the Translator API we use (TypeScript's DOM types do not name it yet). */
interface TranslatorApi {
  availability(options: { sourceLanguage: string; targetLanguage: string }): Promise<Availability>;
  create(options: { sourceLanguage: string; targetLanguage: string }): Promise<{
    translate(text: string): Promise<string>;
  }>;
}

interface LanguageDetectorApi {
  availability(): Promise<Availability>;
  create(): Promise<{
    detect(
      text: string,
    ): Promise<ReadonlyArray<{ detectedLanguage?: string; confidence?: number }>>;
  }>;
}

/** How the device can translate into a language: at once, or once the browser has its model. */
export type DeviceReadiness = "ready" | "download";

/** The browser's language tags for the menu's languages. */
const BROWSER_CODES: Record<TargetLanguage, string> = {
  en: "en",
  "zh-TW": "zh-Hant",
  "zh-CN": "zh",
  ja: "ja",
  ko: "ko",
  es: "es",
  fr: "fr",
  de: "de",
};

/** Below this, the detector's guess is not trusted as the text's language. */
const MIN_CONFIDENCE = 0.5;
/** How long the translate menu waits for the browser to say what it can do on the device. */
const DEVICE_ANSWER_MS = 2000;
/** Texts whose answers are kept (a chat's partner messages, a few bottles). */
const REMEMBERED_TEXTS = 100;

function hasMethods(value: unknown, ...names: string[]): boolean {
  if (typeof value !== "function" && (typeof value !== "object" || value === null)) return false;
  const target = value as Record<string, unknown>;
  return names.every((name) => typeof target[name] === "function");
}

function browserApis(): { translator: TranslatorApi; detector: LanguageDetectorApi } | undefined {
  const scope = globalThis as { Translator?: unknown; LanguageDetector?: unknown };
  // Without a detector the text's own language is unknown, and the translator needs it.
  if (!hasMethods(scope.Translator, "availability", "create")) return undefined;
  if (!hasMethods(scope.LanguageDetector, "availability", "create")) return undefined;
  return {
    translator: scope.Translator as TranslatorApi,
    detector: scope.LanguageDetector as LanguageDetectorApi,
  };
}

/** Whether this browser has an on-device translator at all. */
export function deviceTranslationSupported(): boolean {
  return browserApis() !== undefined;
}

let detector: ReturnType<LanguageDetectorApi["create"]> | undefined;
const sources = new Map<string, Promise<string | undefined>>();
const translators = new Map<string, ReturnType<TranslatorApi["create"]>>();

/** The text's language as the browser's detector sees it; undefined when it is not sure. */
function sourceLanguage(apis: NonNullable<ReturnType<typeof browserApis>>, text: string) {
  let known = sources.get(text);
  if (!known) {
    known = (async () => {
      // Only a detector already on the device: creating one that must first download starts a
      // download that may never end, and the menu would wait on it.
      if ((await apis.detector.availability()) !== "available") return undefined;
      detector ??= apis.detector.create();
      const [best] = await (await detector).detect(text);
      const language = best?.detectedLanguage;
      if (!language || language === "und" || (best.confidence ?? 0) < MIN_CONFIDENCE) {
        return undefined;
      }
      return language;
    })().catch(() => undefined);
    if (sources.size >= REMEMBERED_TEXTS) sources.delete(sources.keys().next().value ?? "");
    sources.set(text, known);
  }
  return known;
}

/**
 * The languages this browser can translate `text` into on the device, and how soon. A browser
 * that has not answered `within` ms offers nothing this time: the menu must not wait on it.
 */
export async function deviceTargets(
  text: string,
  within = DEVICE_ANSWER_MS,
): Promise<Map<TargetLanguage, DeviceReadiness>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Map<TargetLanguage, DeviceReadiness>>((resolve) => {
    timer = setTimeout(() => resolve(new Map()), within);
  });
  try {
    return await Promise.race([askDevice(text), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function askDevice(text: string): Promise<Map<TargetLanguage, DeviceReadiness>> {
  const found = new Map<TargetLanguage, DeviceReadiness>();
  const apis = browserApis();
  if (!apis) return found;
  const source = await sourceLanguage(apis, text);
  if (!source) return found;
  await Promise.all(
    targetLanguages.map(async (target) => {
      const targetLanguage = BROWSER_CODES[target];
      if (targetLanguage === source) return;
      try {
        const answer = await apis.translator.availability({
          sourceLanguage: source,
          targetLanguage,
        });
        if (answer === "available") found.set(target, "ready");
        else if (answer === "downloadable" || answer === "downloading") {
          found.set(target, "download");
        }
      } catch {
        // A pair the browser cannot even judge is one it cannot translate.
      }
    }),
  );
  return found;
}

/** Translates on the device; rejects when the browser cannot (the caller shows the failure). */
export async function translateOnDevice(text: string, target: TargetLanguage): Promise<string> {
  const apis = browserApis();
  if (!apis) throw new Error("this browser has no on-device translator");
  const source = await sourceLanguage(apis, text);
  if (!source) throw new Error("the message's language is not known");
  const key = `${source}>${BROWSER_CODES[target]}`;
  let translator = translators.get(key);
  if (!translator) {
    translator = apis.translator.create({
      sourceLanguage: source,
      targetLanguage: BROWSER_CODES[target],
    });
    // A failed creation (a refused download) may be tried again later.
    translator.catch(() => translators.delete(key));
    translators.set(key, translator);
  }
  return (await translator).translate(text);
}
