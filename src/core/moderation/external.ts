import { LocalModerator } from "./local.ts";
import type { ModerationVerdict, Moderator } from "./moderator.ts";

/** The part of `fetch` the moderators use; the global `fetch` fits, and so does a test double. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A moderation API that gave no usable answer: down, slow, or speaking another format. */
export class ModerationUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ModerationUnavailableError";
  }
}

export interface ExternalModeratorOptions {
  /** The endpoint, e.g. https://api.openai.com/v1/moderations. */
  url: string;
  /** Sent as `Authorization: Bearer <key>`; a self-hosted endpoint may need none. */
  apiKey?: string;
  /** Abandon the call after this long; a visitor is waiting on the answer. */
  timeoutMs?: number;
  fetch?: FetchLike;
}

export const DEFAULT_MODERATION_TIMEOUT_MS = 3000;

/**
 * An OpenAI-compatible moderation endpoint: POST `{ "input": text }`, answer
 * `{ "results": [{ "flagged": boolean }, ...] }`. Throws ModerationUnavailableError on any
 * failure, so a FallbackModerator can decide what to do instead.
 */
export class ExternalModerator implements Moderator {
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #fetch: FetchLike;

  constructor(options: ExternalModeratorOptions) {
    this.#url = options.url;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_MODERATION_TIMEOUT_MS;
    this.#fetch = options.fetch ?? fetch;
  }

  async check(text: string): Promise<ModerationVerdict> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    let body: unknown;
    try {
      // The signal also covers reading the body, so a server that stalls mid-answer times out.
      const response = await this.#fetch(this.#url, {
        method: "POST",
        headers,
        body: JSON.stringify({ input: text }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      if (!response.ok) {
        throw new ModerationUnavailableError(`moderation API answered ${response.status}`);
      }
      body = await response.json();
    } catch (error) {
      if (error instanceof ModerationUnavailableError) throw error;
      throw new ModerationUnavailableError(`moderation API failed: ${errorSummary(error)}`, {
        cause: error,
      });
    }
    const flagged = readFlagged(body);
    if (flagged === undefined) {
      throw new ModerationUnavailableError("moderation API answered in an unknown format");
    }
    return flagged ? { safe: false, reasons: ["external"] } : { safe: true, reasons: [] };
  }
}

/** Whether any result is flagged, or undefined when the answer is not the expected shape. */
function readFlagged(body: unknown): boolean | undefined {
  if (typeof body !== "object" || body === null || !("results" in body)) return undefined;
  const results = body.results;
  if (!Array.isArray(results) || results.length === 0) return undefined;
  let flagged = false;
  for (const result of results as unknown[]) {
    if (typeof result !== "object" || result === null || !("flagged" in result)) return undefined;
    if (typeof result.flagged !== "boolean") return undefined;
    flagged ||= result.flagged;
  }
  return flagged;
}

function errorSummary(error: unknown): string {
  if (error instanceof Error) return error.name === "TimeoutError" ? "timed out" : error.message;
  return String(error);
}

/**
 * Asks `primary`; when it throws (down, timed out, malformed answer) asks `fallback` instead.
 * A verdict from the primary, safe or not, is final.
 */
export class FallbackModerator implements Moderator {
  constructor(
    private readonly primary: Moderator,
    private readonly fallback: Moderator,
    private readonly onFallback: (error: unknown) => void = () => {},
  ) {}

  async check(text: string): Promise<ModerationVerdict> {
    try {
      return await this.primary.check(text);
    } catch (error) {
      this.onFallback(error);
      return this.fallback.check(text);
    }
  }
}

export interface ModerationSettings {
  /** An OpenAI-compatible moderation endpoint; without one, moderation stays on the machine. */
  apiUrl?: string;
  apiKey?: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Told when the external API fails and the local lists answer instead (for logging). */
  onFallback?: (error: unknown) => void;
}

/**
 * The site's moderator: the local lists alone when no API is configured; otherwise the local
 * lists first and the API second. Local first because it is free and instant: text it refuses
 * is refused without sending it anywhere, and the API (which sees context the lists cannot)
 * only decides what the lists let through. So an "unsafe" from either is final, and when the API
 * is down, slow or garbled, the local verdict stands.
 */
export function createModerator(settings: ModerationSettings = {}): Moderator {
  const local = new LocalModerator();
  if (!settings.apiUrl) return local;
  const external = new ExternalModerator({
    url: settings.apiUrl,
    apiKey: settings.apiKey,
    timeoutMs: settings.timeoutMs,
    fetch: settings.fetch,
  });
  return new LocalFirstModerator(local, external, settings.onFallback);
}

class LocalFirstModerator implements Moderator {
  constructor(
    private readonly local: LocalModerator,
    private readonly external: Moderator,
    private readonly onFallback: (error: unknown) => void = () => {},
  ) {}

  async check(text: string): Promise<ModerationVerdict> {
    const verdict = this.local.checkNow(text);
    if (!verdict.safe || text.trim() === "") return verdict;
    // The fallback is the verdict already in hand, so the lists do not run twice.
    const settled: Moderator = { check: async () => verdict };
    return new FallbackModerator(this.external, settled, this.onFallback).check(text);
  }
}
