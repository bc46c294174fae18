import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a browser stays trusted for an account after signing in to it. */
export const DEVICE_TRUST_MS = 180 * 24 * 60 * 60 * 1000;

/**
 * OWASP's device cookies: a browser that has signed in to an account carries a signed token
 * naming it, so failed guesses from elsewhere never lock that browser out of its own account.
 * The token is "<account key, base64url>.<nonce>.<issued at, base 36>.<signature>"; the nonce
 * names the device. The server trusts a token for DEVICE_TRUST_MS from when it was issued
 * (each sign-in issues a new one), whatever the cookie's own age says.
 */
export class DeviceCookies {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
    private readonly trustMs: number = DEVICE_TRUST_MS,
  ) {}

  #sign(accountKey: string, nonce: string, issued: string): string {
    return createHmac("sha256", this.secret)
      .update(`device\n${accountKey}\n${nonce}\n${issued}`)
      .digest("base64url")
      .slice(0, 32);
  }

  issue(accountKey: string): string {
    const nonce = randomBytes(12).toString("base64url");
    const name = Buffer.from(accountKey).toString("base64url");
    const issued = this.now().toString(36);
    return `${name}.${nonce}.${issued}.${this.#sign(accountKey, nonce, issued)}`;
  }

  /**
   * The device a token names, when it is whole, signed by us, for this account and issued less
   * than DEVICE_TRUST_MS ago.
   */
  trusted(token: string | undefined, accountKey: string): { deviceId: string } | null {
    if (!token || token.length > 200) return null;
    const [name, nonce, issued, signature, extra] = token.split(".");
    if (!name || !nonce || !issued || !signature || extra !== undefined) return null;
    if (!/^[0-9a-z]{1,12}$/.test(issued)) return null;
    const issuedAt = Number.parseInt(issued, 36);
    const age = this.now() - issuedAt;
    // A token from the future (a clock set back) is not trusted either.
    if (age < -60_000 || age >= this.trustMs) return null;
    if (Buffer.from(name, "base64url").toString() !== accountKey) return null;
    const expected = Buffer.from(this.#sign(accountKey, nonce, issued));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { deviceId: nonce };
  }
}
