// A bottle refused because writing bottles was switched off is kept in this tab, so nothing
// the writer typed is lost: the create page starts from it when it is back.

const DRAFT_KEY = "bottle-draft";

export function keepDraft(message: string): void {
  try {
    if (message.trim() !== "") sessionStorage.setItem(DRAFT_KEY, message);
  } catch {
    // Storage refused: nothing more can be done for it.
  }
}

export function hasKeptDraft(): boolean {
  try {
    return sessionStorage.getItem(DRAFT_KEY) !== null;
  } catch {
    return false;
  }
}

/** The kept message ("" when there is none). */
export function peekDraft(): string {
  try {
    return sessionStorage.getItem(DRAFT_KEY) ?? "";
  } catch {
    return "";
  }
}

/** Forgets the kept message once the create page has put it back into its box. */
export function forgetDraft(): void {
  try {
    sessionStorage.removeItem(DRAFT_KEY);
  } catch {
    // Nothing kept, or storage refused.
  }
}
