import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { keepPrivate, privateFolder } from "../../db/connection.ts";
import { type DatabaseTarget, parseDatabaseUrl } from "../../db/url.ts";
import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** What a setting's schema carries besides its validation: `--help` and the README use it. */
export interface SettingMeta {
  /** The command-line flag, when it has one (flags win over the environment). */
  flag?: `--${string}`;
  /** A flag that takes no value: present means true. */
  switch?: true;
  /** The default as `--help` and the README's table show it. */
  shown: string;
  /** One line for `--help`. */
  help: string;
}

/** Each setting's metadata, keyed by its schema. */
export const settingMeta = z.registry<SettingMeta>();

/** A length of time as the operator writes it: `90s`, `30m`, `6h`, `1d` (or `500ms`). */
export function parseDuration(value: string): number | null {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(value.trim());
  if (!match) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "ms"];
  return Number(match[1]) * unit;
}

const duration = (min: number) =>
  z.string().transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === null) {
      ctx.addIssue({ code: "custom", message: "expected a length of time such as 30s, 6h or 1d" });
      return z.NEVER;
    }
    if (ms < min) {
      ctx.addIssue({ code: "custom", message: `at least ${min / 1000} seconds` });
      return z.NEVER;
    }
    return ms;
  });

function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  settingMeta.add(schema, meta);
  return schema;
}

/**
 * Every setting, declared once: the environment variable (the key), its validation and default,
 * and its flag and help (metadata). `--help`, the flags the command line accepts and `Config`
 * all come from here; a test keeps the README's table in step with it.
 */
