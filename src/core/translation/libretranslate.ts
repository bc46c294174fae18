import { type TargetLanguage, targetLanguages } from "../../common/translation.ts";
import { systemTime, type Time, timeoutSignal } from "../clock.ts";
import { type Fetch, TranslationError, type Translator } from "./translator.ts";

/**
 * LibreTranslate's codes for each menu language, preferred first: recent servers say
 * zh-Hans/zh-Hant, older ones zh (Simplified) and zt (Traditional).
 */
const LIBRE_CODES: Record<TargetLanguage, readonly string[]> = {
  en: ["en"],
  "zh-TW": ["zh-Hant", "zt"],
  "zh-CN": ["zh-Hans", "zh"],
  ja: ["ja"],
  ko: ["ko"],
  es: ["es"],
  fr: ["fr"],
  de: ["de"],
};

export interface LibreTranslateOptions {
  /** The server's base URL, e.g. http://localhost:5000. */
  url: string;
  apiKey?: string;
  fetch?: Fetch;
  timeoutMs?: number;
  /** After a failed language discovery, how long to wait before asking again. */
  retryDiscoveryMs?: number;
  /** The clock and timers for the pause and the timeout (the system's). */
  time?: Time;
}

export class LibreTranslateTranslator implements Translator {
  readonly name = "libretranslate";
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: Fetch;
  readonly #timeoutMs: number;
  readonly #retryDiscoveryMs: number;
  readonly #time: Time;
  /** Menu language → the server's code; unknown until the server has said what it offers. */
  #codes: Map<TargetLanguage, string> | undefined;
  #discovery: Promise<void> | undefined;
  #failedAt: number | undefined;

  constructor(options: LibreTranslateOptions) {
    this.#url = options.url.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retryDiscoveryMs = options.retryDiscoveryMs ?? 30_000;
    this.#time = options.time ?? systemTime;
  }

  /** Empty until the server's languages are known; asking starts the discovery. */
  targets(): readonly TargetLanguage[] {
    void this.ready();
    return this.#codes ? [...this.#codes.keys()] : [];
  }

  /** Asks the server once which languages it serves; never rejects, retries after a pause. */
  ready(): Promise<void> {
    if (this.#codes) return Promise.resolve();
    if (this.#discovery) return this.#discovery;
    if (
      this.#failedAt !== undefined &&
      this.#time.now() - this.#failedAt < this.#retryDiscoveryMs
    ) {
      return Promise.resolve();
    }
    this.#discovery = this.#discover()
      .then(
        (codes) => {
          this.#codes = codes;
          this.#failedAt = undefined;
        },
        () => {
          this.#failedAt = this.#time.now();
        },
      )
      .finally(() => {
        this.#discovery = undefined;
      });
    return this.#discovery;
  }

  async translate(text: string, target: TargetLanguage): Promise<string> {
    await this.ready();
    if (!this.#codes) {
      throw new TranslationError("unavailable", "libretranslate's languages are not known yet");
    }
    const code = this.#codes.get(target);
    if (!code) throw new TranslationError("unsupported", `libretranslate does not offer ${target}`);
    const body: Record<string, string> = { q: text, source: "auto", target: code, format: "text" };
    if (this.#apiKey) body.api_key = this.#apiKey;
    const answer = await this.#request("/translate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (
      typeof answer !== "object" ||
      answer === null ||
      !("translatedText" in answer) ||
      typeof answer.translatedText !== "string"
    ) {
      throw new TranslationError("unavailable", "libretranslate answered without a translation");
    }
    return answer.translatedText;
  }

  async #discover(): Promise<Map<TargetLanguage, string>> {
    const answer = await this.#request("/languages", { method: "GET" });
    if (!Array.isArray(answer)) {
      throw new TranslationError("unavailable", "libretranslate listed no languages");
    }
    const offered = new Set<string>();
    for (const language of answer as unknown[]) {
      if (typeof language !== "object" || language === null) continue;
      // Servers that list per-source targets say exactly what can be produced; older ones
      // list only codes, each of which they can translate into.
      if ("targets" in language && Array.isArray(language.targets)) {
        for (const t of language.targets) if (typeof t === "string") offered.add(t);
      } else if ("code" in language && typeof language.code === "string") {
        offered.add(language.code);
      }
    }
    const codes = new Map<TargetLanguage, string>();
    for (const target of targetLanguages) {
      const code = LIBRE_CODES[target].find((c) => offered.has(c));
      if (code) codes.set(target, code);
    }
    return codes;
  }

  async #request(path: string, init: RequestInit): Promise<unknown> {
    // The timeout also covers reading the body, so a server that stalls mid-answer times out.
    const timeout = timeoutSignal(this.#time, this.#timeoutMs);
    try {
      return await this.#requestWithin(path, init, timeout.signal);
    } finally {
      timeout.done();
    }
  }

  async #requestWithin(path: string, init: RequestInit, signal: AbortSignal): Promise<unknown> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.#url}${path}`, { ...init, signal });
    } catch (cause) {
      throw new TranslationError("unavailable", "libretranslate could not be reached", { cause });
    }
    if (!response.ok) {
      throw new TranslationError("unavailable", `libretranslate answered ${response.status}`);
    }
    try {
      return await response.json();
    } catch (cause) {
      throw new TranslationError("unavailable", "libretranslate answered with bad JSON", { cause });
    }
  }
}
