import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { DB } from "../../../db/schema.ts";
import type { AccountUser } from "../../common/auth.ts";

/** The design of Lucia's single-file auth_session.ts: sliding 30-day sessions. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** A session's expiry moves forward at most once an hour, so most requests write nothing. */
export const SESSION_REFRESH_AFTER_MS = 60 * 60 * 1000;

export interface Session {
  id: string;
  userId: string;
  expiresAt: number;
}

export interface ValidSession {
  session: Session;
  user: AccountUser;
  /** The expiry moved forward: the cookie should be sent again. */
  refreshed: boolean;
  /** The account runs the moderation queue (`tidings operator add`). */
  isOperator: boolean;
}

function sha256(data: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/**
 * Starts a session. The token is "<id>.<secret>": the id finds the row, and only a hash of the
 * secret is stored, so a leaked database does not hand out sessions.
 */
export async function createSession(
  db: DB,
  userId: string,
  now: number,
): Promise<{ token: string; session: Session }> {
  const id = randomBytes(16).toString("base64url");
  const secret = randomBytes(32).toString("base64url");
  const session = { id, userId, expiresAt: now + SESSION_LIFETIME_MS };
  await db
    .insertInto("sessions")
    .values({
      id,
      secret_hash: sha256(secret),
      user_id: userId,
      created_at: now,
      last_verified_at: now,
      expires_at: session.expiresAt,
    })
    .execute();
  return { token: `${id}.${secret}`, session };
}

/** The session a token names, if the token is whole, its secret right and it has not expired. */
export async function validateSessionToken(
  db: DB,
  token: string,
  now: number,
): Promise<ValidSession | null> {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.length > 200) return null;
  const id = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  const row = await db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select([
      "sessions.id",
      "sessions.secret_hash",
      "sessions.user_id",
      "sessions.last_verified_at",
      "sessions.expires_at",
      "users.username",
      "users.is_operator",
    ])
    .where("sessions.id", "=", id)
    .executeTakeFirst();
  if (!row) return null;
  const stored = new Uint8Array(row.secret_hash);
  const given = sha256(secret);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
  if (row.expires_at <= now) {
    await db.deleteFrom("sessions").where("id", "=", id).execute();
    return null;
  }
  let expiresAt = row.expires_at;
  const refreshed = now - row.last_verified_at >= SESSION_REFRESH_AFTER_MS;
  if (refreshed) {
    expiresAt = now + SESSION_LIFETIME_MS;
    await db
      .updateTable("sessions")
      .set({ last_verified_at: now, expires_at: expiresAt })
      .where("id", "=", id)
      .execute();
  }
  return {
    session: { id: row.id, userId: row.user_id, expiresAt },
    user: { id: row.user_id, username: row.username },
    refreshed,
    isOperator: row.is_operator === 1,
  };
}

export async function deleteSession(db: DB, sessionId: string): Promise<void> {
  await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
}

export async function deleteUserSessions(db: DB, userId: string, except?: string): Promise<void> {
  let query = db.deleteFrom("sessions").where("user_id", "=", userId);
  if (except) query = query.where("id", "!=", except);
  await query.execute();
}

/** Removes sessions that have expired; run now and then. */
export async function purgeExpiredSessions(db: DB, now: number): Promise<number> {
  const result = await db.deleteFrom("sessions").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
