import type { TargetLanguage } from "../../common/translation.ts";
import { DomainError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import type { VisitorKeys } from "../requester.ts";
import { type TranslationStore, translateCached } from "./cache.ts";
import { ownScriptTargets } from "./opencc.ts";
import { TranslationError, type Translator } from "./translator.ts";

export const TRANSLATE_RATE: RateRule = { limit: 30, windowMs: 60 * 1000 };

/**
 * The targets this server can serve now, for the translate menu: for one text (`text`), only
 * those that would translate it (never into its own language); without one, all of them.
 */
export async function availableTargets(
  translator: Translator,
  text?: string,
): Promise<readonly TargetLanguage[]> {
  try {
    await translator.ready?.();
  } catch {
    // A provider that cannot say what it offers offers nothing; the others still count.
  }
  if (text === undefined) return translator.targets();
  return translator.targetsFor?.(text) ?? translator.targets();
}

/**
 * Translates a text a visitor is reading (a bottle, a partner's message), rate-limited per
 * visitor and address, through a store; translator failures become errors a visitor can read.
 */
export async function translateForVisitor(
  store: TranslationStore,
  deps: { limiter: RateLimiter; translator: Translator },
  visitor: VisitorKeys,
  text: string,
  target: TargetLanguage,
  now: number,
): Promise<{ text: string; target: TargetLanguage }> {
  await deps.limiter.take(visitorSlots("translate", visitor, TRANSLATE_RATE));
  // Before the store: one kept from before this rule would still hand back 臺 for 台.
  if (ownScriptTargets(text).includes(target)) {
    throw new DomainError("TRANSLATION_UNSUPPORTED", `the text is already in ${target}'s script`);
  }
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
