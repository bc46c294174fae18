import type { DB } from "../../../db/schema.ts";
import type { AccountUser } from "../../common/auth.ts";
import { isLocale, type Locale } from "../../common/locales.ts";
import type { Session } from "../../core/auth/sessions.ts";
import type { RecentlyShown } from "../../core/bottles/pick.ts";
import type { ChatBans } from "../../core/chat/bans.ts";
import type { ChatBroker } from "../../core/chat/broker.ts";
import type { Country } from "../../core/geo/country-lookup.ts";
import type { RateLimiter } from "../../core/limits/rate-limiter.ts";
import type { Moderator } from "../../core/moderation/moderator.ts";
import type { Translator } from "../../core/translation/translator.ts";

/** What every procedure knows about the request; identities come from cookies, never input. */
export interface Context {
  db: DB;
  limiter: RateLimiter;
  moderator: Moderator;
  translator: Translator;
  recentlyShown: RecentlyShown;
  chat: { broker: ChatBroker; bans: ChatBans; banHours: number };
  visitorId: string;
  ipKey: string;
  /** The visitor's country, from the offline database (looked up only when asked). */
  country(): Country;
  locale: Locale;
  now: () => number;
  /** The signed-in account and its session, when the session cookie is valid. */
  user: AccountUser | null;
  session: Session | null;
  /** Sets (or with null, clears) the session cookie on this response. */
  setSessionCookie(token: string | null, expiresAt?: number): void;
}

/** The web names its interface language in this header, so stored rows can record it. */
export const LOCALE_HEADER = "x-tidings-locale";

export function localeFromHeader(value: string | null): Locale {
  return isLocale(value) ? value : "en";
}
