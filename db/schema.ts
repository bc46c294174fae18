import type { Generated, Kysely } from "kysely";

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
  /** 1 for the accounts the operator made operators (`tidings operator add`). */
  is_operator: Generated<number>;
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

export interface BottlesTable {
  id: Generated<number>;
  message: string;
  drift_hours: number;
  /** English country name, or "Unknown". */
  country: string;
  /** ISO 3166-1 alpha-2, or null when unknown. */
  country_code: string | null;
  /** Keyed hash of the writer's address (src/core/limits/ip-key.ts). */
  ip_key: string;
  visitor_id: string;
  /** The writer's interface language. */
  locale: string;
  is_public: number;
  /**
   * 0 in the ocean; 1 once reports have taken it out of the ocean, or the operator has
   * (HIDDEN_BY_MODERATION); 2 once its writer sank it (SUNK_BY_WRITER, never put back).
   */
  hidden: Generated<number>;
  available_at: number;
  created_at: number;
  /** null: never expires. */
  expires_at: number | null;
  /** The account it was thrown from, if any; null once that account is deleted. */
  user_id: string | null;
}

/** One visitor that discover showed a bottle to (its writer never), with their country only. */
export interface BottleFindsTable {
  bottle_id: number;
  visitor_id: string;
  /** ISO 3166-1 alpha-2, or null when unknown. */
  country_code: string | null;
  found_at: number;
}

export interface BottleLikesTable {
  bottle_id: number;
  user_id: string;
  created_at: number;
}

export interface BottleReportsTable {
  id: Generated<number>;
  bottle_id: number;
  /** null once the reporter has deleted the account. */
  user_id: string | null;
  /** The reporter's visitor id and address hash ("" on reports from before they were kept). */
  reporter_visitor_id: Generated<string>;
  reporter_ip_key: Generated<string>;
  /**
   * 1 for a report that counts toward taking the bottle out: no counted report of the bottle
   * before it shares its account, visitor or address.
   */
  counted: Generated<number>;
  reason: string;
  /** The moderator's verdict on the bottle at report time (1 safe, 0 unsafe). */
  is_safe: number;
  created_at: number;
  /** When the operator acted on it; null while open. */
  handled_at: number | null;
  /** 1 when the operator found nothing wrong. */
  dismissed: Generated<number>;
}

export interface ChatReportsTable {
  id: Generated<number>;
  reported_visitor_id: string;
  reported_ip_key: string;
  reporter_visitor_id: string;
  /** The reporter's address hash: a reporter counts once by visitor and by address. */
  reporter_ip_key: Generated<string>;
  /** 1 for the report that could act: a reporter's first of the visitor that day. */
  acted: Generated<number>;
  message_id: string;
  message_content: string;
  reason: string;
  context: Generated<string>;
  is_safe: number;
  created_at: number;
  /** When the operator acted on it; null while open. */
  handled_at: number | null;
  /** 1 when the operator found nothing wrong. */
  dismissed: Generated<number>;
}

export interface ChatBansTable {
  /** "visitor:<id>" or "ip:<ip key>". */
  key: string;
  until: number;
  created_at: number;
}

/** An address hash a chat visitor was seen with, for a day (bans cover them all). */
export interface VisitorAddressesTable {
  visitor_id: string;
  ip_key: string;
  last_seen_at: number;
}

/** How far a ban key has escalated (core/chat/escalation.ts). */
export interface BanStepsTable {
  key: string;
  step: number;
  last_at: number;
}

export interface ChatBlocksTable {
  blocker_visitor_id: string;
  blocked_visitor_id: string;
  blocked_ip_key: string;
  created_at: number;
  until: number;
}

/** An answer at an age gate ("chat": adult or minor; "bottles": 13 or under-13). */
export interface VisitorAgesTable {
  visitor_id: string;
  gate: string;
  answer: string;
  answered_at: number;
}

export interface ModerationActionsTable {
  id: Generated<number>;
  /** The operator's username, or "command line" for the `tidings` commands. */
  operator: string;
  action: string;
  /**
   * What it acted on: "bottle:<id>", "visitor:<id>", "ip:<hash>", "feature:<name>",
   * "account:<username>".
   */
  subject: string;
  /** The action's facts as JSON, one schema per action (src/core/admin/audit.ts). */
  details: string;
  created_at: number;
}

export interface SiteSettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

/** A solved proof-of-work challenge, recorded once by its id (core/pow) until it expires. */
export interface PowSolutionsTable {
  challenge_id: string;
  expires_at: number;
}

/** Every table the app uses; a query against anything else is a type error. */
export interface Database {
  contact_messages: ContactMessagesTable;
  users: UsersTable;
  sessions: SessionsTable;
  translations: TranslationsTable;
  bottles: BottlesTable;
  bottle_likes: BottleLikesTable;
  bottle_finds: BottleFindsTable;
  bottle_reports: BottleReportsTable;
  chat_reports: ChatReportsTable;
  chat_bans: ChatBansTable;
  visitor_addresses: VisitorAddressesTable;
  ban_steps: BanStepsTable;
  chat_blocks: ChatBlocksTable;
  visitor_ages: VisitorAgesTable;
  moderation_actions: ModerationActionsTable;
  site_settings: SiteSettingsTable;
  pow_solutions: PowSolutionsTable;
}

export type DB = Kysely<Database>;
