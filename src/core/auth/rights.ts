import { randomUUID } from "node:crypto";
import type { DB } from "../../../db/schema.ts";
import type { ValidSession } from "./sessions.ts";

/**
 * How long an open socket may act on what it last read of its session and operator flag. A
 * revocation made anywhere clears it sooner (see Revocations); this bounds the rest.
 */
export const RIGHTS_CHECK_MS = 5000;

/**
 * The site_settings row that changes whenever rights change outside a running site (the
 * `operator` command): each instance reads it every moment and, when it changed, reads every
 * socket's rights again.
 */
export const RIGHTS_VERSION_KEY = "rights:version";

/**
 * Marks rights as changed where every instance looks. Run it in the transaction that changes
 * them; its value only has to differ from the one before.
 */
export async function markRightsChanged(trx: DB, now: number): Promise<void> {
  const value = randomUUID();
  await trx
    .insertInto("site_settings")
    .values({ key: RIGHTS_VERSION_KEY, value, updated_at: now })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: now }))
    .execute();
}

/** The current mark of rights changed outside a running site ("" before the first). */
export async function rightsVersion(db: DB): Promise<string> {
  const row = await db
    .selectFrom("site_settings")
    .select("value")
    .where("key", "=", RIGHTS_VERSION_KEY)
    .executeTakeFirst();
  return row?.value ?? "";
}

/**
 * The revocations this instance has heard of: signing out, signing out everywhere, a password
 * changed, an account deleted, an operator added or removed. Each one takes the next number; a
 * socket's rights read before an account's latest number (or before `forgetAll`) are read again
 * on its next call. Numbers are kept only while a reading could still be trusted
 * (RIGHTS_CHECK_MS), so the map stays as small as the revocations of the last moments.
 */
export class Revocations {
  #count = 0;
  /** Readings at or before this number are not trusted (everything was let go). */
  #forgottenAt = 0;
  /** account id → the number of its latest revocation, and when; oldest first. */
  readonly #byAccount = new Map<string, { count: number; at: number }>();
  /** Tells the other instances (set by the shared state when there are others). */
  #tell: (accountId: string) => void = () => {};

  constructor(private readonly now: () => number) {}

  /** The number a reading starting now records: a revocation after it makes it stale. */
  get count(): number {
    return this.#count;
  }

  /** Whether a reading taken at `count` still stands for this account (null: no account). */
  stands(count: number, accountId: string | null): boolean {
    if (count < this.#forgottenAt) return false;
    if (accountId === null) return true;
    const latest = this.#byAccount.get(accountId);
    return latest === undefined || count >= latest.count;
  }

  /** This account's rights changed here: every socket of it reads them again, here and elsewhere. */
  revoke(accountId: string): void {
    this.heard(accountId);
    this.#tell(accountId);
  }

  /** Another instance changed this account's rights. */
  heard(accountId: string): void {
    const now = this.now();
    this.#count += 1;
    this.#byAccount.delete(accountId);
    this.#byAccount.set(accountId, { count: this.#count, at: now });
    for (const [id, { at }] of this.#byAccount) {
      if (now - at <= RIGHTS_CHECK_MS) break;
      this.#byAccount.delete(id);
    }
  }

  /** Every socket reads its rights again (news may have been missed, or came from outside). */
  forgetAll(): void {
    this.#count += 1;
    this.#forgottenAt = this.#count;
    this.#byAccount.clear();
  }

  /** How revocations made here reach the other instances. */
  tellOthersWith(tell: (accountId: string) => void): void {
    this.#tell = tell;
  }
}

/**
 * The rights of one open socket, read again for each call: its session cookie was fixed when
 * it opened, but the session may have ended and the operator flag changed since. A reading is
 * kept for RIGHTS_CHECK_MS unless a revocation of its account comes first, so calls in between
 * (every chat message of a signed-in visitor) cost a look-up in memory, not the database. A
 * session found invalid stays so (a token is never valid again), and is never read again.
 */
export class SocketRights {
  #reading: { valid: ValidSession | null; count: number; at: number };
  #pending: { count: number; promise: Promise<ValidSession | null> } | undefined;

  constructor(
    private readonly revocations: Revocations,
    private readonly read: () => Promise<ValidSession | null>,
    private readonly now: () => number,
    /** What the socket's upgrade read, and the revocation count when that reading began. */
    first: { valid: ValidSession | null; count: number },
  ) {
    this.#reading = { ...first, at: now() };
  }

  /** The session and operator flag as they stand now; a value when no read is needed. */
  current(): ValidSession | null | Promise<ValidSession | null> {
    const { valid, count, at } = this.#reading;
    if (!valid) return null;
    const now = this.now();
    if (
      now - at < RIGHTS_CHECK_MS &&
      now < valid.session.expiresAt &&
      this.revocations.stands(count, valid.user.id)
    ) {
      return valid;
    }
    return this.#readAgain();
  }

  #readAgain(): Promise<ValidSession | null> {
    const count = this.revocations.count;
    // Calls arriving together share one read, unless a revocation came since it began.
    if (this.#pending?.count === count) return this.#pending.promise;
    const at = this.now();
    const promise = this.read().then(
      (valid) => {
        // A later read may have landed first; the one begun last wins.
        if (count >= this.#reading.count) this.#reading = { valid, count, at };
        if (this.#pending?.promise === promise) this.#pending = undefined;
        return valid;
      },
      (error: unknown) => {
        if (this.#pending?.promise === promise) this.#pending = undefined;
        throw error;
      },
    );
    this.#pending = { count, promise };
    return promise;
  }
}
