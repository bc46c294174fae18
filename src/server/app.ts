import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Server } from "bun";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import type { DB } from "../../db/schema.ts";
import type { AppErrorCode } from "../common/errors.ts";
import {
  detectPrefix,
  type Locale,
  localeOfPrefix,
  type Resolution,
  resolvePath,
} from "../common/locales.ts";
import type { SiteConfig } from "../common/site.ts";
import { purgeExpiredSessions, validateSessionToken } from "../core/auth/sessions.ts";
import { purgeExpiredBottles } from "../core/bottles/bottles.ts";
import { RecentlyShown } from "../core/bottles/pick.ts";
import { RateLimitedError } from "../core/errors.ts";
import { type CountryLookup, openCountryLookup } from "../core/geo/country-lookup.ts";
import { ipKey } from "../core/limits/ip-key.ts";
import { RateLimiter } from "../core/limits/rate-limiter.ts";
import { createModerator } from "../core/moderation/external.ts";
import type { Moderator } from "../core/moderation/moderator.ts";
import { createTranslator } from "../core/translation/index.ts";
import type { Translator } from "../core/translation/translator.ts";
import index from "../web/index.html";
import { loadWebAssets, type WebAssets } from "./assets.ts";
import { clientIp } from "./client-ip.ts";
import type { Config } from "./config.ts";
import { isSameOriginRequest } from "./csrf.ts";
import { readCookie, securityHeaders, serializeCookie, withHeaders } from "./http.ts";
import { renderPage } from "./pages.ts";
import { LOCALE_HEADER, localeFromHeader } from "./trpc/context.ts";
import { appRouter } from "./trpc/routers/index.ts";

/** Requests larger than this are refused before they are read; every field is far smaller. */
export const MAX_BODY_BYTES = 64 * 1024;
const VISITOR_COOKIE = "visitor";
const VISITOR_MAX_AGE = 400 * 24 * 60 * 60;

export interface Services {
  config: Config;
  db: DB;
  limiter: RateLimiter;
  assets: WebAssets;
  countries: CountryLookup;
  moderator: Moderator;
  translator: Translator;
  recentlyShown: RecentlyShown;
  now: () => number;
}

export interface RunningApp {
  server: Server<undefined>;
  url: URL;
  services: Services;
  stop(): Promise<void>;
}

/** Opens and migrates the database, bundles the front end, and listens. */
export async function startApp(
  config: Config,
  options: { now?: () => number } = {},
): Promise<RunningApp> {
  const now = options.now ?? Date.now;
  const { db } = openDatabase(config.databaseFile);
  await migrateToLatest(db);
  const assets = await loadWebAssets(index);
  const limiter = new RateLimiter(now);
  const services: Services = {
    config,
    db,
    limiter,
    assets,
    countries: await openCountryLookup({ databaseFile: config.geoipDb }),
    moderator: createModerator({
      ...config.moderation,
      onFallback: (error) =>
        console.warn("moderation API failed; local lists decided", String(error)),
    }),
    translator: createTranslator(config.translation),
    recentlyShown: new RecentlyShown(),
    now,
  };
  const handle = createHandler(services);
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    development: false,
    // Room above MAX_BODY_BYTES so oversized requests get our explained 413, not a bare one.
    maxRequestBodySize: 4 * 1024 * 1024,
    fetch: handle,
    error(error) {
      console.error("unhandled request error", error);
      return new Response("Internal Server Error", { status: 500 });
    },
  });
  const pruning = setInterval(() => limiter.prune(24 * 60 * 60 * 1000), 60_000);
  pruning.unref();
  // Hourly: expired sessions and expired bottles leave the database.
  const purging = setInterval(
    () => {
      void purgeExpiredSessions(db, now());
      void purgeExpiredBottles(db, now());
    },
    60 * 60 * 1000,
  );
  purging.unref();
  return {
    server,
    url: server.url,
    services,
    async stop() {
      clearInterval(pruning);
      clearInterval(purging);
      await server.stop(true);
      await db.destroy();
    },
  };
}

interface Visitor {
  id: string;
  isNew: boolean;
}

function visitorOf(request: Request): Visitor {
  const id = readCookie(request, VISITOR_COOKIE);
  if (id && /^[A-Za-z0-9_-]{22}$/.test(id)) return { id, isNew: false };
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return { id: Buffer.from(bytes).toString("base64url"), isNew: true };
}

