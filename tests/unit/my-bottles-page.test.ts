import { describe, expect, test } from "bun:test";
import type { MyBottle } from "../../src/common/bottles.ts";
import { canSink, stateAt } from "../../src/web/components/my-bottles/bottle-state.ts";

const HOUR = 60 * 60 * 1000;
const now = 1_800_000_000_000;
const bottle = (over: Partial<MyBottle>): MyBottle => ({
  id: 1,
  message: "hello",
  createdAt: now - HOUR,
  availableAt: now + HOUR,
  expiresAt: now + 48 * HOUR,
  isPublic: false,
  state: "drifting",
  finds: 0,
  likes: 0,
  shores: [],
  ...over,
});

describe("My bottles: a bottle's state while the page stays open", () => {
  test("a drifting bottle surfaces into the ocean when its time comes, then expires", () => {
    const b = bottle({});
    expect(stateAt(b, now)).toBe("drifting");
    expect(stateAt(b, now + HOUR)).toBe("ocean");
    expect(stateAt(b, now + 48 * HOUR)).toBe("expired");
  });

  test("a bottle that never expires stays in the ocean", () => {
    expect(stateAt(bottle({ state: "ocean", expiresAt: null }), now + 1000 * HOUR)).toBe("ocean");
  });

  test("the moderators' and the writer's decisions stand whatever the clock says", () => {
    expect(stateAt(bottle({ state: "hidden" }), now + 2 * HOUR)).toBe("hidden");
    expect(stateAt(bottle({ state: "sunk" }), now + 100 * HOUR)).toBe("sunk");
  });

  test("only a bottle in the ocean or on its way there can be sunk", () => {
    expect(canSink("drifting")).toBe(true);
    expect(canSink("ocean")).toBe(true);
    for (const state of ["expired", "hidden", "sunk"] as const) expect(canSink(state)).toBe(false);
  });
});
