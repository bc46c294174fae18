import { DropdownMenu } from "radix-ui";
import { useEffect, useState } from "react";
import { type TargetLanguage, targetLanguages } from "../../../common/translation.ts";
import { Check, ChevronDown, Languages, LoaderCircle } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useMenuContainer } from "../../lib/menu-container.ts";
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
 * The translate button and its menu: the languages this server or this browser can translate
 * this text into right now, each in its own name, the browser's marked "on this device". They
 * are asked as soon as the text shows, and the button shows only once one of them can: a menu
 * that only says nothing works here is no use to a reader.
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
  const [menuTrigger, menuContainer] = useMenuContainer();
  const { busy, routes, known, prepare: onPrepare, shownLanguage: current } = of;
  const offered = targetLanguages.filter((target) => routes.has(target));
  const locked = busy || otherRunning;
  const onTranslate = (target: TargetLanguage) => void of.translate(target);
  // Asked with the text, not when the button is reached for: whether to show it depends on it.
  useEffect(() => onPrepare(), [onPrepare]);
  const changeOpen = (next: boolean) => {
    if (next) onPrepare();
    setOpen(next && !locked);
  };

  // Nothing here can translate this text (or it is still being asked): no button at all.
  if (!known || offered.length === 0) return null;

  return (
    <DropdownMenu.Root open={open} onOpenChange={changeOpen} modal={false}>
      {/* Not disabled while translating: focus returns here when the menu closes. */}
      <DropdownMenu.Trigger
        ref={menuTrigger}
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
      <DropdownMenu.Portal container={menuContainer}>
        <DropdownMenu.Content
          className={
            contentClassName ? `menu translate-menu ${contentClassName}` : "menu translate-menu"
          }
          align={align}
          sideOffset={sideOffset}
          collisionPadding={12}
        >
          <DropdownMenu.Label className="translate-menu__label">{t.menu()}</DropdownMenu.Label>
          {offered.map((target) => (
            <DropdownMenu.Item
              key={target}
              className="menu__item translate-menu__item"
              disabled={locked}
              onSelect={() => onTranslate(target)}
            >
              <span className="translate-menu__text">
                <span lang={target}>{languages[target].autonym}</span>
                {routes.get(target) === "device" && (
                  <span className="translate-menu__note">{t.onDevice()}</span>
                )}
              </span>
              {current === target && <Check aria-hidden="true" className="menu__check" />}
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
