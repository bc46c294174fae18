// The message being written on the create page is kept in this tab until it is thrown, so
// nothing the writer typed is lost to a reload, a page left by mistake, or writing bottles
// being switched off meanwhile: the create page starts from it when they are back.

const DRAFT_KEY = "bottle-draft";

/** Keeps the message being written (a blank one is nothing to keep). */
export function keepDraft(message: string): void {
  try {
    if (message.trim() !== "") sessionStorage.setItem(DRAFT_KEY, message);
    else sessionStorage.removeItem(DRAFT_KEY);
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

/** Forgets the kept message once it is thrown. */
export function forgetDraft(): void {
  try {
    sessionStorage.removeItem(DRAFT_KEY);
  } catch {
    // Nothing kept, or storage refused.
  }
}
