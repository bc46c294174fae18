import { Check, ChevronDown, Languages, LoaderCircle, Redo2, Undo2 } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { useState } from "react";
import { toast } from "sonner";
import type { TranslationFunctions } from "../../../i18n/i18n-types";
import { type TargetLanguage, targetLanguages } from "../../common/translation.ts";
import { appCodeOf, errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import { trpc } from "../lib/trpc.ts";
import "./TranslateMenu.css";

type LanguageKey = keyof TranslationFunctions["translation"]["languages"];

/** The translate menu's languages (spec 9), each in its own name and under its dictionary key. */
const languages: Record<TargetLanguage, { autonym: string; key: LanguageKey }> = {
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

/**
 * The languages this server can translate into. Until the server has said (or if it cannot
 * say) this is undefined and every language is offered: the server decides. The list is stable
 * for the life of the page.
 */
export function useOfferedLanguages(): ReadonlySet<TargetLanguage> | undefined {
  const available = trpc.translate.languages.useQuery(undefined, {
    staleTime: Number.POSITIVE_INFINITY,
  });
  return available.data ? new Set<TargetLanguage>(available.data.targets) : undefined;
}

/**
 * Runs one translation and tells the reader how it went in a toast: `onTranslated` gets the
 * result first, then the success toast; a failure gets the error toast (spec 5).
 */
export async function translateWithToasts<T>(
  LL: TranslationFunctions,
  target: TargetLanguage,
  request: () => Promise<T>,
  onTranslated: (result: T) => void,
): Promise<void> {
  const t = LL.translation;
  const language = languageName(LL, target);
  try {
    const result = await request();
    onTranslated(result);
    toast.success(t.translatedTitle(), { description: t.translatedBody({ language }) });
  } catch (error) {
    const code = appCodeOf(error);
    let description: string = t.failedBody();
    if (code === "TRANSLATION_UNSUPPORTED") description = t.unsupported({ language });
    if (code === "RATE_LIMITED") description = errorMessage(LL, error);
    toast.error(t.failedTitle(), { description });
  }
}

export interface TranslateMenuProps {
  /** Picks a language from the menu. */
  onTranslate: (target: TargetLanguage) => void;
  /** This text's translation is running: a spinner and "Translating…". */
  busy: boolean;
  /** A translation is running (this one or another): the menu stays shut. Defaults to `busy`. */
  locked?: boolean;
  /** The language shown now, ticked in the menu. */
  current?: TargetLanguage;
  /** What `useOfferedLanguages` answered; the others are disabled with a note. */
  offered: ReadonlySet<TargetLanguage> | undefined;
  /** The trigger's accessible name; without it the trigger is named by its visible text. */
  label?: string;
  triggerClassName: string;
  /** Added to the menu's own class. */
  contentClassName?: string;
  align: "start" | "end";
  sideOffset: number;
}

/** The translate button and its menu of the eight target languages, each in its own name. */
export function TranslateMenu({
  onTranslate,
  busy,
  locked = busy,
  current,
  offered,
  label,
  triggerClassName,
  contentClassName,
  align,
  sideOffset,
}: TranslateMenuProps) {
  const { LL } = useI18n();
  const t = LL.translation;
  const [open, setOpen] = useState(false);

  return (
    <DropdownMenu.Root open={open} onOpenChange={(next) => setOpen(next && !locked)}>
      {/* Not disabled while translating: focus returns here when the menu closes. */}
      <DropdownMenu.Trigger
        className={triggerClassName}
        aria-label={label === undefined ? undefined : busy ? t.translating() : label}
        aria-disabled={locked || undefined}
        aria-busy={busy || undefined}
      >
        {busy ? (
          <LoaderCircle aria-hidden="true" className="spinner" />
        ) : (
          <Languages aria-hidden="true" />
        )}
        <span aria-hidden={label === undefined ? undefined : true}>
          {busy ? t.translating() : t.translate()}
        </span>
        <ChevronDown aria-hidden="true" className="translate-menu__chevron" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          className={
            contentClassName ? `menu translate-menu ${contentClassName}` : "menu translate-menu"
          }
          align={align}
          sideOffset={sideOffset}
          collisionPadding={12}
        >
          <DropdownMenu.Label className="translate-menu__label">{t.menu()}</DropdownMenu.Label>
          {targetLanguages.map((target) => {
            const unavailable = offered !== undefined && !offered.has(target);
            return (
              <DropdownMenu.Item
                key={target}
                className="menu__item translate-menu__item"
                disabled={unavailable || locked}
                onSelect={() => onTranslate(target)}
              >
                <span className="translate-menu__text">
                  <span lang={target}>{languages[target].autonym}</span>
                  {unavailable && <span className="translate-menu__note">{t.unavailable()}</span>}
                </span>
                {current === target && <Check aria-hidden="true" className="menu__check" />}
              </DropdownMenu.Item>
            );
          })}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** Under a translated text: which language it shows, and a button between it and the original. */
export function TranslationNote({
  target,
  showingOriginal,
  onToggle,
  className,
  buttonClassName,
}: {
  /** The language of the translation. */
  target: TargetLanguage;
  showingOriginal: boolean;
  onToggle: () => void;
  className: string;
  buttonClassName: string;
}) {
  const { LL } = useI18n();
  const t = LL.translation;
  return (
    <p className={className}>
      <Languages aria-hidden="true" />
      <span>
        {showingOriginal ? t.original() : t.translatedTo({ language: languageName(LL, target) })}
      </span>
      <button type="button" className={`translation-toggle ${buttonClassName}`} onClick={onToggle}>
        {showingOriginal ? <Redo2 aria-hidden="true" /> : <Undo2 aria-hidden="true" />}
        {showingOriginal ? t.showTranslation() : t.showOriginal()}
      </button>
    </p>
  );
}
