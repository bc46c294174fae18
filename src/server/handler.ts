import type { Server } from "bun";
import {
  detectPrefix,
  type Locale,
  localeOfPrefix,
  type Resolution,
  resolvePath,
} from "../common/locales.ts";
import type { SiteConfig } from "../common/site.ts";
import { asDomainError, UnavailableError } from "../core/errors.ts";
import { isSameOriginRequest } from "./csrf.ts";
import type { ErrorLog } from "./error-log.ts";
import { NoAnswer, within } from "./health.ts";
import { securityHeaders, withHeaders } from "./http.ts";
import {
  contextFor,
  cookiesOf,
  factsOf,
  isHttps,
  type Visitor,
  visitorCookie,
  visitorOf,
} from "./identity.ts";
import { type Logger, requestIdOf } from "./log.ts";
import { bearerMatches, type RouteKind } from "./metrics.ts";
import { renderPage } from "./pages.ts";
import type { Services } from "./services.ts";
import { handleTrpcHttp, trpcRefusal } from "./trpc/http.ts";
import { appRouter } from "./trpc/routers/index.ts";
import { visitorKey } from "./visitor-id.ts";
import type { createWebSocket } from "./ws.ts";

/** Requests larger than this are refused; every field is far smaller. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The body, read up to `limit` bytes: null past it, whether Content-Length said so or the body
 * came in chunks without one.
 */
