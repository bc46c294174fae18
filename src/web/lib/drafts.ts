/**
 * Text being written, kept in this tab's sessionStorage until it is sent, so nothing typed is
 * lost to a reload (a phone's pull to refresh), a page left by mistake, or the feature being
 * switched off meanwhile: the page starts from it when the writer is back. A blank text is
 * nothing to keep. Storage refused (cookies blocked) keeps nothing, quietly.
 */
function tabDraft(key: string) {
  return {
    keep(text: string): void {
      try {
        if (text.trim() !== "") sessionStorage.setItem(key, text);
        else sessionStorage.removeItem(key);
      } catch {
        // Storage refused: nothing more can be done for it.
      }
    },
    has(): boolean {
      try {
        return sessionStorage.getItem(key) !== null;
      } catch {
        return false;
      }
    },
    /** The kept text ("" when there is none). */
    peek(): string {
      try {
        return sessionStorage.getItem(key) ?? "";
      } catch {
        return "";
      }
    },
    forget(): void {
      try {
        sessionStorage.removeItem(key);
      } catch {
        // Nothing kept, or storage refused.
      }
    },
  };
}

/** The message being written on the create page, until it is thrown. */
export const bottleDraft = tabDraft("bottle-draft");

/** The message being written to the people who run the site, until it is sent. */
export const contactDraft = tabDraft("contact-draft");
