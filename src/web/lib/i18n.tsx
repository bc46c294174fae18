import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useReducer,
  useState,
} from "react";
import { I18nContext } from "../../../i18n/i18n-react";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import { i18nObject } from "../../../i18n/i18n-util";
import { loadLocaleAsync } from "../../../i18n/i18n-util.async";
import {
  detectPrefix,
  isLocale,
  type Locale,
  localeOfPrefix,
  PREFERRED_LANGUAGE_KEY,
  type Prefix,
  prefixOfLocale,
} from "../../common/locales.ts";
import { retryWhenOnline } from "./retry-when-online.ts";
import { deviceStorage } from "./storage.ts";

// Each language's dictionary is its own chunk: a page loads only the one it shows.
const translations = new Map<Locale, TranslationFunctions>();
const loading = new Map<Locale, Promise<void>>();

/** Fetches a language's dictionary once; later calls share the first. */
export function loadLocale(locale: Locale): Promise<void> {
  let pending = loading.get(locale);
  if (!pending) {
    pending = retryWhenOnline(() => loadLocaleAsync(locale))().then(() => {
      translations.set(locale, i18nObject(locale));
    });
    // A failed fetch (a dropped connection) may be tried again on the next navigation.
    pending.catch(() => loading.delete(locale));
    loading.set(locale, pending);
  }
  return pending;
}

export function storedLocale(): Locale | undefined {
  const value = deviceStorage(PREFERRED_LANGUAGE_KEY).read();
  return isLocale(value) ? value : undefined;
}

/** Private modes may refuse storage; the URL still carries the language. */
export function storeLocale(locale: Locale): void {
  deviceStorage(PREFERRED_LANGUAGE_KEY).write(locale);
}

/** For pages without a prefix: the stored choice, else the browser's language. */
export function initialLocale(): Locale {
  return (
    storedLocale() ?? localeOfPrefix(detectPrefix(navigator.languages?.[0] ?? navigator.language))
  );
}

const FallbackLocaleContext = createContext<(locale: Locale) => void>(() => {});

/**
 * Provides the dictionary of the page's language: the URL prefix when there is one, otherwise
 * that of the last page shown with one (on a first load, the visitor's stored preference, else
 * the browser's language). The generated provider ignores later locale changes, so this one
 * feeds the generated context itself.
 */
export function LocaleProvider({
  prefix,
  children,
}: {
  prefix: Prefix | undefined;
  children: ReactNode;
}) {
  const [fallback, setFallback] = useState<Locale>(initialLocale);
  const [, dictionaryArrived] = useReducer((n: number) => n + 1, 0);
  // A page without a prefix reached from one of the site's pages (the sign-in page, from a
  // bottle's like or the header) goes on in the language the visitor was reading.
  if (prefix && fallback !== localeOfPrefix(prefix)) setFallback(localeOfPrefix(prefix));
  const wanted = prefix ? localeOfPrefix(prefix) : fallback;
  const ready = translations.has(wanted);
  useEffect(() => {
    if (!ready) loadLocale(wanted).then(dictionaryArrived, () => {});
  }, [ready, wanted]);
  // Until a dictionary arrives, the page stays in the language it was already showing.
  const locale = ready ? wanted : (translations.keys().next().value ?? wanted);
  const LL = translations.get(locale);
  const setLocale = useCallback((next: Locale) => {
    loadLocale(next).then(
      () => setFallback(next),
      () => {},
    );
  }, []);
  const value = useMemo(() => LL && { locale, LL, setLocale }, [locale, LL, setLocale]);
  if (!value) return null;
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
