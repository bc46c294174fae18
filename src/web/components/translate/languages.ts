import type { TranslationFunctions } from "../../../../i18n/i18n-types";
import type { TargetLanguage } from "../../../common/translation.ts";

type LanguageKey = keyof TranslationFunctions["translation"]["languages"];

/** The translate menu's eight languages, each in its own name and under its dictionary key. */
export const languages: Record<TargetLanguage, { autonym: string; key: LanguageKey }> = {
  en: { autonym: "English", key: "en" },
  "zh-TW": { autonym: "繁體中文", key: "zhTW" },
  "zh-CN": { autonym: "简体中文", key: "zhCN" },
  ja: { autonym: "日本語", key: "ja" },
  ko: { autonym: "한국어", key: "ko" },
  es: { autonym: "Español", key: "es" },
  fr: { autonym: "Français", key: "fr" },
  de: { autonym: "Deutsch", key: "de" },
};

/** A target language's name in the reader's language ("Simplified Chinese", "簡體中文"). */
export function languageName(LL: TranslationFunctions, target: TargetLanguage): string {
  return LL.translation.languages[languages[target].key]();
}
