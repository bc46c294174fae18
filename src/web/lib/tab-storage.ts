/**
 * One key of this tab's sessionStorage. A browser that refuses storage (cookies blocked) keeps
 * nothing, quietly: what is kept here is a convenience, never needed.
 */
export function tabStorage(key: string) {
  return {
    read(): string | null {
      try {
        return sessionStorage.getItem(key);
      } catch {
        return null;
      }
    },
    write(value: string): void {
      try {
        sessionStorage.setItem(key, value);
      } catch {
        // Refused or full: nothing is kept.
      }
    },
    remove(): void {
      try {
        sessionStorage.removeItem(key);
      } catch {
        // Refused: nothing was kept.
      }
    },
  };
}
