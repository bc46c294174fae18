import type { TargetLanguage } from "../../common/translation.ts";
import { DomainError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import { type TranslationStore, translateCached } from "./cache.ts";
import { TranslationError, type Translator } from "./translator.ts";

export const TRANSLATE_RATE: RateRule = { limit: 30, windowMs: 60 * 1000 };

/** The targets this server can serve now, for the translate menu. */
export async function availableTargets(translator: Translator): Promise<readonly TargetLanguage[]> {
  try {
    await translator.ready?.();
  } catch {
    // A provider that cannot say what it offers offers nothing; the others still count.
  }
  return translator.targets();
}

/**
 * Translates a text a visitor is reading (a bottle, a partner's message), rate-limited per
 * visitor and address, through a store; translator failures become errors a visitor can read.
 */
export async function translateForVisitor(
  store: TranslationStore,
  deps: { limiter: RateLimiter; translator: Translator },
  visitor: { visitorId: string; ipKey: string },
  text: string,
  target: TargetLanguage,
  now: number,
): Promise<{ text: string; target: TargetLanguage }> {
  await deps.limiter.take(visitorSlots("translate", visitor, TRANSLATE_RATE));
  try {
    const result = await translateCached(store, deps.translator, text, target, now);
    return { text: result.text, target };
  } catch (error) {
    if (error instanceof TranslationError && error.kind === "unsupported") {
      throw new DomainError("TRANSLATION_UNSUPPORTED", error.message);
    }
    throw new DomainError(
      "TRANSLATION_FAILED",
      error instanceof Error ? error.message : "translation failed",
    );
  }
}
