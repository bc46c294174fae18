import { createHmac } from "node:crypto";
import { isIPv6 } from "node:net";

/**
 * The part of an address that names one subscriber: the whole IPv4 address, or the /64 of an
 * IPv6 one (a single home or phone usually holds a whole /64).
 */
export function subscriberPrefix(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(Math.max(0, missing)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * A keyed hash of the visitor's address: enough to rate-limit and ban, not enough to identify.
 * Only this is ever stored or kept in memory, never the address itself.
 */
export function ipKey(secret: string, ip: string): string {
  return createHmac("sha256", secret).update(subscriberPrefix(ip)).digest("base64url").slice(0, 22);
}
