import { describe, expect, test } from "bun:test";
import { systemTime, timeoutSignal } from "../../src/core/clock.ts";
import { VirtualClock } from "../helpers/clock.ts";

describe("the virtual clock", () => {
  test("reads the time it was given, and moves only when advanced", () => {
    const clock = new VirtualClock(1000);
    expect(clock.now()).toBe(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(250);
    expect(clock.now()).toBe(1250);
    const { now } = clock;
    expect(now()).toBe(1250);
    expect(new VirtualClock().now()).toBe(Date.UTC(2026, 0, 15, 12));
  });

  test("runs due timers in the order of their due times, each seeing its own time", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.setTimeout(() => ran.push(`c@${clock.now()}`), 30);
    clock.setTimeout(() => ran.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => ran.push(`b@${clock.now()}`), 20);
    clock.advance(9);
    expect(ran).toEqual([]);
    clock.advance(11);
    expect(ran).toEqual(["a@10", "b@20"]);
    expect(clock.now()).toBe(20);
    clock.advance(100);
    expect(ran).toEqual(["a@10", "b@20", "c@30"]);
    expect(clock.now()).toBe(120);
  });

  test("timers due at the same instant run in the order they were set", () => {
    const clock = new VirtualClock(0);
    const ran: number[] = [];
    for (const n of [1, 2, 3, 4]) clock.setTimeout(() => ran.push(n), 5);
    clock.advance(5);
    expect(ran).toEqual([1, 2, 3, 4]);
  });

  test("a timer set by a timer runs in the same advance when it falls due within it", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.setTimeout(() => {
      ran.push(`first@${clock.now()}`);
      clock.setTimeout(() => ran.push(`second@${clock.now()}`), 10);
      clock.setTimeout(() => ran.push(`late@${clock.now()}`), 100);
    }, 10);
    clock.setTimeout(() => ran.push(`other@${clock.now()}`), 15);
    clock.advance(50);
    expect(ran).toEqual(["first@10", "other@15", "second@20"]);
    expect(clock.pending).toBe(1);
    clock.advance(60);
    expect(ran.at(-1)).toBe("late@110");
    expect(clock.pending).toBe(0);
  });

  test("a timer that sets another at zero delay lets it run before time moves on", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.setTimeout(() => {
      clock.setTimeout(() => ran.push(`now@${clock.now()}`), 0);
    }, 10);
    clock.setTimeout(() => ran.push(`after@${clock.now()}`), 11);
    clock.advance(20);
    expect(ran).toEqual(["now@10", "after@11"]);
  });

  test("advancing by nothing runs what is due now, and time never goes back by advance", () => {
    const clock = new VirtualClock(0);
    let ran = 0;
    clock.setTimeout(() => ran++, 0);
    clock.setTimeout(() => ran++, -5);
    expect(ran).toBe(0);
    clock.advance(0);
    expect(ran).toBe(2);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(clock.now()).toBe(0);
  });

  test("an interval runs once per period, on time, until cleared, even from its own run", () => {
    const clock = new VirtualClock(0);
    const at: number[] = [];
    const every = clock.setInterval(() => {
      at.push(clock.now());
      if (at.length === 4) clock.clearInterval(every);
    }, 100);
    clock.advance(250);
    expect(at).toEqual([100, 200]);
    clock.advance(1000);
    expect(at).toEqual([100, 200, 300, 400]);
    expect(clock.pending).toBe(0);
  });

  test("an interval of zero repeats each millisecond rather than forever at one instant", () => {
    const clock = new VirtualClock(0);
    let runs = 0;
    clock.setInterval(() => runs++, 0);
    clock.advance(5);
    expect(runs).toBe(6);
  });

  test("intervals and timeouts interleave by due time", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.setInterval(() => ran.push(`tick@${clock.now()}`), 10);
    clock.setTimeout(() => ran.push(`once@${clock.now()}`), 15);
    clock.advance(30);
    expect(ran).toEqual(["tick@10", "once@15", "tick@20", "tick@30"]);
  });

  test("a cleared timer never runs; clearing twice, late, or nothing is harmless", () => {
    const clock = new VirtualClock(0);
    let ran = 0;
    const timer = clock.setTimeout(() => ran++, 10);
    const ranAlready = clock.setTimeout(() => ran++, 1);
    clock.advance(1);
    expect(ran).toBe(1);
    clock.clearTimeout(timer);
    clock.clearTimeout(timer);
    clock.clearTimeout(ranAlready);
    clock.clearTimeout(undefined);
    clock.clearInterval(undefined);
    // A timer of the system is no timer of this clock.
    const foreign = systemTime.setTimeout(() => {}, 60_000);
    clock.clearTimeout(foreign);
    systemTime.clearTimeout(foreign);
    clock.advance(100);
    expect(ran).toBe(1);
    expect(clock.pending).toBe(0);
  });

  test("a timer cleared by one that runs before it at the same instant does not run", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    let second: ReturnType<VirtualClock["setTimeout"]> | undefined;
    clock.setTimeout(() => {
      ran.push("first");
      clock.clearTimeout(second);
    }, 10);
    second = clock.setTimeout(() => ran.push("second"), 10);
    clock.advance(10);
    expect(ran).toEqual(["first"]);
  });

  test("unref is there and changes nothing", () => {
    const clock = new VirtualClock(0);
    let ran = 0;
    const timer = clock.setTimeout(() => ran++, 5);
    expect(timer.unref()).toBe(timer);
    clock.advance(5);
    expect(ran).toBe(1);
  });

  test("a jump runs each interval only its last time in the span, everything else in order", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.setInterval(() => ran.push(`tick@${clock.now()}`), 100);
    clock.setTimeout(() => ran.push(`early@${clock.now()}`), 5);
    clock.setTimeout(() => ran.push(`late@${clock.now()}`), 950);
    const cleared = clock.setTimeout(() => ran.push("cleared"), 970);
    clock.setTimeout(() => {
      clock.clearTimeout(cleared);
      clock.setTimeout(() => ran.push(`set@${clock.now()}`), 10);
    }, 960);
    clock.jump(1050);
    expect(ran).toEqual(["early@5", "late@950", "set@970", "tick@1000"]);
    expect(clock.now()).toBe(1050);
    // The interval keeps its period from there.
    clock.advance(150);
    expect(ran.slice(4)).toEqual(["tick@1100", "tick@1200"]);
    expect(() => clock.jump(-1)).toThrow(RangeError);
  });

  test("a jump shorter than an interval's period runs it as advance would", () => {
    const clock = new VirtualClock(0);
    const ran: number[] = [];
    clock.setInterval(() => ran.push(clock.now()), 100);
    clock.jump(150);
    clock.jump(50);
    expect(ran).toEqual([100, 200]);
  });

  test("set moves forward as a jump does, and back without running anything", () => {
    const clock = new VirtualClock(1000);
    const ran: number[] = [];
    clock.setTimeout(() => ran.push(clock.now()), 500);
    clock.set(900);
    expect(clock.now()).toBe(900);
    expect(ran).toEqual([]);
    clock.set(1499);
    expect(ran).toEqual([]);
    clock.set(2000);
    expect(ran).toEqual([1500]);
    expect(clock.now()).toBe(2000);
  });

  test("an error in a timer reaches the test, and the clock stays usable", () => {
    const clock = new VirtualClock(0);
    const ran: string[] = [];
    clock.setTimeout(() => {
      throw new Error("boom");
    }, 1);
    clock.setTimeout(() => ran.push("later"), 2);
    expect(() => clock.advance(5)).toThrow("boom");
    clock.advance(5);
    expect(ran).toEqual(["later"]);
  });
});

