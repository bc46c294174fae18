import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { helpText, parseArguments } from "../../src/server/cli.ts";
import {
  assertServable,
  ConfigError,
  loadConfig,
  settings,
  settingsSchema,
} from "../../src/server/config.ts";

const dataDir = mkdtempSync(join(tmpdir(), "tidings-config-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env });

/**
 * The README's configuration table, by variable: its flag and default as written there. A row
 * may name several variables ("`A`, `B`"); they share its flag and default.
 */
function readmeSettings(): Map<string, { flag: string; shown: string }> {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const header = "| Variable | Flag | Default | Meaning |";
  const start = readme.indexOf(header);
  if (start === -1) throw new Error(`the README has no table headed ${header}`);
  const rows = readme
    .slice(start, readme.indexOf("\n\n", start))
    .split("\n")
    .slice(2)
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.replace(/`/g, "").trim()),
    );
  const named = new Map<string, { flag: string; shown: string }>();
  for (const [variables = "", flag = "", shown = ""] of rows) {
    for (const name of variables.split(",").map((v) => v.trim())) named.set(name, { flag, shown });
  }
  // A table that parsed to nothing would make every check below vacuous.
  if (named.size < 20) throw new Error(`the README's settings table has only ${named.size} rows`);
  return named;
}

describe("settings", () => {
  test("defaults: SQLite in DATA_DIR, no Redis, and every earlier default", () => {
    const config = load({});
    expect(config.database).toEqual({ engine: "sqlite", file: join(dataDir, "tidings.db") });
    expect(config.redis).toBeUndefined();
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      dataDir: resolve(dataDir),
      trustProxy: false,
      chatAllowedOrigins: [],
      logFormat: "text",
      analytics: undefined,
    });
    expect(config.secret.length).toBeGreaterThanOrEqual(32);
    // The generated secret is kept and read again.
    expect(load({}).secret).toBe(config.secret);
  });

  test("DB_URL names a SQLite file or a PostgreSQL database", () => {
    expect(load({ DB_URL: "sqlite:./somewhere/else.db" }).database).toEqual({
      engine: "sqlite",
      file: resolve("somewhere/else.db"),
    });
    expect(load({ DB_URL: "sqlite:///srv/tidings/t.db" }).database).toEqual({
      engine: "sqlite",
      file: "/srv/tidings/t.db",
    });
    const url = "postgres://tidings:pw@db.internal:5432/tidings";
    expect(load({ DB_URL: url }).database).toEqual({ engine: "postgres", url });
    expect(load({ DB_URL: "postgresql://db/tidings" }).database.engine).toBe("postgres");
  });

  test("bad URLs stop the start with a message naming the setting", () => {
    for (const [env, message] of [
      [{ DB_URL: "mysql://db/tidings" }, /DB_URL: expected sqlite:<file> or postgres:/],
      [{ DB_URL: "sqlite:" }, /DB_URL: sqlite: needs a file/],
      [{ REDIS_URL: "http://cache:6379" }, /REDIS_URL/],
      [{ REDIS_URL: "not a url" }, /REDIS_URL/],
      [
        { CHAT_ALLOWED_ORIGINS: "https://ok.example, nope" },
        /CHAT_ALLOWED_ORIGINS: not an origin: nope/,
      ],
    ] as const) {
      expect(() => load(env)).toThrow(ConfigError);
      expect(() => load(env)).toThrow(message);
    }
    expect(load({ REDIS_URL: "rediss://cache.internal:6380/0" }).redis).toEqual({
      url: "rediss://cache.internal:6380/0",
      urls: ["rediss://cache.internal:6380/0"],
      cluster: false,
      prefix: "tidings:",
    });
    // Several nodes, or REDIS_CLUSTER, speak to a Redis Cluster.
    expect(load({ REDIS_URL: "redis://a:7000, redis://b:7001" }).redis).toMatchObject({
      urls: ["redis://a:7000", "redis://b:7001"],
      cluster: true,
    });
    expect(load({ REDIS_URL: "redis://a:7000", REDIS_CLUSTER: "1" }).redis?.cluster).toBe(true);
    expect(() => load({ REDIS_URL: "redis://a:7000,http://b" })).toThrow(/REDIS_URL/);
    expect(load({ REDIS_URL: "redis://r", REDIS_PREFIX: "site-b:" }).redis?.prefix).toBe("site-b:");
    expect(() => load({ REDIS_PREFIX: "no spaces" })).toThrow(ConfigError);
  });

  test("a PostgreSQL site without Redis is refused, with why; with Redis it may serve", () => {
    const postgres = load({ DB_URL: "postgres://db/tidings" });
    expect(() => assertServable(postgres)).toThrow(ConfigError);
    expect(() => assertServable(postgres)).toThrow(/REDIS_URL.*share one chat pool/s);
    expect(() =>
      assertServable(load({ DB_URL: "postgres://db/tidings", REDIS_URL: "redis://cache:6379" })),
    ).not.toThrow();
    expect(() => assertServable(load({}))).not.toThrow();
  });

  test("a metrics port open beyond this machine without a token is refused, naming the setting", () => {
    const open = load({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" });
    expect(() => assertServable(open)).toThrow(ConfigError);
    expect(() => assertServable(open)).toThrow(/METRICS_HOST=0\.0\.0\.0 .*METRICS_TOKEN/s);
    for (const host of ["::", "192.0.2.10", "metrics.example.org"]) {
      expect(() => assertServable(load({ METRICS_PORT: "9464", METRICS_HOST: host }))).toThrow(
        /METRICS_TOKEN/,
      );
    }
    const token = "a-scrape-token-for-the-test";
    const allowed: Array<Record<string, string>> = [
      { METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0", METRICS_TOKEN: token },
      { METRICS_PORT: "9464" },
      { METRICS_PORT: "9464", METRICS_HOST: "127.0.0.2" },
      { METRICS_PORT: "9464", METRICS_HOST: "::1" },
      { METRICS_PORT: "9464", METRICS_HOST: "localhost" },
      // Without a metrics port, METRICS_HOST binds nothing.
      { METRICS_HOST: "0.0.0.0" },
    ];
    for (const env of allowed) {
      expect(() => assertServable(load(env))).not.toThrow();
    }
  });

  test("flags come from the schema: --db-url and --redis-url set their variables", () => {
    const invocation = parseArguments([
      "--db-url",
      "postgres://db/tidings",
      "--redis-url=redis://cache:6379",
      "--trust-proxy",
      "--port",
      "8080",
    ]);
    expect(invocation.env).toEqual({
      DB_URL: "postgres://db/tidings",
      REDIS_URL: "redis://cache:6379",
      TRUST_PROXY: "true",
      PORT: "8080",
    });
  });

  test("--help lists every setting of the README's table with its flag and default", () => {
    const help = helpText().split("\n");
    const settingLines = help.slice(
      help.indexOf("Settings (flags win over environment variables):") + 1,
    );
    for (const [env, { flag, shown }] of readmeSettings()) {
      const name = flag ? `${flag} / ${env}` : env;
      const line = settingLines.find((l) => l.trimStart().startsWith(`${name} `));
      expect(line, env).toBeDefined();
      expect(line, env).toContain(`(default: ${shown})`);
      // The help line is more than the name: it says what the setting is for.
      expect(
        line?.replace(name, "").replace(`(default: ${shown})`, "").trim().length,
        env,
      ).toBeGreaterThan(10);
    }
    // …and nothing the README does not document.
    expect(settingLines.filter((l) => l.trim() !== "")).toHaveLength(readmeSettings().size);
  });

  test("every setting the server reads is in the README's table, with its flag and default", () => {
    const documented = readmeSettings();
    for (const s of settings) {
      expect({ env: s.env, row: documented.get(s.env) }).toEqual({
        env: s.env,
        row: { flag: s.flag ?? "", shown: s.shown },
      });
    }
    expect([...documented.keys()].sort()).toEqual(Object.keys(settingsSchema.shape).sort());
  });
});
