import { systemTime, type Time } from "../clock.ts";
import { CompositeTranslator } from "./composite.ts";
import { DeepLTranslator } from "./deepl.ts";
import { LibreTranslateTranslator } from "./libretranslate.ts";
import { OpenccTranslator } from "./opencc.ts";
import type { Translator } from "./translator.ts";

export { translateCached } from "./cache.ts";
export { CompositeTranslator } from "./composite.ts";
export { DeepLTranslator } from "./deepl.ts";
export { LibreTranslateTranslator } from "./libretranslate.ts";
export { OpenccTranslator } from "./opencc.ts";
export { TranslationError, type Translator } from "./translator.ts";

export interface TranslationSettings {
  libreTranslateUrl?: string;
  libreTranslateKey?: string;
  deeplApiKey?: string;
}

/**
 * OpenCC always, and first: exact and offline for Chinese script changes, and it declines
 * everything else. Then DeepL, then LibreTranslate, when the operator has configured them.
 */
export function createTranslator(
  settings: TranslationSettings,
  time: Time = systemTime,
): Translator {
  const translators: Translator[] = [new OpenccTranslator()];
  if (settings.deeplApiKey) {
    translators.push(new DeepLTranslator({ apiKey: settings.deeplApiKey, scheduler: time }));
  }
  if (settings.libreTranslateUrl) {
    translators.push(
      new LibreTranslateTranslator({
        url: settings.libreTranslateUrl,
        apiKey: settings.libreTranslateKey,
        time,
      }),
    );
  }
  return new CompositeTranslator(translators);
}

/**
 * Whether the server has a translator beyond OpenCC's Chinese script conversion: one the
 * operator configured, reachable now or not. Without one, the moderation page says how to add it.
 */
export function translatesBeyondChineseScripts(translator: Translator): boolean {
  if (translator instanceof OpenccTranslator) return false;
  if (translator instanceof CompositeTranslator) {
    return translator.translators.some(translatesBeyondChineseScripts);
  }
  return true;
}
