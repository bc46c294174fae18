/**
 * For a Radix dialog opened without its trigger (onCloseAutoFocus): focus goes back to what
 * `target` names, when it is still on the page, instead of wherever Radix would put it.
 */
export function focusOnClose(target: (() => HTMLElement | null | undefined) | undefined) {
  return (event: Event) => {
    const element = target?.();
    if (element?.isConnected) {
      event.preventDefault();
      element.focus();
    }
  };
}

/** How long after a navigation its page's heading may still take the focus. */
const HEADING_FOCUS_MS = 3000;
let headingFocus: { force: boolean; at: number } | undefined;

/**
 * Asks the next page's heading to take the focus once it is drawn: always (`force`, when what
 * was used to get there disappears, as the phone menu's links do), or only if focus was lost on
 * the way (the link that was followed left the page with the old one).
 */
export function requestHeadingFocus(force: boolean): void {
  if (headingFocus?.force && Date.now() - headingFocus.at < HEADING_FOCUS_MS) return;
  headingFocus = { force, at: Date.now() };
}

/** Whether keyboard focus is nowhere a visitor can see: on the page itself, or on something gone. */
function focusLost(): boolean {
  const active = document.activeElement;
  if (!active || active === document.body) return true;
  return !active.isConnected || active.getClientRects().length === 0;
}

/** Called by a page's heading when it is drawn: takes the focus if a navigation asked for it. */
export function takeHeadingFocus(heading: HTMLElement): void {
  const asked = headingFocus;
  headingFocus = undefined;
  if (!asked || Date.now() - asked.at > HEADING_FOCUS_MS) return;
  if (asked.force || focusLost()) heading.focus({ preventScroll: true });
}
