import { DropdownMenu } from "radix-ui";
import { useState } from "react";
import type { TargetLanguage } from "../../../common/translation.ts";
import { Check } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { useMenuContainer } from "../../lib/menu-container.ts";
import { languages } from "./languages.ts";
import { type TranslateMenuProps, TranslateTrigger } from "./TranslateTrigger.tsx";

/**
 * The translate menu itself (Radix's menu with its positioning and focus handling), fetched the
 * first time a translate button is drawn: most visits never show one before the page is up.
 */
export function TranslateDropdown({
  of,
  locked,
  offered,
  label,
  triggerClassName,
  contentClassName,
  align,
  sideOffset,
  defaultOpen,
}: Omit<TranslateMenuProps, "locked"> & {
  locked: boolean;
  offered: readonly TargetLanguage[];
  /** A press on the stand-in button came before this module: open as it arrives. */
  defaultOpen: boolean;
}) {
  const t = useI18n().LL.translation;
  const [open, setOpen] = useState(defaultOpen && !locked);
  const [menuTrigger, menuContainer] = useMenuContainer();
  const { routes, shownLanguage: current } = of;
  const changeOpen = (next: boolean) => {
    if (next) of.prepare();
    setOpen(next && !locked);
  };

  return (
    <DropdownMenu.Root open={open} onOpenChange={changeOpen} modal={false}>
      {/* Not disabled while translating: focus returns here when the menu closes. */}
      <DropdownMenu.Trigger asChild>
        <TranslateTrigger
          ref={menuTrigger}
          busy={of.busy}
          locked={locked}
          label={label}
          className={triggerClassName}
        />
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
              onSelect={() => void of.translate(target)}
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
