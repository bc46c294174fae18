import type { TargetLanguage } from "../../common/translation.ts";
import { type Scheduler, systemTime, timeoutSignal } from "../clock.ts";
import { type Fetch, TranslationError, type Translator } from "./translator.ts";

/** DeepL's target_lang for each menu language; DeepL serves all eight. */
const DEEPL_TARGETS: Record<TargetLanguage, string> = {
  en: "EN-US",
  "zh-TW": "ZH-HANT",
  "zh-CN": "ZH-HANS",
  ja: "JA",
  ko: "KO",
  es: "ES",
  fr: "FR",
  de: "DE",
};

export interface DeepLOptions {
  apiKey: string;
  /** Defaults to the free API for keys ending in ":fx", the paid one otherwise. */
  baseUrl?: string;
  fetch?: Fetch;
  timeoutMs?: number;
  /** The timers the timeout runs on (the system's). */
  scheduler?: Scheduler;
}

export class DeepLTranslator implements Translator {
  readonly name = "deepl";
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #fetch: Fetch;
  readonly #timeoutMs: number;
  readonly #scheduler: Scheduler;

  constructor(options: DeepLOptions) {
    this.#apiKey = options.apiKey;
    this.#baseUrl = (
      options.baseUrl ??
      (options.apiKey.endsWith(":fx") ? "https://api-free.deepl.com" : "https://api.deepl.com")
    ).replace(/\/+$/, "");
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#scheduler = options.scheduler ?? systemTime;
  }

  targets(): readonly TargetLanguage[] {
    return Object.keys(DEEPL_TARGETS) as TargetLanguage[];
  }

  async translate(text: string, target: TargetLanguage): Promise<string> {
    // The timeout also covers reading the body, so a server that stalls mid-answer times out.
    const timeout = timeoutSignal(this.#scheduler, this.#timeoutMs);
    try {
      return await this.#translate(text, target, timeout.signal);
    } finally {
      timeout.done();
    }
  }

  async #translate(text: string, target: TargetLanguage, signal: AbortSignal): Promise<string> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.#baseUrl}/v2/translate`, {
        method: "POST",
        headers: {
          authorization: `DeepL-Auth-Key ${this.#apiKey}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ text: [text], target_lang: DEEPL_TARGETS[target] }),
        signal,
      });
    } catch (cause) {
      throw new TranslationError("unavailable", "deepl could not be reached", { cause });
    }
    // 403 bad key, 429 too many requests, 456 quota used up: none is the visitor's fault.
    if (!response.ok) {
      throw new TranslationError("unavailable", `deepl answered ${response.status}`);
    }
    const body: unknown = await response.json().catch(() => undefined);
    const translated = readDeepLText(body);
    if (translated === undefined) {
      throw new TranslationError("unavailable", "deepl answered without a translation");
    }
    return translated;
  }
}

function readDeepLText(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || !("translations" in body)) return undefined;
  const { translations } = body;
  if (!Array.isArray(translations)) return undefined;
  const first: unknown = translations[0];
  if (typeof first !== "object" || first === null || !("text" in first)) return undefined;
  return typeof first.text === "string" ? first.text : undefined;
}
