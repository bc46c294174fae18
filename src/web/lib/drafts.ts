import { tabStorage } from "./storage.ts";

/**
 * Text being written, kept in this tab until it is sent, so nothing typed is lost to a reload (a
 * phone's pull to refresh), a page left by mistake, or the feature being switched off meanwhile:
 * the page starts from it when the writer is back. A blank text is nothing to keep.
 */
function tabDraft(key: string) {
  const stored = tabStorage(key);
  return {
    keep(text: string): void {
      if (text.trim() !== "") stored.write(text);
      else stored.remove();
    },
    has: (): boolean => stored.read() !== null,
    /** The kept text ("" when there is none). */
    peek: (): string => stored.read() ?? "",
    forget: stored.remove,
  };
}

/** The message being written on the create page, until it is thrown. */
export const bottleDraft = tabDraft("bottle-draft");

/** The message being written to the people who run the site, until it is sent. */
export const contactDraft = tabDraft("contact-draft");
