/**
 * One key of a browser storage. A browser that refuses storage (cookies blocked, some private
 * modes) or has none left keeps nothing, quietly: what is kept there is a convenience, and the
 * server or the URL still knows what matters.
 */
function keeperIn(storage: () => Storage) {
  return (key: string) => ({
    read(): string | null {
      try {
        return storage().getItem(key);
      } catch {
        return null;
      }
    },
    write(value: string): void {
      try {
        storage().setItem(key, value);
      } catch {
        // Refused or full: nothing is kept.
      }
    },
    remove(): void {
      try {
        storage().removeItem(key);
      } catch {
        // Refused: nothing was kept.
      }
    },
  });
}

/** A key of this tab's sessionStorage: gone with the tab. */
export const tabStorage = keeperIn(() => sessionStorage);

/** A key of this device's localStorage: kept across visits. */
export const deviceStorage = keeperIn(() => localStorage);
