import { describe, expect, test } from "bun:test";
import { actionDetail, actionFacts } from "../../src/core/admin/queue.ts";

// The recorded detail of an operator's action stays plain words in the database (and for the
// CLI); the moderation page reads the numbers back to word them in the operator's language.
describe("the recorded detail of an action", () => {
  test("a dismissal's reports closed, a ban's end and a lift's bans are read back", () => {
    expect(actionFacts("dismiss", actionDetail.dismiss(1))).toEqual({ closed: 1 });
    expect(actionFacts("dismiss", actionDetail.dismiss(12))).toEqual({ closed: 12 });
    const until = Date.UTC(2026, 10, 23, 15, 14);
    expect(
      actionFacts("ban", actionDetail.ban(["visitor:abcdefghijkl", "ip:mnopqrstuvwx"], until)),
    ).toEqual({
      until,
    });
    expect(actionFacts("unban", actionDetail.unban([]))).toEqual({ lifted: 0 });
    expect(
      actionFacts("unban", actionDetail.unban(["visitor:abcdefghijkl", "ip:x1y2z3w4v5u6"])),
    ).toEqual({
      lifted: 2,
    });
  });

  test("actions without numbers, and details written some other way, give nothing to read", () => {
    expect(actionFacts("hide", "")).toBeNull();
    expect(actionFacts("switch off", "")).toBeNull();
    expect(actionFacts("dismiss", "three reports")).toBeNull();
    expect(actionFacts("ban", "visitor:abcdefghijkl until later")).toBeNull();
  });
});
