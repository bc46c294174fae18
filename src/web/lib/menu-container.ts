import { useCallback, useState } from "react";

/** The parts of the page a menu may be put in: the dialog or landmark that holds its trigger. */
const HOLDERS = '[role="dialog"], .site-header, #main, .site-footer';

/**
 * Where a dropdown menu goes: inside the dialog or landmark its trigger is in, rather than at
 * the end of the page, outside every landmark, where screen readers find it out of place (axe:
 * "region"). Answers a ref for the trigger and the element to portal the menu into (null until
 * the trigger is drawn: the page's end, as by default).
 */
export function useMenuContainer(): [(trigger: HTMLElement | null) => void, HTMLElement | null] {
  const [container, setContainer] = useState<HTMLElement | null>(null);
  const ref = useCallback((trigger: HTMLElement | null) => {
    if (trigger) setContainer(trigger.closest<HTMLElement>(HOLDERS));
  }, []);
  return [ref, container];
}
