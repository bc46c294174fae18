import { validateSessionToken } from "../core/auth/sessions.ts";
import { ipKey } from "../core/limits/ip-key.ts";
import { clientIp } from "./client-ip.ts";
import { readCookie, serializeCookie } from "./http.ts";
import type { Services } from "./services.ts";
import { type Context, LOCALE_HEADER, localeFromHeader } from "./trpc/context.ts";

const VISITOR_COOKIE = "visitor";
const VISITOR_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

export interface Visitor {
  id: string;
  /** The cookie was just made and must be sent. */
  isNew: boolean;
}

/** The visitor cookie: 128 random bits, made on the first request that lacks one. */
export function visitorOf(request: Request): Visitor {
  const id = readCookie(request, VISITOR_COOKIE);
  if (id && /^[A-Za-z0-9_-]{22}$/.test(id)) return { id, isNew: false };
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return { id: Buffer.from(bytes).toString("base64url"), isNew: true };
}

export function isHttps(services: Services): boolean {
  return services.config.publicOrigin?.startsWith("https:") ?? false;
}

export function visitorCookie(services: Services, visitor: Visitor): string {
  return serializeCookie(VISITOR_COOKIE, visitor.id, {
    maxAgeSeconds: VISITOR_MAX_AGE_SECONDS,
    secure: isHttps(services),
  });
}

/** Over https the __Host- prefix makes browsers refuse the cookie from any subdomain or path. */
export function sessionCookieName(services: Services): string {
  return isHttps(services) ? "__Host-session" : "session";
}

/**
 * The tRPC context of one request (or one WebSocket): identities from cookies and the socket,
 * never from anything the client says. `cookies` collects Set-Cookie lines for the response.
 */
export async function contextFor(
  services: Services,
  request: Request,
  /** The socket's address, asked only when no trusted header names one (a system call). */
  socketAddress: () => string | undefined,
  visitor: Visitor,
  cookies: string[],
): Promise<Context> {
  const ip = clientIp(request, socketAddress, services.config.trustProxy);
  const now = services.now();
  const name = sessionCookieName(services);
  const token = readCookie(request, name);
  const valid = token ? await validateSessionToken(services.db, token, now) : null;
  const setSessionCookie = (value: string | null, expiresAt?: number) => {
    const maxAgeSeconds = value && expiresAt ? Math.floor((expiresAt - now) / 1000) : 0;
    cookies.push(serializeCookie(name, value ?? "", { maxAgeSeconds, secure: isHttps(services) }));
  };
  if (token && !valid) setSessionCookie(null);
  if (valid?.refreshed && token) setSessionCookie(token, valid.session.expiresAt);
  let country: ReturnType<Context["country"]> | undefined;
  return {
    db: services.db,
    limiter: services.limiter,
    moderator: services.moderator,
    translator: services.translator,
    recentlyShown: services.recentlyShown,
    chat: services.chat,
    visitorId: visitor.id,
    ipKey: ipKey(services.config.secret, ip),
    country: () => {
      country ??= services.countries.lookup(ip);
      return country;
    },
    locale: localeFromHeader(request.headers.get(LOCALE_HEADER)),
    now: services.now,
    user: valid?.user ?? null,
    session: valid?.session ?? null,
    setSessionCookie,
  };
}
