import { useId, useState } from "react";
import type { TranslationFunctions } from "../../../../i18n/i18n-types";
import type { SharedGround } from "../../../common/chat-preferences.ts";
import {
  INTEREST_LIMITS,
  INTEREST_WINDOW_MS,
  MATCH_FALLBACK_MS,
} from "../../../common/chat-preferences.ts";
import type { Locale } from "../../../common/locales.ts";
import { type TargetLanguage, targetLanguages } from "../../../common/translation.ts";
import { Plus, X } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { type ChatPreferences, withInterest } from "./matchPreferences.ts";

const languageKeys = {
  en: "en",
  "zh-TW": "zhTW",
  "zh-CN": "zhCN",
  ja: "ja",
  ko: "ko",
  es: "es",
  fr: "fr",
  de: "de",
} as const satisfies Record<TargetLanguage, string>;

/**
 * A language's name: one of the eight the translate menu knows, or a chat language the server
 * answers in `shared` ("zh" for both Chinese scripts, which are one spoken language).
 */
export function languageName(LL: TranslationFunctions, tag: string): string {
  if (tag === "zh") return LL.randomChat.prefs.chinese();
  const key = languageKeys[tag as TargetLanguage];
  return key ? LL.translation.languages[key]() : tag;
}

/** "hiking, chess and films", in the page's language. */
export function listOf(locale: Locale, items: readonly string[]): string {
  return new Intl.ListFormat(locale, { type: "conjunction" }).format(items);
}

/** "You both speak …" and "You both like …", from what the two share; nothing if nothing. */
export function SharedLine({ shared }: { shared: SharedGround | null }) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat.prefs;
  if (!shared) return null;
  if (shared.languages.length === 0 && shared.interests.length === 0) {
    // Paired after the fallback: one of them asked, and they share nothing.
    return (
      <div className="chat-shared">
        <p className="chat-shared__line">{t.atRandom()}</p>
      </div>
    );
  }
  const languages = shared.languages.map((tag) => languageName(LL, tag));
  return (
    <div className="chat-shared">
      {shared.interests.length > 0 && (
        <p className="chat-shared__line">
          {t.bothLike({ interests: listOf(locale, shared.interests) })}
        </p>
      )}
      {languages.length > 0 && (
        <p className="chat-shared__line">{t.bothSpeak({ languages: listOf(locale, languages) })}</p>
      )}
    </div>
  );
}

/**
 * Before starting: "Anyone" (the default), or the languages the visitor can chat in and up to
 * five interests, with a waiting visitor who shares them first. `refused`: the interests the
 * server refused (contact details or an offensive word), marked and named; everything typed stays.
 */
export function MatchPreferencesEditor({
  preferences,
  onChange,
  refused,
}: {
  preferences: ChatPreferences;
  onChange: (next: ChatPreferences) => void;
  refused: readonly string[] | null;
}) {
  const { LL, locale } = useI18n();
  const t = LL.randomChat.prefs;
  const id = useId();
  const [draft, setDraft] = useState("");
  const full = preferences.interests.length >= INTEREST_LIMITS.count;
  const add = () => {
    const next = withInterest(preferences, draft);
    if (next) onChange(next);
    if (next || draft.trim() === "") setDraft("");
  };
  const toggleLanguage = (tag: TargetLanguage, on: boolean) =>
    onChange({
      ...preferences,
      languages: on
        ? targetLanguages.filter((l) => l === tag || preferences.languages.includes(l))
        : preferences.languages.filter((l) => l !== tag),
    });
  return (
    <div className="chat-prefs">
      <label className="chat-prefs__toggle">
        <input
          type="checkbox"
          checked={preferences.on}
          onChange={(event) => onChange({ ...preferences, on: event.target.checked })}
        />
        <span>{t.toggle()}</span>
      </label>
      <p className="field__hint chat-prefs__hint">
        {preferences.on
          ? t.toggleOnHint({
              interestSeconds: INTEREST_WINDOW_MS / 1000,
              seconds: MATCH_FALLBACK_MS / 1000,
            })
          : t.toggleOffHint()}
      </p>
      {preferences.on && (
        <>
          <fieldset className="chat-prefs__group">
            <legend className="field__label">{t.languages()}</legend>
            <div className="chat-prefs__chips">
              {targetLanguages.map((tag) => (
                <label key={tag} className="chat-prefs__language">
                  <input
                    type="checkbox"
                    checked={preferences.languages.includes(tag)}
                    onChange={(event) => toggleLanguage(tag, event.target.checked)}
                  />
                  <span>{languageName(LL, tag)}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="chat-prefs__group">
            <label className="field__label" htmlFor={`${id}-interest`}>
              {t.interests()}
            </label>
            {preferences.interests.length > 0 && (
              <ul
                className="chat-prefs__chips chat-prefs__interests"
                aria-label={t.interestsChosen()}
              >
                {preferences.interests.map((interest) => (
                  <li
                    key={interest}
                    className={`chat-prefs__interest${refused?.includes(interest) ? " chat-prefs__interest--refused" : ""}`}
                  >
                    <span>{interest}</span>
                    <button
                      type="button"
                      className="chat-prefs__remove"
                      aria-label={t.remove({ interest })}
                      onClick={() =>
                        onChange({
                          ...preferences,
                          interests: preferences.interests.filter((i) => i !== interest),
                        })
                      }
                    >
                      <X aria-hidden="true" />
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div className="chat-prefs__add">
              <input
                id={`${id}-interest`}
                className="field__input"
                value={draft}
                maxLength={INTEREST_LIMITS.length}
                placeholder={t.placeholder()}
                disabled={full}
                aria-invalid={refused !== null}
                aria-describedby={refused ? `${id}-error ${id}-hint` : `${id}-hint`}
                onChange={(event) => setDraft(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === "Enter" && !event.nativeEvent.isComposing) {
                    event.preventDefault();
                    add();
                  }
                }}
              />
              <button
                type="button"
                className="button button--ghost"
                onClick={add}
                disabled={full || draft.trim() === ""}
              >
                <Plus aria-hidden="true" />
                {t.add()}
              </button>
            </div>
            <p id={`${id}-hint`} className="field__hint">
              {t.interestsHint({ count: INTEREST_LIMITS.count, length: INTEREST_LIMITS.length })}
            </p>
            {refused && (
              <p id={`${id}-error`} className="field__error" role="alert">
                {refused.length > 0
                  ? t.refusedNamed({
                      interests: listOf(
                        locale,
                        refused.map((interest) => t.quoted({ interest })),
                      ),
                      count: refused.length,
                    })
                  : t.refused()}
              </p>
            )}
          </div>
        </>
      )}
    </div>
  );
}
