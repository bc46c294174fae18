import { type BottleVariant, bottleVariants } from "../Bottle.tsx";

/** A clicked bottle drifts away and leaves the page this long after the click. */
export const DRIFT_REMOVE_MS = 6000;
/** Floating bottles in the home page's sea. */
const BOTTLE_COUNT = 8;
/** The sea is cut into a grid with one bottle per cell, so bottles never pile up. */
const SEA_COLUMNS = 4;
const SEA_ROWS = 2;
/** How far each bottle may wander from its cell's centre, as a share of the cell. */
const JITTER_X = 0.25;
const JITTER_Y = 0.2;
const SCALE_RANGE = [0.8, 1.1] as const;
const ROTATE_RANGE_DEG = [-18, 18] as const;
/** Bobbing phase offset, so the bottles do not rise and fall together. */
const DELAY_RANGE_S = [0, 4] as const;

/** A bottle of the home sea: where it floats, its size, tilt and look. Positions are % of the sea. */
export interface FloatingBottle {
  id: number;
  x: number;
  y: number;
  scale: number;
  delay: number;
  rotate: number;
  variant: BottleVariant;
  isDrifting: boolean;
}

function between([min, max]: readonly [number, number]): number {
  return min + Math.random() * (max - min);
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const a = out[i];
    const b = out[j];
    if (a === undefined || b === undefined) continue;
    out[i] = b;
    out[j] = a;
  }
  return out;
}

export function createBottles(): FloatingBottle[] {
  // Every colour shows up, in a random order.
  const colours = shuffled(
    Array.from({ length: BOTTLE_COUNT }, (_, i) => bottleVariants[i % bottleVariants.length]),
  );
  const cellWidth = 100 / SEA_COLUMNS;
  const cellHeight = 100 / SEA_ROWS;
  return Array.from({ length: BOTTLE_COUNT }, (_, index) => {
    const column = index % SEA_COLUMNS;
    const row = Math.floor(index / SEA_COLUMNS) % SEA_ROWS;
    return {
      id: index + 1,
      x: cellWidth * (column + 0.5 + between([-JITTER_X, JITTER_X])),
      y: cellHeight * (row + 0.5 + between([-JITTER_Y, JITTER_Y])),
      scale: between(SCALE_RANGE),
      delay: between(DELAY_RANGE_S),
      rotate: between(ROTATE_RANGE_DEG),
      variant: colours[index] ?? "blue",
      isDrifting: false,
    };
  });
}
