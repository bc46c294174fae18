import type { TargetLanguage } from "../../common/translation.ts";
import { type Clock, systemTime } from "../clock.ts";
import type { TranslationStore } from "./cache.ts";

/**
 * Translations of chat messages, in memory only and bounded: chat text is never stored outside
 * reports, and a message is rarely translated again after its chat ends.
 */
export class ChatTranslations implements TranslationStore {
  /** Oldest first (a Map keeps insertion order). */
  readonly #entries = new Map<string, { text: string; at: number }>();

  constructor(
    private readonly clock: Clock = systemTime,
    private readonly maxEntries = 1000,
    private readonly ttlMs = 60 * 60 * 1000,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  async get(hash: string, target: TargetLanguage): Promise<string | undefined> {
    const key = `${target}:${hash}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.clock.now() - entry.at > this.ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.text;
  }

  async put(hash: string, target: TargetLanguage, text: string): Promise<void> {
    const key = `${target}:${hash}`;
    this.#entries.delete(key);
    this.#entries.set(key, { text, at: this.clock.now() });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}
