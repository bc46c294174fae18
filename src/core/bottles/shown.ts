import { createHmac, timingSafeEqual } from "node:crypto";
import type { DB } from "../../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { findVisibleBottle } from "./bottles.ts";

/** How long a reader may translate a bottle discover showed them. */
export const SHOWN_PASS_MS = 24 * 60 * 60 * 1000;

/**
 * Proof that discover showed a bottle to a reader, handed out with the bottle: a reader may
 * translate a bottle that is public or one they were shown, never another by guessing its id.
 * The pass is "<expiry, base 36>.<signature>", the signature an HMAC under the server's secret
 * of the visitor, the bottle and the expiry, so any instance checks it with no shared state
 * (the list of bottles shown lately is per instance, and the finds are written a moment later).
 */
export class ShownBottles {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
    private readonly passMs: number = SHOWN_PASS_MS,
  ) {}

  #sign(visitorId: string, bottleId: number, expiry: string): string {
    return createHmac("sha256", this.secret)
      .update(`bottle-shown\n${visitorId}\n${bottleId}\n${expiry}`)
      .digest("base64url")
      .slice(0, 32);
  }

  /** The pass for a bottle discover is showing this visitor now. */
  pass(visitorId: string, bottleId: number): string {
    const expiry = (this.now() + this.passMs).toString(36);
    return `${expiry}.${this.#sign(visitorId, bottleId, expiry)}`;
  }

  /** Whether `pass` is ours, for this visitor and bottle, and not expired. */
  wasShown(pass: string | undefined, visitorId: string, bottleId: number): boolean {
    if (!pass || pass.length > 64) return false;
    const [expiry, signature, extra] = pass.split(".");
    if (!expiry || !signature || extra !== undefined || !/^[0-9a-z]{1,12}$/.test(expiry)) {
      return false;
    }
    const expiresAt = Number.parseInt(expiry, 36);
    // One signed for later than we ever sign (a clock set back) is not taken either.
    const left = expiresAt - this.now();
    if (left <= 0 || left > this.passMs + 60_000) return false;
    const expected = Buffer.from(this.#sign(visitorId, bottleId, expiry));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** Which bottle a reader asks about, with the pass discover gave them for it, if any. */
export interface BottleAsked {
  bottleId: number;
  shownPass?: string | undefined;
}

/**
 * A bottle this reader may read again (to translate it): in the ocean, and public or shown to
 * them by discover. Any other is "not found", whether or not it exists.
 */
export async function bottleForReader(
  db: DB,
  shown: ShownBottles,
  visitorId: string,
  asked: BottleAsked,
  now: number,
): Promise<{ id: number; message: string }> {
  const passed = shown.wasShown(asked.shownPass, visitorId, asked.bottleId);
  const bottle = await findVisibleBottle(db, asked.bottleId, now);
  if (!bottle || !(passed || bottle.is_public === 1)) {
    throw new DomainError("NOT_FOUND", "bottle not found");
  }
  return { id: bottle.id, message: bottle.message };
}
