import { useEffect } from "react";

/**
 * While `on` (a live chat this tab shows), closing or leaving the page first asks, with the
 * browser's own prompt: leaving ends the chat for the partner too. Once the chat has ended,
 * nothing is lost by going, and nothing asks.
 */
export function useLeaveWarning(on: boolean): void {
  useEffect(() => {
    if (!on) return;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when a value is set.
      event.returnValue = "";
    };
    addEventListener("beforeunload", ask);
    return () => removeEventListener("beforeunload", ask);
  }, [on]);
}
