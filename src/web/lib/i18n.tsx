import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { I18nContext } from "../../../i18n/i18n-react";
import { i18n } from "../../../i18n/i18n-util";
import { loadAllLocales } from "../../../i18n/i18n-util.sync";
import {
  detectPrefix,
  isLocale,
  type Locale,
  localeOfPrefix,
  PREFERRED_LANGUAGE_KEY,
  type Prefix,
  prefixOfLocale,
} from "../../common/locales.ts";

loadAllLocales();
const translations = i18n();

export function storedLocale(): Locale | undefined {
  try {
    const value = localStorage.getItem(PREFERRED_LANGUAGE_KEY);
    return isLocale(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function storeLocale(locale: Locale): void {
  try {
    localStorage.setItem(PREFERRED_LANGUAGE_KEY, locale);
  } catch {
    // Private modes may refuse storage; the URL still carries the language.
  }
}

/** For pages without a prefix: the stored choice, else the browser's language. */
function initialLocale(): Locale {
  return (
    storedLocale() ?? localeOfPrefix(detectPrefix(navigator.languages?.[0] ?? navigator.language))
  );
}

const FallbackLocaleContext = createContext<(locale: Locale) => void>(() => {});

/**
 * Provides the dictionary of the page's language: the URL prefix when there is one, otherwise
 * the visitor's stored preference. The generated provider ignores later locale changes, so this
 * one feeds the generated context itself.
 */
export function LocaleProvider({
  prefix,
  children,
}: {
  prefix: Prefix | undefined;
  children: ReactNode;
}) {
  const [fallback, setFallback] = useState<Locale>(initialLocale);
  const locale = prefix ? localeOfPrefix(prefix) : fallback;
  const setLocale = useCallback((next: Locale) => setFallback(next), []);
  const value = useMemo(
    () => ({ locale, LL: translations[locale], setLocale }),
    [locale, setLocale],
  );
  return (
    <FallbackLocaleContext.Provider value={setLocale}>
      <I18nContext.Provider value={value}>{children}</I18nContext.Provider>
    </FallbackLocaleContext.Provider>
  );
}

/** The dictionary, the locale and its URL prefix. */
export function useI18n() {
  const { LL, locale } = useContext(I18nContext);
  return { LL, locale, prefix: prefixOfLocale(locale) };
}

/** Changes the language of pages that have no prefix (the prefixed ones change by URL). */
export function useSetFallbackLocale() {
  return useContext(FallbackLocaleContext);
}