export function createHandler(services: Services) {
  const { config, assets } = services;
  const https = config.publicOrigin?.startsWith("https:") ?? false;
  const baseHeaders = securityHeaders(https);
  // Over https the __Host- prefix makes browsers refuse the cookie from any subdomain or path.
  const sessionCookie = https ? "__Host-session" : "session";

  function originOf(url: URL): string {
    return config.publicOrigin ?? url.origin;
  }

  function siteConfig(url: URL): SiteConfig {
    return {
      version: config.version,
      siteUrl: config.siteUrl ?? originOf(url),
      contactEmail: config.contactEmail ?? null,
    };
  }

  function html(resolution: Resolution, url: URL, request: Request, status: number): Response {
    const locale: Locale =
      resolution.kind === "page"
        ? localeOfPrefix(resolution.prefix)
        : // Pages without a prefix (not found, /auth) speak the browser's language.
          localeOfPrefix(detectPrefix(request.headers.get("accept-language")));
    const body = renderPage(assets.html, {
      resolution,
      locale,
      origin: originOf(url),
      site: siteConfig(url),
    });
    return new Response(body, {
      status,
      headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" },
    });
  }

  async function trpc(
    request: Request,
    server: Server<undefined>,
    visitor: Visitor,
  ): Promise<Response> {
    const length = Number(request.headers.get("content-length") ?? 0);
    if (length > MAX_BODY_BYTES) return trpcRefusal(413, "PAYLOAD_TOO_LARGE", "Request too large");
    if (
      request.method === "POST" &&
      !isSameOriginRequest(request, originOf(new URL(request.url)))
    ) {
      return trpcRefusal(403, "FORBIDDEN", "Cross-site request refused");
    }
    const ip = clientIp(request, server.requestIP(request)?.address, config.trustProxy);
    const now = services.now();
    const token = readCookie(request, sessionCookie);
    const valid = token ? await validateSessionToken(services.db, token, now) : null;
    const cookies: string[] = [];
    const setSessionCookie = (value: string | null, expiresAt?: number) => {
      const maxAgeSeconds = value && expiresAt ? Math.floor((expiresAt - now) / 1000) : 0;
      cookies.push(serializeCookie(sessionCookie, value ?? "", { maxAgeSeconds, secure: https }));
    };
    if (token && !valid) setSessionCookie(null);
    if (valid?.refreshed && token) setSessionCookie(token, valid.session.expiresAt);

    const response = await fetchRequestHandler({
      endpoint: "/trpc",
      req: request,
      router: appRouter,
      createContext: () => ({
        db: services.db,
        limiter: services.limiter,
        moderator: services.moderator,
        translator: services.translator,
        recentlyShown: services.recentlyShown,
        visitorId: visitor.id,
        ipKey: ipKey(config.secret, ip),
        country: () => services.countries.lookup(ip),
        locale: localeFromHeader(request.headers.get(LOCALE_HEADER)),
        now: services.now,
        user: valid?.user ?? null,
        session: valid?.session ?? null,
        setSessionCookie,
      }),
      responseMeta({ errors }) {
        const limited = errors.find((e) => e.cause instanceof RateLimitedError)?.cause;
        if (limited instanceof RateLimitedError) {
          return { headers: { "Retry-After": String(limited.retryAfterSeconds ?? 60) } };
        }
        return {};
      },
    });
    // Only the last word on the session cookie counts (sign-out after a refresh, say).
    const last = cookies.at(-1);
    if (last) response.headers.append("Set-Cookie", last);
    return response;
  }

  async function route(
    request: Request,
    server: Server<undefined>,
    visitor: Visitor,
  ): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === "/healthz") return Response.json({ ok: true, version: config.version });
    if (path === "/trpc" || path.startsWith("/trpc/")) return trpc(request, server, visitor);

    const asset = assets.files.get(path);
    if (asset) {
      const cache = { "Cache-Control": "public, max-age=31536000, immutable", ETag: asset.etag };
      if (request.headers.get("if-none-match") === asset.etag)
        return new Response(null, { status: 304, headers: cache });
      return new Response(asset.body, { headers: { ...cache, "Content-Type": asset.type } });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method Not Allowed", { status: 405, headers: { Allow: "GET, HEAD" } });
    }
    if (path.length > 1 && path.endsWith("/")) {
      return redirect(`${path.replace(/\/+$/, "") || "/"}${url.search}`, 301);
    }
    const resolution = resolvePath(path, request.headers.get("accept-language"));
    switch (resolution.kind) {
      case "redirect": {
        // The root's target depends on the browser's language; the others never change.
        const response = redirect(`${resolution.location}${url.search}`, path === "/" ? 302 : 301);
        if (path === "/") response.headers.set("Vary", "Accept-Language");
        return response;
      }
      case "page":
      case "auth":
        return html(resolution, url, request, 200);
      case "not-found":
        return html(resolution, url, request, 404);
    }
  }

  return async function handle(request: Request, server: Server<undefined>): Promise<Response> {
    const visitor = visitorOf(request);
    const response = withHeaders(await route(request, server, visitor), baseHeaders);
    // Immutable assets may be shared by caches, so they never carry a personal cookie.
    if (visitor.isNew && !response.headers.get("Cache-Control")?.includes("immutable")) {
      response.headers.append(
        "Set-Cookie",
        serializeCookie(VISITOR_COOKIE, visitor.id, {
          maxAgeSeconds: VISITOR_MAX_AGE,
          secure: https,
        }),
      );
    }
    return response;
  };
}

function trpcRefusal(status: number, appCode: AppErrorCode, message: string): Response {
  return Response.json(
    { error: { message, code: -32600, data: { appCode, httpStatus: status } } },
    { status },
  );
}

function redirect(location: string, status: 301 | 302): Response {
  return new Response(null, { status, headers: { Location: location } });
}
