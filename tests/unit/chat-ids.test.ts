import { describe, expect, test } from "bun:test";
import { RandomIds } from "../../src/core/chat/ids.ts";

describe("message ids", () => {
  test("12 base64url characters, all different, across many draws", () => {
    const ids = new RandomIds(4);
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = ids.next();
      expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(10_000);
  });
});
