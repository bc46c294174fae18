import type { DB } from "../../../db/schema.ts";
import type { TargetLanguage } from "../../common/translation.ts";
import { type BottleAsked, bottleForReader, type ShownBottles } from "../bottles/shown.ts";
import { DomainError } from "../errors.ts";
import { type RateLimiter, type RateRule, visitorSlots } from "../limits/rate-limiter.ts";
import type { VisitorKeys } from "../requester.ts";
import { databaseTranslations, type TranslationStore, translateCached } from "./cache.ts";
import { ownScriptTargets } from "./opencc.ts";
import { TranslationError, type Translator } from "./translator.ts";

export const TRANSLATE_RATE: RateRule = { limit: 30, windowMs: 60 * 1000 };
/** Asking which targets the menu offers: once a bottle or message, as often as discover goes. */
export const TRANSLATE_MENU_RATE: RateRule = { limit: 60, windowMs: 60 * 1000 };

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
 * Translates a text a visitor is reading (a partner's message), rate-limited per visitor and
 * address, through a store; translator failures become errors a visitor can read.
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
  return translateText(store, deps.translator, text, target, now);
}

/** The menu's targets for a bottle this reader may read (see bottleForReader), or all of them. */
export async function bottleTargets(
  db: DB,
  deps: { limiter: RateLimiter; translator: Translator; shownBottles: ShownBottles },
  reader: VisitorKeys,
  asked: BottleAsked | undefined,
  now: number,
): Promise<readonly TargetLanguage[]> {
  await deps.limiter.take(visitorSlots("translate-menu", reader, TRANSLATE_MENU_RATE));
  if (!asked) return availableTargets(deps.translator);
  const bottle = await bottleForReader(db, deps.shownBottles, reader.visitorId, asked, now);
  return availableTargets(deps.translator, bottle.message);
}

/**
 * Translates a bottle this reader may read: public, or shown to them by discover (see
 * bottleForReader). The slot is taken before the bottle is looked up, so asking for one that
 * is not theirs to read costs the same as a translation.
 */
export async function translateBottle(
  db: DB,
  deps: { limiter: RateLimiter; translator: Translator; shownBottles: ShownBottles },
  reader: VisitorKeys,
  asked: BottleAsked,
  target: TargetLanguage,
  now: number,
): Promise<{ text: string; target: TargetLanguage }> {
  await deps.limiter.take(visitorSlots("translate", reader, TRANSLATE_RATE));
  const bottle = await bottleForReader(db, deps.shownBottles, reader.visitorId, asked, now);
  return translateText(databaseTranslations(db), deps.translator, bottle.message, target, now);
}

/** A text into `target` through the store; failures become errors a visitor can read. */
async function translateText(
  store: TranslationStore,
  translator: Translator,
  text: string,
  target: TargetLanguage,
  now: number,
): Promise<{ text: string; target: TargetLanguage }> {
  // Before the store: one kept from before this rule would still hand back 臺 for 台.
  if (ownScriptTargets(text).includes(target)) {
    throw new DomainError("TRANSLATION_UNSUPPORTED", `the text is already in ${target}'s script`);
  }
  try {
    const result = await translateCached(store, translator, text, target, now);
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