export const settingsSchema = z.object({
  PORT: setting(z.coerce.number().int().min(0).max(65535).default(3000), {
    flag: "--port",
    shown: "3000",
    help: "Port to listen on (0 picks a free one).",
  }),
  HOST: setting(z.string().min(1).default("0.0.0.0"), {
    flag: "--host",
    shown: "0.0.0.0",
    help: "Address to listen on.",
  }),
  DATA_DIR: setting(z.string().min(1).default("./data"), {
    flag: "--data-dir",
    shown: "./data",
    help: "Folder for tidings.db (unless DB_URL says otherwise) and the generated secret.",
  }),
  DB_URL: setting(
    z
      .string()
      .transform((value, ctx): DatabaseTarget => {
        try {
          return parseDatabaseUrl(value);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
    {
      flag: "--db-url",
      shown: "sqlite:./data/tidings.db",
      help: "The database: sqlite:<file> (DATA_DIR/tidings.db when unset) or postgres://…",
    },
  ),
  REDIS_URL: setting(
    z
      .string()
      .transform((value, ctx) => {
        const urls = value.split(",").map((url) => url.trim());
        for (const url of urls) {
          if (!z.url({ protocol: /^rediss?$/ }).safeParse(url).success) {
            ctx.addIssue({ code: "custom", message: `not a redis:// or rediss:// URL: ${url}` });
          }
        }
        return urls;
      })
      .optional(),
    {
      flag: "--redis-url",
      shown: "none",
      help: "redis://… shared by several instances (several, comma-separated: a Redis Cluster); required with a postgres:// DB_URL.",
    },
  ),
  REDIS_CLUSTER: setting(z.stringbool().default(false), {
    shown: "false",
    help: "REDIS_URL names a node of a Redis Cluster (implied when it names several).",
  }),
  REDIS_PREFIX: setting(
    z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/)
      .default("tidings:"),
    {
      shown: "tidings:",
      help: "Prefix of the site's keys and channels in Redis, so several sites can share one.",
    },
  ),
  PUBLIC_ORIGIN: setting(z.url().optional(), {
    flag: "--public-origin",
    shown: "from each request",
    help: "The site's own origin, e.g. https://tidings.example.org.",
  }),
  TRUST_PROXY: setting(z.stringbool().default(false), {
    flag: "--trust-proxy",
    switch: true,
    shown: "false",
    help: "Believe X-Forwarded-For (only behind one reverse proxy that sets it).",
  }),
  SITE_URL: setting(z.url().optional(), {
    shown: "PUBLIC_ORIGIN",
    help: "The website named in the footer.",
  }),
  CONTACT_EMAIL: setting(z.email().optional(), {
    shown: "none",
    help: "The e-mail address named in the footer and on the contact page.",
  }),
  SECRET: setting(z.string().min(32).optional(), {
    shown: "generated",
    help: "At least 32 characters; keys IP hashes and signs visitor cookies. Generated into DATA_DIR/secret when unset.",
  }),
  GEOIP_DB: setting(z.string().min(1).optional(), {
    shown: "bundled",
    help: "Another IP-to-country MMDB file to use.",
  }),
  MODERATION_API_URL: setting(z.url().optional(), {
    shown: "none",
    help: "An OpenAI-compatible moderation endpoint, asked after the local word lists.",
  }),
  MODERATION_API_KEY: setting(z.string().min(1).optional(), {
    shown: "none",
    help: "Its bearer token.",
  }),
  LIBRETRANSLATE_URL: setting(z.url().optional(), {
    shown: "none",
    help: "A LibreTranslate server for translations beyond Chinese scripts.",
  }),
  LIBRETRANSLATE_API_KEY: setting(z.string().min(1).optional(), {
    shown: "none",
    help: "Its API key.",
  }),
  DEEPL_API_KEY: setting(z.string().min(1).optional(), {
    shown: "none",
    help: "A DeepL API key (free keys end in :fx).",
  }),
  CHAT_ALLOWED_ORIGINS: setting(
    z
      .string()
      .transform((value, ctx) => {
        const origins: string[] = [];
        for (const item of value.split(",").map((o) => o.trim())) {
          if (!item) continue;
          try {
            origins.push(new URL(item).origin);
          } catch {
            ctx.addIssue({ code: "custom", message: `not an origin: ${item}` });
          }
        }
        return origins;
      })
      .optional(),
    { shown: "none", help: "Other origins allowed to open the chat socket, comma-separated." },
  ),
  CHAT_ENABLED: setting(z.stringbool().default(true), {
    shown: "true",
    help: "Random chat on or resting; the moderation page can switch it too.",
  }),
  BOTTLES_ENABLED: setting(z.stringbool().default(true), {
    shown: "true",
    help: "Writing and finding bottles on or resting; the moderation page can switch it too.",
  }),
  PUBLIC_BOTTLES_ENABLED: setting(z.stringbool().default(true), {
    shown: "true",
    help: "The public collection on or resting; the moderation page can switch it too.",
  }),
  POW: setting(z.stringbool().default(true), {
    shown: "true",
    help: "Proof of work (ALTCHA, solved in the browser) before chat starts, throws, sign-ups, contact and repeated sign-ins.",
  }),
  POW_COST: setting(z.coerce.number().int().min(1).max(1_000_000).default(1000), {
    shown: "1000",
    help: "Mean PBKDF2 derivations (250 rounds each) a visitor's browser makes per challenge; raised 8x for those limits refuse.",
  }),
  LOG_FORMAT: setting(z.enum(["text", "json", "off"]).default("text"), {
    shown: "text",
    help: "Log lines: text (for people), json (one object per line, for a collector), or off.",
  }),
  METRICS_PORT: setting(z.coerce.number().int().min(0).max(65535).optional(), {
    flag: "--metrics-port",
    shown: "none",
    help: "Serve Prometheus metrics at /metrics on this port of METRICS_HOST only.",
  }),
  METRICS_HOST: setting(z.string().min(1).default("127.0.0.1"), {
    shown: "127.0.0.1",
    help: "Address the metrics port listens on.",
  }),
  METRICS_TOKEN: setting(z.string().min(16).max(256).optional(), {
    shown: "none",
    help: "At least 16 characters: /metrics also answers on the site's port to this bearer token.",
  }),
  SHUTDOWN_DRAIN: setting(duration(0).default(5000), {
    shown: "5s",
    help: "After SIGTERM, /healthz/ready answers 503 and the site serves this long before stopping.",
  }),
  BACKUP_EVERY: setting(duration(60_000).optional(), {
    flag: "--backup-every",
    shown: "none",
    help: "Snapshot the SQLite database this often (e.g. 6h) into BACKUP_DIR.",
  }),
  BACKUP_KEEP: setting(z.coerce.number().int().min(1).max(10_000).default(14), {
    shown: "14",
    help: "How many scheduled snapshots to keep (the oldest go first).",
  }),
  BACKUP_DIR: setting(z.string().min(1).optional(), {
    shown: "DATA_DIR/backups",
    help: "Folder for scheduled snapshots.",
  }),
  ANALYTICS_SCRIPT_URL: setting(z.url().optional(), {
    shown: "none",
    help: "A self-hosted Plausible or Umami script to load.",
  }),
  ANALYTICS_SITE_ID: setting(z.string().min(1).max(100).optional(), {
    shown: "none",
    help: "Umami's website id (sent as data-website-id).",
  }),
});

export type SettingName = keyof typeof settingsSchema.shape;

/** Every setting with its metadata, in declaration order (for `--help` and the flags). */
export const settings: Array<SettingMeta & { env: SettingName }> = (
  Object.keys(settingsSchema.shape) as SettingName[]
).map((env) => {
  const meta = settingMeta.get(settingsSchema.shape[env]);
  if (!meta) throw new Error(`setting ${env} has no metadata`);
  return { env, ...meta };
});

/** The settings as the app reads them, derived from the validated environment. */
const configSchema = settingsSchema.transform((e) => {
  const dataDir = resolve(e.DATA_DIR);
  const database: DatabaseTarget = e.DB_URL ?? {
    engine: "sqlite",
    file: join(dataDir, "tidings.db"),
  };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    /** The chat, limits and bans several instances share; in memory when unset. */
    redis: e.REDIS_URL
      ? {
          url: e.REDIS_URL[0] as string,
          /** Every node named: the seeds of a Redis Cluster. */
          urls: e.REDIS_URL,
          cluster: e.REDIS_CLUSTER || e.REDIS_URL.length > 1,
          prefix: e.REDIS_PREFIX,
        }
      : undefined,
    publicOrigin: e.PUBLIC_ORIGIN ? new URL(e.PUBLIC_ORIGIN).origin : undefined,
    siteUrl: e.SITE_URL ?? e.PUBLIC_ORIGIN,
    contactEmail: e.CONTACT_EMAIL,
    trustProxy: e.TRUST_PROXY,
    chatAllowedOrigins: e.CHAT_ALLOWED_ORIGINS ?? [],
    features: {
      chat: e.CHAT_ENABLED,
      bottles: e.BOTTLES_ENABLED,
      publicBottles: e.PUBLIC_BOTTLES_ENABLED,
    },
    /** Proof of work before the actions scripts abuse (core/pow). */
    pow: { enabled: e.POW, cost: e.POW_COST },
    geoipDb: e.GEOIP_DB,
    moderation: { apiUrl: e.MODERATION_API_URL, apiKey: e.MODERATION_API_KEY },
    translation: {
      libreTranslateUrl: e.LIBRETRANSLATE_URL,
      libreTranslateKey: e.LIBRETRANSLATE_API_KEY,
      deeplApiKey: e.DEEPL_API_KEY,
    },
    logFormat: e.LOG_FORMAT,
    metrics: {
      port: e.METRICS_PORT,
      host: e.METRICS_HOST,
      token: e.METRICS_TOKEN,
    },
    /** How long a stopping instance keeps serving while its load balancer lets it go. */
    shutdownDrainMs: e.SHUTDOWN_DRAIN,
    backups: {
      everyMs: e.BACKUP_EVERY,
      keep: e.BACKUP_KEEP,
      dir: resolve(e.BACKUP_DIR ?? join(dataDir, "backups")),
    },
    analytics: e.ANALYTICS_SCRIPT_URL
      ? { scriptUrl: e.ANALYTICS_SCRIPT_URL, siteId: e.ANALYTICS_SITE_ID }
      : undefined,
    secret: e.SECRET ?? readOrCreateSecret(dataDir),
    version: VERSION,
  };
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {}

/** Reads every setting from the environment, validated; a bad value stops the start. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = new Set<string>(Object.keys(settingsSchema.shape));
  const given = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => known.has(k) && v !== undefined && v !== ""),
  );
  const parsed = configSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid settings:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/**
 * Refuses to serve a PostgreSQL site without Redis: a shared database means several
 * instances, and without Redis each would keep a chat pool, limits and bans of its own.
 */
export function assertServable(config: Config): void {
  const { metrics } = config;
  if (metrics.port !== undefined && !metrics.token && !isLoopback(metrics.host)) {
    throw new ConfigError(
      `METRICS_HOST=${metrics.host} serves the metrics port beyond this machine, to anyone who ` +
        "asks: set METRICS_TOKEN (at least 16 characters) so that it asks for it, or leave " +
        "METRICS_HOST at 127.0.0.1.",
    );
  }
  if (config.database.engine === "postgres" && config.backups.everyMs !== undefined) {
    throw new ConfigError(
      "BACKUP_EVERY snapshots a SQLite database; this site's is PostgreSQL: back it up with " +
        "pg_dump or WAL archiving (see the README), and unset BACKUP_EVERY.",
    );
  }
  if (config.database.engine === "postgres" && !config.redis) {
    throw new ConfigError(
      "DB_URL names a PostgreSQL database, which is for running several instances; set REDIS_URL " +
        "(--redis-url) too, so that they share one chat pool, rate limits and bans.",
    );
  }
}

/** An address only this machine reaches: 127.0.0.0/8, ::1, localhost. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** A secret made once and kept beside the database, so hashes stay stable across restarts. */
function readOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, "secret");
  if (existsSync(file)) {
    const secret = readFileSync(file, "utf8").trim();
    keepPrivate(file);
    if (secret.length >= 32) return secret;
  }
  privateFolder(dataDir);
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
