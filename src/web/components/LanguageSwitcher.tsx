import { DeferredMenu } from "./DeferredMenu.tsx";
import { LanguageTriggerContent, useLanguageLabel } from "./LanguageTrigger.tsx";

const loadLanguageMenu = () => import("./LanguageMenu.tsx").then((m) => m.LanguageMenu);

/** The header's language control; its menu (LanguageMenu) loads when reached for. */
export function LanguageSwitcher() {
  return (
    <DeferredMenu load={loadLanguageMenu} className="lang-trigger" label={useLanguageLabel()}>
      <LanguageTriggerContent />
    </DeferredMenu>
  );
}
