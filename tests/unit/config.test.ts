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

  test("--help lists every setting of the schema with its flag, default and help", () => {
    const help = helpText();
    expect(settings.map((s) => s.env)).toEqual(Object.keys(settingsSchema.shape) as never);
    for (const s of settings) {
      const name = s.flag ? `${s.flag} / ${s.env}` : s.env;
      const line = help.split("\n").find((l) => l.trimStart().startsWith(`${name} `));
      expect(line, s.env).toBeDefined();
      expect(line).toContain(s.help);
      expect(line).toContain(`(default: ${s.shown})`);
    }
  });

  test("the README's configuration table is in step with the schema", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const start = readme.indexOf("| Variable | Flag | Default | Meaning |");
    const table = readme.slice(start, readme.indexOf("\n\n", start));
    const rows = table
      .split("\n")
      .slice(2)
      .filter((line) => line.startsWith("| `"))
      .map((line) =>
        line
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((cell) => cell.replace(/`/g, "").trim()),
      );
    const named = new Map<string, { flag: string; shown: string }>();
    for (const [variables = "", flag = "", shown = ""] of rows) {
      for (const name of variables.split(",").map((v) => v.trim()))
        named.set(name, { flag, shown });
    }
    for (const s of settings) {
      expect({ env: s.env, row: named.get(s.env) }).toEqual({
        env: s.env,
        row: { flag: s.flag ?? "", shown: s.shown },
      });
    }
    expect([...named.keys()].sort()).toEqual(settings.map((s) => s.env).sort());
  });
});
