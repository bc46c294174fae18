import { describe, expect, test } from "bun:test";
import { clientIp } from "../../src/server/client-ip.ts";

function request(forwardedFor?: string): Request {
  const headers = new Headers();
  if (forwardedFor !== undefined) headers.set("x-forwarded-for", forwardedFor);
  return new Request("http://localhost/", { headers });
}

describe("clientIp", () => {
  test("without a trusted proxy, the socket address; a spoofed header is ignored", () => {
    expect(clientIp(request("8.8.8.8"), () => "203.0.113.9", false)).toBe("203.0.113.9");
    expect(clientIp(request(), () => "2001:db8::1", false)).toBe("2001:db8::1");
  });

  test("behind a trusted proxy, the right-most forwarded address (the one the proxy saw)", () => {
    // The client sent "6.6.6.6" itself; the proxy appended the real address.
    expect(clientIp(request("6.6.6.6, 198.51.100.7"), () => "10.0.0.1", true)).toBe("198.51.100.7");
    expect(clientIp(request("  198.51.100.7  "), () => "10.0.0.1", true)).toBe("198.51.100.7");
  });

  test("a right-most entry that is not an address is the proxy's own request, never leave to read the client's entries", () => {
    // A client that writes "198.51.100.7, unknown" must not be taken for 198.51.100.7.
    expect(clientIp(request("198.51.100.7, unknown"), () => "10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientIp(request("203.0.113.66,"), () => "10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientIp(request("203.0.113.66, _hidden"), () => "10.0.0.1", true)).toBe("10.0.0.1");
  });

  test("the socket is asked for its address only when the header does not decide", () => {
    let asked = 0;
    const socket = () => {
      asked += 1;
      return "10.0.0.1";
    };
    clientIp(request("198.51.100.7"), socket, true);
    expect(asked).toBe(0);
    expect(clientIp(request("198.51.100.7"), socket, false)).toBe("10.0.0.1");
    expect(asked).toBe(1);
  });

  test("ports and IPv6 brackets are stripped", () => {
    expect(clientIp(request("198.51.100.7:5555"), () => "10.0.0.1", true)).toBe("198.51.100.7");
    expect(clientIp(request("[2001:db8::7]:443"), () => "10.0.0.1", true)).toBe("2001:db8::7");
    expect(clientIp(request("[2001:db8::7]"), () => "10.0.0.1", true)).toBe("2001:db8::7");
    expect(clientIp(request("2001:db8::7"), () => "10.0.0.1", true)).toBe("2001:db8::7");
  });

  test("an absent or invalid header falls back to the socket address", () => {
    expect(clientIp(request(), () => "10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientIp(request(""), () => "10.0.0.1", true)).toBe("10.0.0.1");
    expect(clientIp(request("not-an-ip, 999.1.1.1, [::1"), () => "::1", true)).toBe("::1");
  });

  test("nothing usable gives 0.0.0.0", () => {
    expect(clientIp(request(), () => undefined, false)).toBe("0.0.0.0");
    expect(clientIp(request("garbage"), () => "", true)).toBe("0.0.0.0");
    expect(clientIp(request(), () => "not an address", false)).toBe("0.0.0.0");
  });
});
