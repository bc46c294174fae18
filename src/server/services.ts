import type { DB } from "../../db/schema.ts";
import type { FeatureSwitches } from "../core/admin/features.ts";
import type { DeviceCookies } from "../core/auth/devices.ts";
import type { Revocations } from "../core/auth/rights.ts";
import type { FindCounter } from "../core/bottles/finds.ts";
import type { RecentlyShown } from "../core/bottles/pick.ts";
import type { ShownBottles } from "../core/bottles/shown.ts";
import type { ChatBans, Sightings } from "../core/chat/bans.ts";
import type { ChatBroker } from "../core/chat/broker.ts";
import type { ChatFloodLimits } from "../core/chat/flood.ts";
import type { CountryLookup } from "../core/geo/country-lookup.ts";
import type { RateLimiter } from "../core/limits/rate-limiter.ts";
import type { Moderator } from "../core/moderation/moderator.ts";
import type { RepeatMemory } from "../core/moderation/repeats.ts";
import type { ProofOfWork } from "../core/pow/proof-of-work.ts";
import type { ChatTranslations } from "../core/translation/memory-cache.ts";
import type { Translator } from "../core/translation/translator.ts";
import type { WebAssets } from "./assets.ts";
import type { Config } from "./config.ts";
import type { Health } from "./health.ts";
import type { Logger } from "./log.ts";
import type { SiteMetrics } from "./metrics.ts";

/**
 * The chat's shared parts: the broker, the bans, this process's flood limits (messages, sockets
 * opened) and sightings.
 */
export interface ChatServices {
  broker: ChatBroker;
  bans: ChatBans;
  flood: ChatFloodLimits;
  connections: ChatFloodLimits;
  sightings: Sightings;
}

/** Everything a request may need, built once at start. */
export interface Services {
  config: Config;
  db: DB;
  limiter: RateLimiter;
  assets: WebAssets;
  countries: CountryLookup;
  moderator: Moderator;
  translator: Translator;
  chatTranslations: ChatTranslations;
  recentlyShown: RecentlyShown;
  /** Signs and checks the passes discover hands out with a bottle (to translate it later). */
  shownBottles: ShownBottles;
  /** Finds noted by discover, written a moment later in one statement. */
  finds: FindCounter;
  devices: DeviceCookies;
  chat: ChatServices;
  /** The texts each sender sent lately, to refuse the same one sent too often (chat and bottles). */
  repeats: RepeatMemory;
  features: FeatureSwitches;
  /** Challenges issued and solutions checked before the actions scripts abuse. */
  pow: ProofOfWork;
  /** Revocations of an account's rights, which open sockets obey (told to every instance). */
  revocations: Revocations;
  metrics: SiteMetrics;
  log: Logger;
  health: Health;
  now: () => number;
}
