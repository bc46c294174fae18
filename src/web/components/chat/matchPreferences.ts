import { useCallback, useState } from "react";
import {
  INTEREST_LIMITS,
  type MatchPreferencesInput,
  matchPreferencesInput,
  normalizeInterest,
} from "../../../common/chat-preferences.ts";
import type { Locale } from "../../../common/locales.ts";
import type { TargetLanguage } from "../../../common/translation.ts";
import { deviceStorage } from "../../lib/storage.ts";

/** Where the visitor's match preferences are kept: on this device only. */
export const PREFERENCES_STORAGE_KEY = "chat-match-preferences";

/**
 * What the visitor asks of a match: whether to ask at all ("Anyone" when not), the languages
 * they can chat in and up to five interests.
 */
export interface ChatPreferences {
  on: boolean;
  languages: TargetLanguage[];
  interests: string[];
}

/** Nothing asked yet: "Anyone", with the page's language ready should they ask. */
export function defaultPreferences(locale: Locale): ChatPreferences {
  return { on: false, languages: [locale === "zh-TW" ? "zh-TW" : "en"], interests: [] };
}

/** What the device kept, checked as the server would check it; anything else is forgotten. */
export function readPreferences(locale: Locale): ChatPreferences {
  try {
    const raw: unknown = JSON.parse(deviceStorage(PREFERENCES_STORAGE_KEY).read() ?? "null");
    if (raw && typeof raw === "object" && "on" in raw && typeof raw.on === "boolean") {
      const parsed = matchPreferencesInput.safeParse(raw);
      if (parsed.success) return { on: raw.on, ...parsed.data };
    }
  } catch {
    // Something else is kept there (not JSON); the defaults do.
  }
  return defaultPreferences(locale);
}

/** Remembering only saves typing them again. */
function keep(preferences: ChatPreferences): void {
  deviceStorage(PREFERENCES_STORAGE_KEY).write(JSON.stringify(preferences));
}

/** What chat.start is sent: nothing for "Anyone". */
export function startInput(preferences: ChatPreferences): MatchPreferencesInput | undefined {
  if (!preferences.on) return undefined;
  if (preferences.languages.length === 0 && preferences.interests.length === 0) return undefined;
  return { languages: preferences.languages, interests: preferences.interests };
}

/** Adds an interest as typed (normalized); false when it is empty, a double, or one too many. */
export function withInterest(preferences: ChatPreferences, typed: string): ChatPreferences | null {
  const interest = normalizeInterest(typed).slice(0, INTEREST_LIMITS.length);
  if (interest === "" || preferences.interests.includes(interest)) return null;
  if (preferences.interests.length >= INTEREST_LIMITS.count) return null;
  return { ...preferences, interests: [...preferences.interests, interest] };
}

/** The visitor's preferences, kept on the device as they change. */
export function usePreferences(locale: Locale) {
  const [preferences, setState] = useState(() => readPreferences(locale));
  const set = useCallback((next: ChatPreferences) => {
    keep(next);
    setState(next);
  }, []);
  return [preferences, set] as const;
}
