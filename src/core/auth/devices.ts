import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a browser stays trusted for an account after signing in to it. */
export const DEVICE_TRUST_MS = 180 * 24 * 60 * 60 * 1000;

/**
 * OWASP's device cookies: a browser that has signed in to an account carries a signed token
 * naming it, so failed guesses from elsewhere never lock that browser out of its own account.
 * The token is "<account key, base64url>.<nonce>.<signature>"; the nonce names the device.
 */
export class DeviceCookies {
  constructor(private readonly secret: string) {}

  #sign(accountKey: string, nonce: string): string {
    return createHmac("sha256", this.secret)
      .update(`device\n${accountKey}\n${nonce}`)
      .digest("base64url")
      .slice(0, 32);
  }

  issue(accountKey: string): string {
    const nonce = randomBytes(12).toString("base64url");
    const name = Buffer.from(accountKey).toString("base64url");
    return `${name}.${nonce}.${this.#sign(accountKey, nonce)}`;
  }

  /** The device a token names, when it is whole, signed by us and for this account. */
  trusted(token: string | undefined, accountKey: string): { deviceId: string } | null {
    if (!token || token.length > 200) return null;
    const [name, nonce, signature] = token.split(".");
    if (!name || !nonce || !signature) return null;
    if (Buffer.from(name, "base64url").toString() !== accountKey) return null;
    const expected = Buffer.from(this.#sign(accountKey, nonce));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { deviceId: nonce };
  }
}
