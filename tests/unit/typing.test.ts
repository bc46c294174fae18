import { describe, expect, test } from "bun:test";
import { TYPING_EVENTS_PER_SECOND } from "../../src/core/chat/broker.ts";
import { TypingWindows } from "../../src/core/chat/typing.ts";
import { VirtualClock } from "../helpers/clock.ts";

const WINDOW_MS = 1000 / TYPING_EVENTS_PER_SECOND;

/** Windows on a virtual clock, with what they told the partner, in order. */
function typing() {
  const clock = new VirtualClock(1_000_000);
  const told: Array<[string, boolean]> = [];
  const windows = new TypingWindows(clock, (visitorId, isTyping) => {
    told.push([visitorId, isTyping]);
  });
  return { clock, told, windows };
}

describe("typing windows", () => {
  test(`at most ${TYPING_EVENTS_PER_SECOND} a second are told, and the last state held is told when its window ends`, async () => {
    const { clock, told, windows } = typing();
    await windows.note("a", true);
    expect(told).toEqual([["a", true]]);
    // Within the window: held, the latest wins.
    await windows.note("a", false);
    await windows.note("a", true);
    clock.advance(WINDOW_MS - 1);
    expect(told).toHaveLength(1);
    clock.advance(1);
    expect(told).toEqual([
      ["a", true],
      ["a", true],
    ]);
    // Typing stopped within the next window: told at its end, never before.
    await windows.note("a", false);
    clock.advance(WINDOW_MS - 1);
    expect(told).toHaveLength(2);
    clock.advance(1);
    expect(told.at(-1)).toEqual(["a", false]);
    // Nothing held in a window: nothing more is told, and the window is let go.
    clock.advance(10 * WINDOW_MS);
    expect(told).toHaveLength(3);
    expect(windows.size).toBe(0);
    windows.close();
  });

  test("each sender has a window of their own", async () => {
    const { told, windows } = typing();
    await windows.note("a", true);
    await windows.note("b", true);
    await windows.note("a", false);
    expect(told).toEqual([
      ["a", true],
      ["b", true],
    ]);
    windows.close();
  });

  test("once the sender's chat ended, what they held is never told, and their next chat hears them at once", async () => {
    const { clock, told, windows } = typing();
    await windows.note("a", true);
    await windows.note("a", false);
    windows.forget("a");
    clock.advance(WINDOW_MS);
    expect(told).toEqual([["a", true]]);
    // A new partner a moment later: typing is told at once, not held behind the old window.
    await windows.note("a", true);
    expect(told).toEqual([
      ["a", true],
      ["a", true],
    ]);
    expect(clock.pending).toBe(0);
    windows.close();
  });

  test("close stops every window still holding a state", async () => {
    const { clock, told, windows } = typing();
    for (const id of ["a", "b", "c"]) {
      await windows.note(id, true);
      await windows.note(id, false);
    }
    expect(clock.pending).toBe(3);
    windows.close();
    expect(clock.pending).toBe(0);
    clock.advance(WINDOW_MS);
    expect(told).toHaveLength(3);
    expect(windows.size).toBe(0);
  });
});
