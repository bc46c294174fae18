import { type ComponentProps, forwardRef } from "react";
import { ChevronDown, Languages, LoaderCircle } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import type { TextTranslation } from "./useTextTranslation.ts";

export interface TranslateMenuProps {
  /** The text's translation: what is offered and by whom, what is shown, whether it runs. */
  of: TextTranslation;
  /** Another text's translation is running: the menu stays shut (one translation at a time). */
  locked?: boolean;
  /** The trigger's accessible name; without it the trigger is named by its visible text. */
  label?: string;
  triggerClassName: string;
  /** Added to the menu's own class. */
  contentClassName?: string;
  align: "start" | "end";
  sideOffset: number;
}

/** The translate button as it looks before and after its menu's code has arrived. */
export const TranslateTrigger = forwardRef<
  HTMLButtonElement,
  ComponentProps<"button"> & { busy: boolean; locked: boolean; label: string | undefined }
>(function TranslateTrigger({ busy, locked, label, ...button }, ref) {
  const t = useI18n().LL.translation;
  return (
    <button
      type="button"
      {...button}
      ref={ref}
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
    </button>
  );
});
