import { describe, expect, test } from "bun:test";
import { publicAddress } from "../../scripts/bench/lib.ts";

// The benchmarks give each simulated visitor an address of its own: the site limits each
// address like a visitor, so two visitors on one address would meet its limits early (the
// throw benchmark then counted 429 answers as failures).
describe("benchmark visitors' addresses", () => {
  test("are distinct, and never a network's .0 or .255", () => {
    const seen = new Set<string>();
    for (let n = 0; n < 300_000; n++) {
      const address = publicAddress(n);
      const last = Number(address.split(".")[3]);
      expect(last).toBeGreaterThanOrEqual(1);
      expect(last).toBeLessThanOrEqual(254);
      seen.add(address);
    }
    expect(seen.size).toBe(300_000);
  });
});
