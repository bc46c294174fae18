/** When a report came or an action was taken, in the reader's date and clock format. */
export function moderationTime(at: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(at);
}
