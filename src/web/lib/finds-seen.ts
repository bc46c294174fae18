import { deviceStorage } from "./storage.ts";

/**
 * The server's time up to which this browser's writer has seen the finds of their bottles: the
 * `asOf` of the last "your bottle was found" check or My bottles list. It is kept only once the
 * browser has thrown a bottle (or listed some), so a visitor who never wrote asks nothing.
 */
const findsSeen = deviceStorage("my-bottles-seen");

/** Nothing where storage is refused (a private mode): no notice, My bottles still works. */
export function readFindsSeen(): number | null {
  const value = Number(findsSeen.read() ?? Number.NaN);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** Records what the writer has now seen; never moves back (two tabs may answer out of order). */
export function markFindsSeen(asOf: number): void {
  const seen = readFindsSeen();
  if (seen !== null && seen >= asOf) return;
  findsSeen.write(String(asOf));
}