async function readBody(request: Request, limit: number): Promise<ArrayBuffer | null> {
  if (Number(request.headers.get("content-length") ?? 0) > limit) return null;
  if (!request.body) return new ArrayBuffer(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Bun.concatArrayBuffers(chunks);
}

type Socket = ReturnType<typeof createWebSocket>;
// biome-ignore lint/suspicious/noExplicitAny: the server's socket data type is the WebSocket glue's concern.
type AnyServer = Server<any>;

/** Every HTTP request: health, tRPC (and its WebSocket upgrade), assets, pages, redirects. */
export function createHandler(services: Services, socket: Socket, errors: ErrorLog) {
  const { config, assets } = services;
  const analyticsOrigin = config.analytics ? new URL(config.analytics.scriptUrl).origin : undefined;
  const https = isHttps(services);
  const visitorIdKey = visitorKey(services.config.secret);
  const baseHeaders = Object.entries(securityHeaders(https, analyticsOrigin));

  const originOf = (url: URL) => config.publicOrigin ?? url.origin;

  // Absolute URLs come from the operator's settings only, never from a request's Host.
  const site: SiteConfig = {
    version: config.version,
    siteUrl: config.siteUrl ?? null,
    contactEmail: config.contactEmail ?? null,
  };

  /** The page's own scripts and its dictionary, fetched with the app's. */
  function preloadsFor(resolution: Resolution, locale: Locale): string[] {
    const page =
      resolution.kind === "page" ? resolution.slug : resolution.kind === "auth" ? "auth" : "";
    const dictionary = assets.dictionaries[locale];
    return [...(dictionary ? [dictionary] : []), ...(assets.preloads[page] ?? [])];
  }

  function html(
    resolution: Resolution,
    request: Request,
    status: number,
    forbidden = false,
  ): Response {
    const prefix =
      resolution.kind === "page" || resolution.kind === "auth" ? resolution.prefix : undefined;
    // Pages without a prefix (not found, /auth) speak the browser's language.
    const locale = localeOfPrefix(prefix ?? detectPrefix(request.headers.get("accept-language")));
    const body = renderPage(assets.html, {
      resolution,
      locale,
      scripts: {
        start: assets.start,
        app: [...assets.appScripts, ...preloadsFor(resolution, locale)],
      },
      origin: config.publicOrigin,
      site: { ...site, features: services.features.states },
      analytics: config.analytics,
      forbidden,
    });
    const headers = {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      Vary: "Accept-Encoding",
    };
    // Compressed, the page arrives in one round trip on a slow connection; it holds nothing
    // secret whose compressed size could leak it.
    if (acceptsGzip(request)) {
      return new Response(Bun.gzipSync(body), {
        status,
        headers: { ...headers, "Content-Encoding": "gzip" },
      });
    }
    return new Response(body, { status, headers });
  }

  async function trpc(
    request: Request,
    url: URL,
    server: AnyServer,
    cookies: Bun.CookieMap,
    visitor: Visitor,
    reqId: string,
  ): Promise<Response> {
    const tooLarge = () =>
      trpcRefusal("PAYLOAD_TOO_LARGE", "PAYLOAD_TOO_LARGE", "Request too large");
    if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return tooLarge();
    if (request.method === "POST" && !isSameOriginRequest(request, originOf(url))) {
      return trpcRefusal("FORBIDDEN", "FORBIDDEN", "Cross-site request refused");
    }
    let forwarded = request;
    if (request.method === "POST") {
      const body = await readBody(request, MAX_BODY_BYTES);
      if (!body) return tooLarge();
      forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
    }
    return withContext(request, server, cookies, visitor, (context) =>
      handleTrpcHttp(forwarded, {
        router: appRouter,
        endpoint: "/trpc",
        createContext: context,
        onError: (error) => errors.trpc(error, reqId),
      }),
    );
  }

  /**
   * Answers with the request's context at hand. Cookies the context sets on the way (a session
   * refreshed, or found gone) leave with the answer, the last word per cookie counting (sign-out
   * after a refresh, say).
   */
  async function withContext(
    request: Request,
    server: AnyServer,
    cookies: Bun.CookieMap,
    visitor: Visitor,
    answer: (context: () => ReturnType<typeof contextFor>) => Promise<Response>,
  ): Promise<Response> {
    const setCookies = new Map<string, string>();
    const response = await answer(() =>
      contextFor(
        services,
        factsOf(services, request, () => server.requestIP(request)?.address),
        cookies,
        visitor,
        setCookies,
      ),
    );
    for (const line of setCookies.values()) response.headers.append("Set-Cookie", line);
    return response;
  }

  /** What each request was, for the metrics: a bounded set, never the path itself. */
  type Routed = { kind: RouteKind; response: Response | undefined };

  async function route(
    request: Request,
    server: AnyServer,
    cookies: Bun.CookieMap,
    visitor: Visitor,
    reqId: string,
  ): Promise<Routed> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === "/healthz") {
      try {
        const counts = await within(services.chat.broker.counts());
        const response = Response.json({
          ok: true,
          version: config.version,
          chats: counts.chatting,
          waiting: counts.waiting,
          present: counts.present,
        });
        return { kind: "health", response };
      } catch (error) {
        // Redis out of reach: not a fault of this process, and it is told once per outage.
        const away = error instanceof NoAnswer ? new UnavailableError(error) : asDomainError(error);
        if (away?.code !== "UNAVAILABLE") throw error;
        const response = Response.json(
          { ok: false, version: config.version },
          { status: 503, headers: { "Retry-After": String(away.retryAfterSeconds) } },
        );
        response.headers.set("Cache-Control", "no-store");
        return { kind: "health", response };
      }
    }
    // The process answers: nothing else is asked.
    if (path === "/healthz/live") {
      return { kind: "health", response: Response.json({ ok: true, version: config.version }) };
    }
    if (path === "/healthz/ready") {
      const { ready, checks } = await services.health.ready();
      const response = Response.json({ ready, checks }, { status: ready ? 200 : 503 });
      response.headers.set("Cache-Control", "no-store");
      return { kind: "health", response };
    }
    if (path === "/metrics") {
      return { kind: "metrics", response: await metricsAnswer(request, config.metrics.token) };
    }
    if (path === "/trpc" && request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return {
        kind: "websocket",
        response: socket.upgrade(request, server, originOf(url), visitor),
      };
    }
    if (path === "/trpc" || path.startsWith("/trpc/")) {
      return { kind: "trpc", response: await trpc(request, url, server, cookies, visitor, reqId) };
    }
    if (assets.files.has(path)) return { kind: "asset", response: asset(request, path) };
    const response = await page(request, url, server, cookies, visitor);
    const kind = response.status === 301 || response.status === 302 ? "redirect" : "page";
    return { kind: response.status === 405 ? "other" : kind, response };
  }

  /**
   * Metrics on the site's own port only to the operator's bearer token (METRICS_TOKEN); without
   * one they are served only on METRICS_PORT, so they are never public by default.
   */
  async function metricsAnswer(request: Request, token: string | undefined): Promise<Response> {
    if (!token) return new Response("Not Found", { status: 404 });
    if (!bearerMatches(request, token)) {
      return new Response("Unauthorized", {
        status: 401,
        headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
      });
    }
    const { body, contentType } = await services.metrics.text();
    return new Response(body, {
      headers: { "Content-Type": contentType, "Cache-Control": "no-store" },
    });
  }

  function asset(request: Request, path: string): Response {
    const asset = assets.files.get(path);
    if (!asset) return new Response("Not Found", { status: 404 });
    const cache = {
      "Cache-Control": "public, max-age=31536000, immutable",
      ETag: asset.etag,
      Vary: "Accept-Encoding",
    };
    if (request.headers.get("if-none-match") === asset.etag) {
      return new Response(null, { status: 304, headers: cache });
    }
    const headers = { ...cache, "Content-Type": asset.type };
    if (asset.gzip && acceptsGzip(request)) {
      return new Response(asset.gzip, { headers: { ...headers, "Content-Encoding": "gzip" } });
    }
    return new Response(asset.body, { headers });
  }

  async function page(
    request: Request,
    url: URL,
    server: AnyServer,
    cookies: Bun.CookieMap,
    visitor: Visitor,
  ): Promise<Response> {
    const path = url.pathname;
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
        if (resolution.slug === "moderation") {
          return operatorPage(resolution, request, server, cookies, visitor);
        }
        return html(resolution, request, 200);
      case "auth":
        return html(resolution, request, 200);
      case "not-found":
        return html(resolution, request, 404);
    }
  }

  /**
   * The moderation page: the app for a signed-in operator, otherwise 403 with the page's short
   * forbidden message (the app draws it in the page's language, as it does for 404).
   */
  async function operatorPage(
    resolution: Resolution,
    request: Request,
    server: AnyServer,
    cookies: Bun.CookieMap,
    visitor: Visitor,
  ): Promise<Response> {
    return withContext(request, server, cookies, visitor, async (context) =>
      (await context()).isOperator
        ? html(resolution, request, 200)
        : html(resolution, request, 403, true),
    );
  }

  return async function handle(request: Request, server: AnyServer): Promise<Response | undefined> {
    const started = performance.now();
    const reqId = requestIdOf(request);
    const cookies = cookiesOf(request);
    const visitor = visitorOf(cookies, https, visitorIdKey);
    const { kind, response: routed } = await route(request, server, cookies, visitor, reqId);
    const status = routed?.status ?? 101;
    const ms = performance.now() - started;
    services.metrics.request(kind, status, ms);
    logRequest(services.log, request, status, ms, reqId);
    if (!routed) return undefined; // upgraded to a WebSocket
    const response = withHeaders(routed, baseHeaders);
    response.headers.set("X-Request-Id", reqId);
    // Immutable assets may be shared by caches, so they never carry a personal cookie.
    if (visitor.isNew && !response.headers.get("Cache-Control")?.includes("immutable")) {
      response.headers.append("Set-Cookie", visitorCookie(services, visitor));
    }
    return response;
  };
}

/** One line per request: method, route, status, duration; never addresses or message text. */
function logRequest(log: Logger, request: Request, status: number, ms: number, reqId: string) {
  if (!log.isLevelEnabled("info")) return;
  const path = new URL(request.url).pathname;
  const route = path.length > 120 ? `${path.slice(0, 120)}…` : path;
  const duration = Math.round(ms * 10) / 10;
  log.info(
    { reqId, method: request.method, route, status, ms: duration },
    `${request.method} ${route} ${status} ${duration}ms`,
  );
}

function redirect(location: string, status: 301 | 302): Response {
  return new Response(null, { status, headers: { Location: location } });
}

/** Whether the client takes gzip ("gzip;q=0" refuses it). */
export function acceptsGzip(request: Request): boolean {
  const accepted = request.headers.get("accept-encoding");
  if (!accepted) return false;
  for (const part of accepted.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}
