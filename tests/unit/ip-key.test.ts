import { describe, expect, test } from "bun:test";
import { ipKey, subscriberPrefix } from "../../src/core/limits/ip-key.ts";

describe("subscriberPrefix", () => {
  test("IPv4 is kept whole, also when mapped into IPv6", () => {
    expect(subscriberPrefix("203.0.113.9")).toBe("203.0.113.9");
    expect(subscriberPrefix("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });
  test("IPv6 is cut to its /64 however it is written", () => {
    expect(subscriberPrefix("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(subscriberPrefix("2001:0db8:0001:0002::9")).toBe("2001:db8:1:2::/64");
    expect(subscriberPrefix("2001:db8::1")).toBe("2001:db8:0:0::/64");
  });
});

describe("ipKey", () => {
  test("the same subscriber gets the same key; the raw address is not in it", () => {
    const a = ipKey("s".repeat(32), "2001:db8:1:2::1");
    expect(a).toBe(ipKey("s".repeat(32), "2001:db8:1:2:ffff::9"));
    expect(a).not.toContain("2001");
  });
  test("another secret or subscriber gives another key", () => {
    const a = ipKey("s".repeat(32), "203.0.113.9");
    expect(ipKey("t".repeat(32), "203.0.113.9")).not.toBe(a);
    expect(ipKey("s".repeat(32), "203.0.113.10")).not.toBe(a);
  });
});
