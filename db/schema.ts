import type { Generated, Insertable, Kysely, Selectable } from "kysely";

/** Contact form messages, kept for the operator (the original only simulated sending). */
export interface ContactMessagesTable {
  id: Generated<number>;
  name: string;
  email: string;
  message: string;
  /** The interface language the visitor wrote from. */
  locale: string;
  /** Unix milliseconds. */
  created_at: number;
}

export interface UsersTable {
  id: string;
  /** As the visitor typed it. */
  username: string;
  /** Lower-cased, for uniqueness without regard to case. */
  username_key: string;
  /** Argon2id, from Bun.password. */
  password_hash: string;
  created_at: number;
}

export interface SessionsTable {
  /** The public half of the session token. */
  id: string;
  /** SHA-256 of the token's secret half; the secret itself is never stored. */
  secret_hash: Uint8Array;
  user_id: string;
  created_at: number;
  last_verified_at: number;
  expires_at: number;
}

/** Finished translations, so the same text is never sent to a provider twice. */
export interface TranslationsTable {
  /** SHA-256 (hex) of the exact source text; with target, the primary key. */
  source_hash: string;
  /** A TargetLanguage from src/common/translation.ts. */
  target: string;
  translated_text: string;
  /** The translator that produced it, e.g. "opencc" or "deepl". */
  provider: string;
  created_at: number;
}

/** Every table the app uses; a query against anything else is a type error. */
export interface Database {
  contact_messages: ContactMessagesTable;
  users: UsersTable;
  sessions: SessionsTable;
  translations: TranslationsTable;
}

export type DB = Kysely<Database>;
export type ContactMessage = Selectable<ContactMessagesTable>;
export type NewContactMessage = Insertable<ContactMessagesTable>;
