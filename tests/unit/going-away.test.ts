import { describe, expect, test } from "bun:test";
import { GOING_AWAY, IDLE_TIMEOUT_SECONDS, pageWentAway } from "../../src/server/ws.ts";

describe("a socket's close that says its page went away", () => {
  test("the browser's going-away while it was answering", () => {
    expect(pageWentAway(GOING_AWAY, 1000, false)).toBe(true);
    // A visitor reading quietly still answers the server's pings.
    expect(pageWentAway(GOING_AWAY, (IDLE_TIMEOUT_SECONDS * 1000) / 2, false)).toBe(true);
  });

  test("not Bun's idle timeout, which it also reports as going away: a dead network", () => {
    expect(pageWentAway(GOING_AWAY, IDLE_TIMEOUT_SECONDS * 1000, false)).toBe(false);
    // uWS times sockets out on a coarse tick, a few seconds early at most.
    expect(pageWentAway(GOING_AWAY, IDLE_TIMEOUT_SECONDS * 1000 - 4000, false)).toBe(false);
  });

  test("not this server stopping, which Bun reports as going away too", () => {
    expect(pageWentAway(GOING_AWAY, 1000, true)).toBe(false);
  });

  test("not a drop, nor the client's own closes", () => {
    for (const code of [1000, 1005, 1006, 1012, 3000]) {
      expect(pageWentAway(code, 1000, false)).toBe(false);
    }
  });
});
