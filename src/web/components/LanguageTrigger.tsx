import { Globe } from "../icons.ts";
import { useI18n } from "../lib/i18n.tsx";

/**
 * The language trigger's accessible name: "Language: English". It holds the language's name
 * the trigger shows, so speech input can name the button by what it sees (WCAG 2.5.3).
 */
export function useLanguageLabel(): string {
  const { LL, locale } = useI18n();
  return LL.nav.languageCurrent({ language: LL.languages[locale === "en" ? "en" : "zhTW"]() });
}

/** What the language trigger shows, the same before and after the menu's code arrives. */
export function LanguageTriggerContent() {
  const { LL, locale } = useI18n();
  return (
    <>
      <Globe aria-hidden="true" />
      <span className="lang-trigger__label">{LL.languages[locale === "en" ? "en" : "zhTW"]()}</span>
    </>
  );
}
