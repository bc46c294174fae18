import type { TranslationFunctions } from "../../../../i18n/i18n-types";

/**
 * What an action was on, in the operator's words: "Bottle 12", "Chat visitor 3f9a0c1b…",
 * "Account reader-1", "Random chat". A key the page does not know is shown as recorded.
 */
export function subjectName(LL: TranslationFunctions, subject: string): string {
  const t = LL.moderation;
  const [kind, key = ""] = subject.split(/:(.*)/s);
  if (kind === "bottle" && /^\d+$/.test(key)) return t.bottle({ id: Number(key) });
  if (kind === "visitor" && key !== "") return t.visitor({ id: key.slice(0, 8) });
  if (kind === "ip" && key !== "") return t.address({ key: key.slice(0, 8) });
  if (kind === "account" && key !== "") return t.account({ name: key });
  if (kind === "feature" && (key === "chat" || key === "bottles" || key === "publicBottles")) {
    return t.switches.names[key]();
  }
  return subject;
}
