import { useLocation, useNavigate } from "@tanstack/react-router";
import { DropdownMenu } from "radix-ui";
import { type Locale, prefixOfLocale, splitPrefix, swapPrefix } from "../../common/locales.ts";
import { Check } from "../icons.ts";
import { storeLocale, useI18n, useSetFallbackLocale } from "../lib/i18n.tsx";
import { useMenuContainer } from "../lib/menu-container.ts";
import { LanguageTriggerContent, useLanguageLabel } from "./LanguageTrigger.tsx";

const choices: ReadonlyArray<{ locale: Locale; key: "zhTW" | "en" }> = [
  { locale: "zh-TW", key: "zhTW" },
  { locale: "en", key: "en" },
];

/** Moves to the same page under the other language and remembers the choice. */
export function LanguageMenu({ defaultOpen }: { defaultOpen: boolean }) {
  const { LL, locale } = useI18n();
  const { pathname, searchStr, hash } = useLocation();
  const navigate = useNavigate();
  const setFallbackLocale = useSetFallbackLocale();
  const [menuTrigger, menuContainer] = useMenuContainer();

  function choose(next: Locale) {
    storeLocale(next);
    setFallbackLocale(next);
    if (splitPrefix(pathname).prefix) {
      const href = `${swapPrefix(pathname, prefixOfLocale(next))}${searchStr}${hash ? `#${hash}` : ""}`;
      void navigate({ href });
    }
  }

  return (
    <DropdownMenu.Root defaultOpen={defaultOpen} modal={false}>
      <DropdownMenu.Trigger
        ref={menuTrigger}
        className="lang-trigger"
        aria-label={useLanguageLabel()}
      >
        <LanguageTriggerContent />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal container={menuContainer}>
        <DropdownMenu.Content className="menu" align="end" sideOffset={8}>
          {choices.map(({ locale: choice, key }) => (
            <DropdownMenu.Item
              key={choice}
              className="menu__item"
              lang={choice}
              onSelect={() => choose(choice)}
            >
              <span>{LL.languages[key]()}</span>
              {choice === locale && <Check aria-hidden="true" className="menu__check" />}
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
