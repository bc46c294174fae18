import { type ComponentProps, type ComponentType, useEffect, useState } from "react";
import { targetLanguages } from "../../../common/translation.ts";
import type { TranslateDropdown as Dropdown } from "./TranslateDropdown.tsx";
import { type TranslateMenuProps, TranslateTrigger } from "./TranslateTrigger.tsx";
import "./TranslateMenu.css";

let loaded: typeof Dropdown | undefined;
let loading: Promise<typeof Dropdown> | undefined;
function loadDropdown(): Promise<typeof Dropdown> {
  loading ??= import("./TranslateDropdown.tsx").then(
    (module) => {
      loaded = module.TranslateDropdown;
      return loaded;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * The translate button and its menu: the languages this server or this browser can translate
 * this text into right now, each in its own name, the browser's marked "on this device". They
 * are asked as soon as the text shows, and the button shows only once one of them can: a menu
 * that only says nothing works here is no use to a reader. The menu's code comes with the first
 * button shown; until then the button is a stand-in that looks the same and opens on arrival.
 */
export function TranslateMenu(props: TranslateMenuProps) {
  const { of, locked: otherRunning = false, label, triggerClassName } = props;
  const [Menu, setMenu] = useState<ComponentType<ComponentProps<typeof Dropdown>> | undefined>(
    () => loaded,
  );
  const [openOnArrival, setOpenOnArrival] = useState(false);
  const { busy, routes, known, prepare } = of;
  const offered = targetLanguages.filter((target) => routes.has(target));
  const locked = busy || otherRunning;
  const shown = known && offered.length > 0;
  // Asked with the text, not when the button is reached for: whether to show it depends on it.
  useEffect(() => prepare(), [prepare]);
  useEffect(() => {
    if (!shown || Menu) return;
    let live = true;
    loadDropdown().then(
      (component) => live && setMenu(() => component),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [shown, Menu]);

  // Nothing here can translate this text (or it is still being asked): no button at all.
  if (!shown) return null;
  if (Menu) {
    return <Menu {...props} locked={locked} offered={offered} defaultOpen={openOnArrival} />;
  }
  return (
    <TranslateTrigger
      busy={busy}
      locked={locked}
      label={label}
      className={triggerClassName}
      aria-haspopup="menu"
      aria-expanded={false}
      onClick={() => {
        if (locked) return;
        setOpenOnArrival(true);
        void loadDropdown().then(
          (component) => setMenu(() => component),
          () => undefined,
        );
      }}
    />
  );
}
