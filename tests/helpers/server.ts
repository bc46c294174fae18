import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { RawBuilder } from "kysely";
import type { AppErrorData } from "../../src/common/errors.ts";
import { type AppOptions, type RunningApp, startApp } from "../../src/server/app.ts";
import { loadConfig } from "../../src/server/config.ts";
import type { AppRouter } from "../../src/server/trpc/routers/index.ts";
import { signedVisitorId, visitorKey } from "../../src/server/visitor-id.ts";
import { createPostgresDatabase, TEST_DB_URL, TEST_REDIS_URL } from "./database.ts";

/** Every test server's SECRET unless its test gives another: test clients sign visitor ids with it. */
export const TEST_SECRET = "the-test-servers-own-secret-0123456789";

/**
 * A visitor cookie (`name=value`) for an id of the test's choosing, signed as the server with
 * that SECRET issues it, as a browser that has visited before sends it back.
 */
export function signedVisitorCookie(
  id: string,
  options: { secret?: string; https?: boolean } = {},
): string {
  const name = options.https ? "__Host-visitor" : "visitor";
  return `${name}=${signedVisitorId(visitorKey(options.secret ?? TEST_SECRET), id)}`;
}

export interface TestServer {
  app: RunningApp;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A real server on port 0 with a fresh temporary folder and a database of its own: a SQLite file
 * in the folder, or, when TEST_DB_URL names a PostgreSQL server (`CLUSTER=1 ./scripts/test`), a
 * new database there (with TEST_REDIS_URL), dropped at close.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "tidings-test-"));
  const postgres = TEST_DB_URL ? await createPostgresDatabase(TEST_DB_URL) : undefined;
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_FORMAT: "off",
    SECRET: TEST_SECRET,
    // Off unless a test turns it on (tests/integration/pow.test.ts and the tests beside it):
    // the other tests call the API as a script would, and their limits are what they test.
    POW: "false",
    ...(postgres
      ? {
          DB_URL: postgres.url,
          REDIS_URL: TEST_REDIS_URL,
          // Its own keys in the shared Redis: its own chat pool, limits and bans.
          REDIS_PREFIX: `test-${randomBytes(6).toString("hex")}:`,
        }
      : {}),
    ...env,
  });
  let app: RunningApp;
  try {
    app = await startApp(config, options);
  } catch (error) {
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    app,
    url: app.url.toString().replace(/\/$/, ""),
    dataDir,
    async close() {
      await app.stop();
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Cookies a client has been given, sent back as a browser would. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  /** The raw Set-Cookie lines of the last response. */
  lastSetCookies: string[] = [];

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  take(response: Response): void {
    this.lastSetCookies = response.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => a.trim().toLowerCase() === "max-age=0");
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/**
 * A tRPC client as the web uses it: same-origin by default (the server refuses cross-site
 * mutations), with its own cookie jar.
 */
export function trpcClient(
  url: string,
  headers: Record<string, string> = {},
  jar: CookieJar = new CookieJar(),
) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url}/trpc`,
        headers: () => {
          const cookie = jar.header();
          return { Origin: url, ...(cookie ? { Cookie: cookie } : {}), ...headers };
        },
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          jar.take(response);
          return response;
        },
      }),
    ],
  });
}

/**
 * A tRPC client that has answered the bottles' 13-or-older question, as the create page asks
 * before the first throw (the server requires the answer).
 */
export async function bottleWriter(
  url: string,
  headers: Record<string, string> = {},
  jar: CookieJar = new CookieJar(),
) {
  const api = trpcClient(url, headers, jar);
  await api.bottles.confirmAge.mutate({ atLeast13: true });
  return api;
}

/** How a call failed: its HTTP status and the error data the server added. */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ status: number; data: AppErrorData }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) {
      const data = error.data as AppErrorData & { httpStatus: number };
      return { status: data.httpStatus, data };
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Runs SQL (Kysely's `sql` tag) on a test server's own database, either engine; answers its rows. */
export async function rows<T>(server: TestServer, query: RawBuilder<T>): Promise<T[]> {
  return (await query.execute(server.app.services.db)).rows;
}

/** What the create page sends for a bottle: visible at once, private, a week to live. */
export function bottleInput(message: string, extra: Record<string, unknown> = {}) {
  return {
    message,
    driftHours: 0,
    isPublic: false,
    expiryDays: 7,
    timeZone: "UTC",
    locale: "en" as const,
    ...extra,
  };
}
