import { type RefObject, useEffect } from "react";

/**
 * Brings what `ref` holds wholly on screen when it first appears (once it has its size): a new
 * chat or a search taking the place of a longer card would otherwise sit where the page's
 * scroll left it, partly under the header or below the screen. The page's scroll padding keeps
 * it clear of the header. `when`: brought on screen each time it turns true.
 */
export function useOnScreenWhenShown(ref: RefObject<HTMLElement | null>, when = true): void {
  useEffect(() => {
    if (!when) return;
    const frame = requestAnimationFrame(() => {
      ref.current?.scrollIntoView({ block: "nearest" });
    });
    return () => cancelAnimationFrame(frame);
  }, [ref, when]);
}
