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

/** Every table the app uses; a query against anything else is a type error. */
export interface Database {
  contact_messages: ContactMessagesTable;
}

export type DB = Kysely<Database>;
export type ContactMessage = Selectable<ContactMessagesTable>;
export type NewContactMessage = Insertable<ContactMessagesTable>;