describe("the system's time", () => {
  test("reads the system clock", () => {
    const before = Date.now();
    const now = systemTime.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  test("runs timers in order and never one that was cleared", async () => {
    const ran: string[] = [];
    const cleared = systemTime.setTimeout(() => ran.push("cleared"), 0);
    systemTime.clearTimeout(cleared);
    await new Promise<void>((resolve) => {
      systemTime.setTimeout(() => ran.push("first"), 0);
      systemTime.setTimeout(() => {
        ran.push("second");
        resolve();
      }, 1);
    });
    expect(ran).toEqual(["first", "second"]);
  });

  test("an interval repeats until cleared; timers can be unref'd", async () => {
    let runs = 0;
    await new Promise<void>((resolve) => {
      const every = systemTime.setInterval(() => {
        runs += 1;
        if (runs === 3) {
          systemTime.clearInterval(every);
          resolve();
        }
      }, 1);
      every.unref();
    });
    expect(runs).toBe(3);
  });
});

describe("timeoutSignal", () => {
  test("aborts as a timeout once the time has passed, not before", () => {
    const clock = new VirtualClock(0);
    const { signal } = timeoutSignal(clock, 100);
    clock.advance(99);
    expect(signal.aborted).toBe(false);
    clock.advance(1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe("TimeoutError");
  });

  test("done clears the timer: the signal never aborts", () => {
    const clock = new VirtualClock(0);
    const { signal, done } = timeoutSignal(clock, 100);
    expect(clock.pending).toBe(1);
    done();
    expect(clock.pending).toBe(0);
    clock.advance(1000);
    expect(signal.aborted).toBe(false);
  });
});
