import { randomBytes } from "node:crypto";
import { isUniqueViolation } from "../../../db/errors.ts";
import type { DB } from "../../../db/schema.ts";
import type { AccountUser, SignInInput, SignUpInput } from "../../common/auth.ts";
import { FieldError, InvalidCredentialsError } from "../errors.ts";
import type { RateLimiter, RateRule, Reservation, Slot } from "../limits/rate-limiter.ts";
import type { VisitorKeys } from "../requester.ts";
import type { DeviceCookies } from "./devices.ts";
import { createSession, deleteUserSessions, type Session } from "./sessions.ts";

const MINUTE = 60 * 1000;

/**
 * Password guessing, after OWASP's device-cookie design: failures count per address, per account
 * and address, and per account across all addresses, except that a browser which has signed in
 * to the account before (its device cookie) counts on its own instead, so nobody can lock an
 * owner out of a browser they have used. A success gives its slots back.
 */
export const SIGN_IN_RULES = {
  /** Failures per address (IPv6 /64): shared by everyone behind it. */
  perAddress: { limit: 30, windowMs: 15 * MINUTE },
  perAccountAndAddress: { limit: 10, windowMs: 15 * MINUTE },
  /** Failures for one account from browsers it has never signed in on. */
  perAccount: { limit: 10, windowMs: 15 * MINUTE },
  /** Failures from one trusted browser. */
  perDevice: { limit: 10, windowMs: 15 * MINUTE },
} as const satisfies Record<string, RateRule>;

/** Argon2 hashes computed per address: each costs tens of milliseconds of CPU. */
export const PASSWORD_HASHES: RateRule = { limit: 5, windowMs: 1000 };
/** New accounts per visitor and per address. */
export const SIGN_UPS: RateRule = { limit: 5, windowMs: 60 * MINUTE };

export interface AuthDeps {
  limiter: RateLimiter;
  devices: DeviceCookies;
}

// A hash to check against when the username is unknown, so both answers take as long.
let decoyHash: Promise<string> | undefined;
function decoy(): Promise<string> {
  decoyHash ??= Bun.password.hash(randomBytes(16).toString("hex"), { algorithm: "argon2id" });
  return decoyHash;
}

function accountKey(username: string): string {
  return username.trim().toLowerCase();
}

/** Takes a slot of the address's hashing budget, then `slots`; all or nothing. */
async function takeWithHash(
  limiter: RateLimiter,
  requester: VisitorKeys,
  slots: Slot[],
): Promise<Reservation> {
  const hash = await limiter.take([{ key: `hash:ip:${requester.ipKey}`, rule: PASSWORD_HASHES }]);
  try {
    return await limiter.take(slots);
  } catch (error) {
    await hash.refund();
    throw error;
  }
}

export async function signUp(
  db: DB,
  deps: AuthDeps,
  requester: VisitorKeys,
  input: SignUpInput,
  now: number,
): Promise<{ user: AccountUser; token: string; session: Session; deviceToken: string }> {
  const key = accountKey(input.username);
  // Taken before anything is awaited; given back when no account is made.
  const created = await takeWithHash(deps.limiter, requester, [
    { key: `signup:v:${requester.visitorId}`, rule: SIGN_UPS },
    { key: `signup:ip:${requester.ipKey}`, rule: SIGN_UPS },
  ]);
  const taken = () => new FieldError({ field: "username", kind: "username_taken" });
  try {
    const existing = await db
      .selectFrom("users")
      .select("id")
      .where("username_key", "=", key)
      .executeTakeFirst();
    if (existing) throw taken();
    const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
    const id = randomBytes(12).toString("base64url");
    try {
      await db
        .insertInto("users")
        .values({
          id,
          username: input.username,
          username_key: key,
          password_hash: passwordHash,
          created_at: now,
        })
        .execute();
    } catch (error) {
      // Two sign-ups for one name at once: the unique index decides.
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
    const { token, session } = await createSession(db, id, now);
    const deviceToken = deps.devices.issue(key);
    return { user: { id, username: input.username }, token, session, deviceToken };
  } catch (error) {
    await created.refund();
    throw error;
  }
}

/**
 * Checks a password under the guessing limits above. The slots are taken before the hash is
 * computed, so calls that run together (a batch, parallel requests) can never try more
 * passwords than the limits allow.
 */
async function verifyPassword(
  db: DB,
  deps: AuthDeps,
  requester: VisitorKeys,
  username: string,
  password: string,
  deviceToken: string | undefined,
): Promise<AccountUser> {
  const key = accountKey(username);
  const ip = requester.ipKey;
  const device = deps.devices.trusted(deviceToken, key);
  const failures = await takeWithHash(deps.limiter, requester, [
    { key: `signin:ip:${ip}`, rule: SIGN_IN_RULES.perAddress },
    { key: `signin:account-ip:${key}:${ip}`, rule: SIGN_IN_RULES.perAccountAndAddress },
    device
      ? { key: `signin:device:${device.deviceId}`, rule: SIGN_IN_RULES.perDevice }
      : { key: `signin:account:${key}`, rule: SIGN_IN_RULES.perAccount },
  ]);
  const row = await db
    .selectFrom("users")
    .select(["id", "username", "password_hash"])
    .where("username_key", "=", key)
    .executeTakeFirst();
  const ok = await Bun.password.verify(password, row?.password_hash ?? (await decoy()));
  if (!row || !ok) throw new InvalidCredentialsError();
  await failures.refund();
  return { id: row.id, username: row.username };
}

export async function signIn(
  db: DB,
  deps: AuthDeps,
  requester: VisitorKeys,
  input: SignInInput,
  deviceToken: string | undefined,
  now: number,
): Promise<{ user: AccountUser; token: string; session: Session; deviceToken: string }> {
  const user = await verifyPassword(
    db,
    deps,
    requester,
    input.username,
    input.password,
    deviceToken,
  );
  const { token, session } = await createSession(db, user.id, now);
  return { user, token, session, deviceToken: deps.devices.issue(accountKey(user.username)) };
}

/** Changes the password and signs out every other device. */
export async function changePassword(
  db: DB,
  deps: AuthDeps,
  requester: VisitorKeys,
  user: AccountUser,
  currentSessionId: string,
  input: { currentPassword: string; newPassword: string },
  deviceToken: string | undefined,
): Promise<void> {
  await verifyPassword(db, deps, requester, user.username, input.currentPassword, deviceToken);
  if (input.newPassword.trim().toLowerCase() === user.username.toLowerCase()) {
    throw new FieldError({ field: "newPassword", kind: "password_is_username" });
  }
  await deps.limiter.take([{ key: `hash:ip:${requester.ipKey}`, rule: PASSWORD_HASHES }]);
  const passwordHash = await Bun.password.hash(input.newPassword, { algorithm: "argon2id" });
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ password_hash: passwordHash })
      .where("id", "=", user.id)
      .execute();
    await deleteUserSessions(trx, user.id, currentSessionId);
  });
}

/** Deletes the account, its sessions (and, by foreign keys, what else belongs only to it). */
export async function deleteAccount(
  db: DB,
  deps: AuthDeps,
  requester: VisitorKeys,
  user: AccountUser,
  password: string,
  deviceToken: string | undefined,
): Promise<void> {
  await verifyPassword(db, deps, requester, user.username, password, deviceToken);
  await db.deleteFrom("users").where("id", "=", user.id).execute();
}
