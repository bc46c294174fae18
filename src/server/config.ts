import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  /** The site's own origin (e.g. https://tidings.example.org); derived from requests if unset. */
  PUBLIC_ORIGIN: z.url().optional(),
  /** The product website named in the footer. */
  SITE_URL: z.url().optional(),
  /** The address named in the footer and on the contact page. */
  CONTACT_EMAIL: z.email().optional(),
  /** Believe X-Forwarded-For: only behind a reverse proxy that sets it. */
  TRUST_PROXY: z.stringbool().default(false),
  /** Another IP-to-country MMDB instead of the bundled one. */
  GEOIP_DB: z.string().min(1).optional(),
  /** An OpenAI-compatible moderation endpoint, used after the local word lists. */
  MODERATION_API_URL: z.url().optional(),
  MODERATION_API_KEY: z.string().min(1).optional(),
  LIBRETRANSLATE_URL: z.url().optional(),
  LIBRETRANSLATE_API_KEY: z.string().min(1).optional(),
  DEEPL_API_KEY: z.string().min(1).optional(),
  /** How long a chat ban lasts. */
  CHAT_BAN_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  /** Other origins allowed to open the chat WebSocket (comma-separated), besides the site's own. */
  CHAT_ALLOWED_ORIGINS: z.string().optional(),
  /** Keys IP hashes and sessions; generated into DATA_DIR on first start when unset. */
  SECRET: z.string().min(32).optional(),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseFile: string;
  publicOrigin: string | undefined;
  siteUrl: string | undefined;
  contactEmail: string | undefined;
  trustProxy: boolean;
  chatBanHours: number;
  chatAllowedOrigins: string[];
  geoipDb: string | undefined;
  moderation: { apiUrl?: string; apiKey?: string };
  translation: { libreTranslateUrl?: string; libreTranslateKey?: string; deeplApiKey?: string };
  secret: string;
  version: string;
}

export class ConfigError extends Error {}

/** Reads every setting from the environment, validated; a bad value stops the start. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== "")),
  );
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid settings:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseFile: join(dataDir, "tidings.db"),
    publicOrigin: e.PUBLIC_ORIGIN ? new URL(e.PUBLIC_ORIGIN).origin : undefined,
    siteUrl: e.SITE_URL ?? e.PUBLIC_ORIGIN,
    contactEmail: e.CONTACT_EMAIL,
    trustProxy: e.TRUST_PROXY,
    chatBanHours: e.CHAT_BAN_HOURS,
    chatAllowedOrigins: (e.CHAT_ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter(Boolean)
      .map((o) => new URL(o).origin),
    geoipDb: e.GEOIP_DB,
    moderation: { apiUrl: e.MODERATION_API_URL, apiKey: e.MODERATION_API_KEY },
    translation: {
      libreTranslateUrl: e.LIBRETRANSLATE_URL,
      libreTranslateKey: e.LIBRETRANSLATE_API_KEY,
      deeplApiKey: e.DEEPL_API_KEY,
    },
    secret: e.SECRET ?? readOrCreateSecret(dataDir),
    version: VERSION,
  };
}

/** A secret made once and kept beside the database, so hashes stay stable across restarts. */
function readOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, "secret");
  if (existsSync(file)) {
    const secret = readFileSync(file, "utf8").trim();
    if (secret.length >= 32) return secret;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
