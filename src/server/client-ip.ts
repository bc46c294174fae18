import { isIP } from "node:net";

/** What a forwarded-for entry names, without brackets or port; null if it is not an address. */
function addressOf(entry: string): string | null {
  let value = entry.trim();
  if (value.startsWith("[")) {
    // [2001:db8::1] or [2001:db8::1]:443
    const end = value.indexOf("]");
    value = end === -1 ? "" : value.slice(1, end);
  } else if (value.indexOf(":") === value.lastIndexOf(":") && value.includes(".")) {
    // 203.0.113.9:443; a bare IPv6 address has more than one colon and is kept whole.
    value = value.split(":")[0] ?? "";
  }
  return isIP(value) === 0 ? null : value;
}

/**
 * The visitor's address. Behind one reverse proxy (trustProxy), the right-most entry of
 * X-Forwarded-For: the proxy appends the address it saw, so every entry to its left is whatever
 * the client chose to send. When that entry is not an address, the request is taken as the
 * proxy's own (its socket address), never as leave to read a further-left, client-written one.
 * Without a trusted proxy, the socket's address, since any client can send that header.
 * "0.0.0.0" when nothing names an address, which the country lookup answers as Unknown.
 */
export function clientIp(
  request: Request,
  /** Asked only when the header does not decide: it costs a system call per request. */
  socketAddress: () => string | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded) {
      const address = addressOf(forwarded.slice(forwarded.lastIndexOf(",") + 1));
      if (address) return address;
    }
  }
  const address = socketAddress();
  if (address && isIP(address) !== 0) return address;
  return "0.0.0.0";
}
