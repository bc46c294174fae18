import { Languages, Redo2, Undo2 } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { languageName } from "./languages.ts";
import type { TextTranslation } from "./useTextTranslation.ts";
import "./TranslateMenu.css";

/**
 * Under a translated text: which language it shows (and whether it was translated on the
 * device), and a button between it and the original. Nothing until there is a translation.
 */
export function TranslationNote({
  of,
  className,
  buttonClassName,
}: {
  of: TextTranslation;
  className: string;
  /** Added to the toggle's own class (the chat's is smaller). */
  buttonClassName?: string;
}) {
  const { LL } = useI18n();
  const t = LL.translation;
  const { translation, showOriginal: showingOriginal, toggleOriginal: onToggle } = of;
  if (!translation) return null;
  const language = languageName(LL, translation.target);
  let says: string = t.original();
  if (!showingOriginal) {
    says = translation.onDevice ? t.translatedOnDevice({ language }) : t.translatedTo({ language });
  }
  return (
    <p className={className}>
      <Languages aria-hidden="true" />
      <span>{says}</span>
      <button
        type="button"
        className={buttonClassName ? `translation-toggle ${buttonClassName}` : "translation-toggle"}
        onClick={onToggle}
      >
        {showingOriginal ? <Redo2 aria-hidden="true" /> : <Undo2 aria-hidden="true" />}
        {showingOriginal ? t.showTranslation() : t.showOriginal()}
      </button>
    </p>
  );
}
