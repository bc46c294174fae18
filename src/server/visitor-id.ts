import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

// Signing visitor ids: node:crypto only, so the test and benchmark clients sign as the server does.

/** The cookie value of an id the server issued: the id, a dot, and its MAC. */
const SIGNED_VISITOR = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

const keys = new Map<string, Buffer>();

/**
 * The key that signs visitor ids, derived from SECRET (HKDF) so that it is never the key of the
 * address hashes (ipKey), which is SECRET itself.
 */
export function visitorKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "", "tidings visitor id", 32));
    keys.set(secret, key);
  }
  return key;
}

function visitorMac(key: Buffer, id: string): string {
  return createHmac("sha256", key).update(id).digest("base64url").slice(0, 22);
}

/** The visitor cookie's value for an id: the id itself stays what core and the database know. */
export function signedVisitorId(key: Buffer, id: string): string {
  return `${id}.${visitorMac(key, id)}`;
}

/** The id a cookie value carries when this server signed it; null for anything else. */
export function verifiedVisitorId(key: Buffer, value: string): string | null {
  const [, id = "", mac = ""] = SIGNED_VISITOR.exec(value) ?? [];
  if (!id) return null;
  return timingSafeEqual(Buffer.from(visitorMac(key, id)), Buffer.from(mac)) ? id : null;
}
