/**
 * The server's time up to which this browser's writer has seen the finds of their bottles: the
 * `asOf` of the last "your bottle was found" check or My bottles list. It is kept only once the
 * browser has thrown a bottle (or listed some), so a visitor who never wrote asks nothing.
 */
const FINDS_SEEN_KEY = "my-bottles-seen";

export function readFindsSeen(): number | null {
  try {
    const value = Number(localStorage.getItem(FINDS_SEEN_KEY) ?? Number.NaN);
    return Number.isSafeInteger(value) && value >= 0 ? value : null;
  } catch {
    // Storage refused (a private mode): no notice, My bottles still works.
    return null;
  }
}

/** Records what the writer has now seen; never moves back (two tabs may answer out of order). */
export function markFindsSeen(asOf: number): void {
  const seen = readFindsSeen();
  if (seen !== null && seen >= asOf) return;
  try {
    localStorage.setItem(FINDS_SEEN_KEY, String(asOf));
  } catch {
    // As above: nothing to remember it in.
  }
}
