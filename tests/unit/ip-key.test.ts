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
    // The groups after "::" fill from the right: here one zero group is left out.
    expect(subscriberPrefix("2001:db8::1:2:3:4:5")).toBe("2001:db8:0:1::/64");
    expect(subscriberPrefix("::1")).toBe("0:0:0:0::/64");
    expect(subscriberPrefix("FE80::1")).toBe("fe80:0:0:0::/64");
  });
  test("only an IPv4-mapped address is read as IPv4, with groups of any length", () => {
    expect(subscriberPrefix("::ffff:198.51.100.77")).toBe("198.51.100.77");
    expect(subscriberPrefix("::FFFF:198.51.100.77")).toBe("198.51.100.77");
    // An IPv6 address that merely ends in an IPv4 one is an IPv6 subscriber.
    expect(subscriberPrefix("2001:db8:1:2::ffff:198.51.100.77")).toBe("2001:db8:1:2::/64");
    // Something after the IPv4 part is no mapped address, so it does not borrow that one's key.
    expect(subscriberPrefix("::ffff:198.51.100.77x")).toBe("::ffff:198.51.100.77x");
  });
});

describe("ipKey", () => {
  test("the same subscriber gets the same key; the raw address is not in it", () => {
    const a = ipKey("s".repeat(32), "2001:db8:1:2::1");
    expect(a).toBe(ipKey("s".repeat(32), "2001:db8:1:2:ffff::9"));
    // 22 characters of base64url (132 bits): short to store, far from colliding.
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a).not.toContain("2001");
  });
  test("another secret or subscriber gives another key", () => {
    const a = ipKey("s".repeat(32), "203.0.113.9");
    expect(ipKey("t".repeat(32), "203.0.113.9")).not.toBe(a);
    expect(ipKey("s".repeat(32), "203.0.113.10")).not.toBe(a);
  });
});
