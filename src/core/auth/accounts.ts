import { randomBytes } from "node:crypto";
import { isUniqueViolation } from "../../../db/errors.ts";
import type { DB } from "../../../db/schema.ts";
import type { AccountUser, SignInInput, SignUpInput } from "../../common/auth.ts";
import { FieldError, InvalidCredentialsError } from "../errors.ts";
import type { RateLimiter, RateRule } from "../limits/rate-limiter.ts";
import { createSession, deleteUserSessions, type Session } from "./sessions.ts";

/** Failed sign-ins allowed per address (IPv6 /64) and per username. */
export const SIGN_IN_FAILURES: RateRule = { limit: 10, windowMs: 15 * 60 * 1000 };
/** New accounts per address. */
export const SIGN_UPS: RateRule = { limit: 5, windowMs: 60 * 60 * 1000 };

export interface Requester {
  ipKey: string;
}

// A hash to check against when the username is unknown, so both answers take as long.
let decoyHash: Promise<string> | undefined;
function decoy(): Promise<string> {
  decoyHash ??= Bun.password.hash(randomBytes(16).toString("hex"), { algorithm: "argon2id" });
  return decoyHash;
}

function usernameKey(username: string): string {
  return username.trim().toLowerCase();
}

export async function signUp(
  db: DB,
  limiter: RateLimiter,
  requester: Requester,
  input: SignUpInput,
  now: number,
): Promise<{ user: AccountUser; token: string; session: Session }> {
  limiter.check([`signup:ip:${requester.ipKey}`], SIGN_UPS);
  const key = usernameKey(input.username);
  const taken = await db
    .selectFrom("users")
    .select("id")
    .where("username_key", "=", key)
    .executeTakeFirst();
  if (taken) throw new FieldError({ field: "username", kind: "username_taken" });
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
    if (isUniqueViolation(error))
      throw new FieldError({ field: "username", kind: "username_taken" });
    throw error;
  }
  limiter.record([`signup:ip:${requester.ipKey}`]);
  const { token, session } = await createSession(db, id, now);
  return { user: { id, username: input.username }, token, session };
}

/**
 * Checks a password with throttling: past ten failures in fifteen minutes from one address or
 * for one username, every attempt is refused until the window passes, right password or not.
 */
async function verifyPassword(
  db: DB,
  limiter: RateLimiter,
  requester: Requester,
  username: string,
  password: string,
): Promise<AccountUser> {
  const key = usernameKey(username);
  const keys = [`signin:ip:${requester.ipKey}`, `signin:user:${key}`];
  limiter.check(keys, SIGN_IN_FAILURES);
  const row = await db
    .selectFrom("users")
    .select(["id", "username", "password_hash"])
    .where("username_key", "=", key)
    .executeTakeFirst();
  const ok = await Bun.password.verify(password, row?.password_hash ?? (await decoy()));
  if (!row || !ok) {
    limiter.record(keys);
    throw new InvalidCredentialsError();
  }
  return { id: row.id, username: row.username };
}

export async function signIn(
  db: DB,
  limiter: RateLimiter,
  requester: Requester,
  input: SignInInput,
  now: number,
): Promise<{ user: AccountUser; token: string; session: Session }> {
  const user = await verifyPassword(db, limiter, requester, input.username, input.password);
  const { token, session } = await createSession(db, user.id, now);
  return { user, token, session };
}

/** Changes the password and signs out every other device. */
export async function changePassword(
  db: DB,
  limiter: RateLimiter,
  requester: Requester,
  user: AccountUser,
  currentSessionId: string,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  await verifyPassword(db, limiter, requester, user.username, input.currentPassword);
  if (input.newPassword.trim().toLowerCase() === user.username.toLowerCase()) {
    throw new FieldError({ field: "newPassword", kind: "password_is_username" });
  }
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
  limiter: RateLimiter,
  requester: Requester,
  user: AccountUser,
  password: string,
): Promise<void> {
  await verifyPassword(db, limiter, requester, user.username, password);
  await db.deleteFrom("users").where("id", "=", user.id).execute();
}
