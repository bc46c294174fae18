import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** Every setting: its variable, its flag (flags win over the environment), default and meaning. */
export const settings = [
  {
    env: "PORT",
    flag: "--port",
    default: "3000",
    about: "Port to listen on (0 picks a free one).",
  },
  { env: "HOST", flag: "--host", default: "0.0.0.0", about: "Address to listen on." },
  {
    env: "DATA_DIR",
    flag: "--data-dir",
    default: "./data",
    about: "Folder for tidings.db and the generated secret.",
  },
  {
    env: "PUBLIC_ORIGIN",
    flag: "--public-origin",
    default: "from each request",
    about: "The site's own origin, e.g. https://tidings.example.org.",
  },
  {
    env: "TRUST_PROXY",
    flag: "--trust-proxy",
    default: "false",
    about: "Believe X-Forwarded-For (only behind one reverse proxy that sets it).",
  },
  { env: "SITE_URL", default: "PUBLIC_ORIGIN", about: "The website named in the footer." },
  {
    env: "CONTACT_EMAIL",
    default: "none",
    about: "The e-mail address named in the footer and on the contact page.",
  },
  {
    env: "SECRET",
    default: "generated",
    about: "At least 32 characters; keys IP hashes. Generated into DATA_DIR/secret when unset.",
  },
  { env: "GEOIP_DB", default: "bundled", about: "Another IP-to-country MMDB file to use." },
  {
    env: "MODERATION_API_URL",
    default: "none",
    about: "An OpenAI-compatible moderation endpoint, asked after the local word lists.",
  },
  { env: "MODERATION_API_KEY", default: "none", about: "Its bearer token." },
  {
    env: "LIBRETRANSLATE_URL",
    default: "none",
    about: "A LibreTranslate server for translations beyond Chinese scripts.",
  },
  { env: "LIBRETRANSLATE_API_KEY", default: "none", about: "Its API key." },
  { env: "DEEPL_API_KEY", default: "none", about: "A DeepL API key (free keys end in :fx)." },
  { env: "CHAT_BAN_HOURS", default: "24", about: "How long a chat ban lasts." },
  {
    env: "CHAT_ALLOWED_ORIGINS",
    default: "none",
    about: "Other origins allowed to open the chat socket, comma-separated.",
  },
  { env: "LOG_FORMAT", default: "text", about: "Request log lines: text, json, or off." },
  {
    env: "ANALYTICS_SCRIPT_URL",
    default: "none",
    about: "A self-hosted Plausible or Umami script to load.",
  },
  {
    env: "ANALYTICS_SITE_ID",
    default: "none",
    about: "Umami's website id (sent as data-website-id).",
  },
] as const;

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
  LOG_FORMAT: z.enum(["text", "json", "off"]).default("text"),
  ANALYTICS_SCRIPT_URL: z.url().optional(),
  ANALYTICS_SITE_ID: z.string().min(1).max(100).optional(),
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
  logFormat: "text" | "json" | "off";
  analytics: { scriptUrl: string; siteId: string | undefined } | undefined;
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
    logFormat: e.LOG_FORMAT,
    analytics: e.ANALYTICS_SCRIPT_URL
      ? { scriptUrl: e.ANALYTICS_SCRIPT_URL, siteId: e.ANALYTICS_SITE_ID }
      : undefined,
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
