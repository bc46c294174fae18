import { Check, ChevronDown, Languages, LoaderCircle } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { useState } from "react";
import { type TargetLanguage, targetLanguages } from "../../../common/translation.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { languages } from "./languages.ts";
import type { TextTranslation } from "./useTextTranslation.ts";
import "./TranslateMenu.css";

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

/**
 * The translate button and its menu of the eight target languages, each in its own name:
 * those this server or this browser can do, the browser's marked "on this device".
 */
export function TranslateMenu({
  of,
  locked: otherRunning = false,
  label,
  triggerClassName,
  contentClassName,
  align,
  sideOffset,
}: TranslateMenuProps) {
  const { LL } = useI18n();
  const t = LL.translation;
  const [open, setOpen] = useState(false);
  const { busy, routes, prepare: onPrepare, shownLanguage: current } = of;
  const locked = busy || otherRunning;
  const onTranslate = (target: TargetLanguage) => void of.translate(target);
  const changeOpen = (next: boolean) => {
    if (next) onPrepare();
    setOpen(next && !locked);
  };

  return (
    <DropdownMenu.Root open={open} onOpenChange={changeOpen}>
      {/* Not disabled while translating: focus returns here when the menu closes. */}
      <DropdownMenu.Trigger
        className={triggerClassName}
        aria-label={label === undefined ? undefined : busy ? t.translating() : label}
        aria-disabled={locked || undefined}
        aria-busy={busy || undefined}
        onPointerEnter={onPrepare}
        onFocus={onPrepare}
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
            const route = routes.get(target);
            let note: string | undefined;
            if (route === undefined) note = t.unavailable();
            else if (route === "device") note = t.onDevice();
            return (
              <DropdownMenu.Item
                key={target}
                className="menu__item translate-menu__item"
                disabled={route === undefined || locked}
                onSelect={() => onTranslate(target)}
              >
                <span className="translate-menu__text">
                  <span lang={target}>{languages[target].autonym}</span>
                  {note && <span className="translate-menu__note">{note}</span>}
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
