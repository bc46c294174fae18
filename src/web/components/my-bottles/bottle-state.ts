import type { BottleState, MyBottle } from "../../../common/bottles.ts";

/**
 * The state as of `now`: the server's answer, moved on by the clock while the page stays open
 * (a drifting bottle surfaces, a bottle in the ocean expires).
 */
export function stateAt(bottle: MyBottle, now: number): BottleState {
  let state = bottle.state;
  if (state === "drifting" && bottle.availableAt <= now) state = "ocean";
  if (state === "ocean" && bottle.expiresAt !== null && bottle.expiresAt <= now) state = "expired";
  return state;
}

/** Only a bottle still in the ocean (or on its way there) can be sunk. */
export function canSink(state: BottleState): boolean {
  return state === "drifting" || state === "ocean";
}
