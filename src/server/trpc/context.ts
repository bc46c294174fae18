import type { DB } from "../../../db/schema.ts";
import type { AccountUser } from "../../common/auth.ts";
import { isLocale, type Locale } from "../../common/locales.ts";
import type { FeatureSwitches } from "../../core/admin/features.ts";
import type { DeviceCookies } from "../../core/auth/devices.ts";
import type { Revocations } from "../../core/auth/rights.ts";
import type { Session } from "../../core/auth/sessions.ts";
import type { FindCounter } from "../../core/bottles/finds.ts";
import type { RecentlyShown } from "../../core/bottles/pick.ts";
import type { ShownBottles } from "../../core/bottles/shown.ts";
import type { ChatBans, Sightings } from "../../core/chat/bans.ts";
import type { ChatBroker } from "../../core/chat/broker.ts";
import type { ChatFloodLimits } from "../../core/chat/flood.ts";
import type { RateLimiter } from "../../core/limits/rate-limiter.ts";
import type { Moderator } from "../../core/moderation/moderator.ts";
import type { RepeatMemory } from "../../core/moderation/repeats.ts";
import type { ProofOfWork } from "../../core/pow/proof-of-work.ts";
import type { Requester } from "../../core/requester.ts";
import type { ChatTranslations } from "../../core/translation/memory-cache.ts";
import type { Translator } from "../../core/translation/translator.ts";
import type { SiteMetrics } from "../metrics.ts";

/** What every procedure knows about the request; identities come from cookies, never input. */
export interface Context {
  db: DB;
  limiter: RateLimiter;
  moderator: Moderator;
  translator: Translator;
  chatTranslations: ChatTranslations;
  recentlyShown: RecentlyShown;
  shownBottles: ShownBottles;
  finds: FindCounter;
  devices: DeviceCookies;
  chat: { broker: ChatBroker; bans: ChatBans; flood: ChatFloodLimits; sightings: Sightings };
  repeats: RepeatMemory;
  features: FeatureSwitches;
  /** Proof of work, checked by the middleware for procedures whose meta names an action. */
  pow: ProofOfWork;
  metrics: SiteMetrics;
  /** What lives as long as the connection: one request, or one WebSocket. */
  connection: { chatStream?: AbortController };
  /** Who is asking: built once for the request or the WebSocket, its account as of this call. */
  requester: Requester;
  locale: Locale;
  now: () => number;
  /** The signed-in account and its session, when the session cookie is valid (as of this call). */
  user: AccountUser | null;
  /** The signed-in account runs the moderation queue (read from the database, as of this call). */
  isOperator: boolean;
  session: Session | null;
  /**
   * On a WebSocket that opened signed in: the account as it stands for this call, which every
   * call reads (see the middleware in init.ts) in place of what the upgrade read.
   */
  rightsNow?: () => AccountNow | Promise<AccountNow>;
  /** Ends what open sockets hold of an account's rights, here and on every other instance. */
  revocations: Revocations;
  /** Sets (or with null, clears) the session cookie on this response. */
  setSessionCookie(token: string | null, expiresAt?: number): void;
  /** The browser's device cookie: proof it signed in to an account before (core/auth/devices). */
  deviceToken: string | undefined;
  setDeviceCookie(token: string): void;
}

/** What a call over a socket learns of its account when it runs. */
export type AccountNow = Pick<Context, "user" | "session" | "isOperator" | "requester">;

/** The web names its interface language in this header, so stored rows can record it. */
export const LOCALE_HEADER = "x-tidings-locale";

export function localeFromHeader(value: string | null): Locale {
  return isLocale(value) ? value : "en";
}
