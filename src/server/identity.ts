import type { Country } from "../common/country.ts";
import { DEVICE_TRUST_MS } from "../core/auth/devices.ts";
import { SocketRights } from "../core/auth/rights.ts";
import { type ValidSession, validateSessionToken } from "../core/auth/sessions.ts";
import { ipKey } from "../core/limits/ip-key.ts";
import { clientIp } from "./client-ip.ts";
import { serializeCookie } from "./http.ts";
import type { Services } from "./services.ts";
import { type AccountNow, type Context, LOCALE_HEADER, localeFromHeader } from "./trpc/context.ts";
import { signedVisitorId, verifiedVisitorId, visitorKey } from "./visitor-id.ts";

const VISITOR_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;
const DEVICE_MAX_AGE_SECONDS = DEVICE_TRUST_MS / 1000;
const VISITOR_ID = /^[A-Za-z0-9_-]{22}$/;

export function isHttps(services: Services): boolean {
  return services.config.publicOrigin?.startsWith("https:") ?? false;
}

/**
 * The names of our cookies. Over https the __Host- prefix makes browsers refuse them from any
 * subdomain or path.
 */
export function cookieNames(https: boolean) {
  const prefix = https ? "__Host-" : "";
  return { visitor: `${prefix}visitor`, session: `${prefix}session`, device: `${prefix}device` };
}

/**
 * The request's cookies. Bun's parser never throws: a malformed value (`%ZZ`) reads as something
 * no check accepts, so it counts as absent.
 */
export function cookiesOf(request: Request): Bun.CookieMap {
  return new Bun.CookieMap(cookieHeaderOf(request));
}

/** The request's Cookie header, as cookiesOf reads it ("" when none came). */
export function cookieHeaderOf(request: Request): string {
  return request.headers.get("cookie") ?? "";
}

export interface Visitor {
  id: string;
  /** The cookie must be sent: the id was just made, or it came unsigned and is signed now. */
  isNew: boolean;
}

/**
 * The visitor, from the cookie the server signed; a value it never issued is replaced by a fresh
 * id (128 random bits), never adopted. Over https only the __Host- name counts: a sibling
 * subdomain or a plain http response can plant the unprefixed name, never that one.
 *
 * An unsigned id from before visitor ids were signed is kept, and signed, only under the
 * __Host- name, which nobody but this origin over https can have set. Without __Host- (a site
 * not served over https) nothing stops a planted cookie, so an unsigned value there starts afresh.
 */
export function visitorOf(cookies: Bun.CookieMap, https: boolean, key: Buffer): Visitor {
  const value = cookies.get(cookieNames(https).visitor);
  const signed = value ? verifiedVisitorId(key, value) : null;
  if (signed) return { id: signed, isNew: false };
  if (https && value && VISITOR_ID.test(value)) return { id: value, isNew: true };
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return { id: Buffer.from(bytes).toString("base64url"), isNew: true };
}

export function visitorCookie(services: Services, visitor: Visitor): string {
  const https = isHttps(services);
  const value = signedVisitorId(visitorKey(services.config.secret), visitor.id);
  return serializeCookie(cookieNames(https).visitor, value, {
    maxAgeSeconds: VISITOR_MAX_AGE_SECONDS,
    secure: https,
  });
}

/** What a context reads of the request besides its cookies. */
export interface RequestFacts {
  /** The client's address (see clientIp). */
  ip: string;
  /** The page's language header (LOCALE_HEADER), if sent. */
  locale: string | null;
}

/** The facts of an HTTP request, or of a WebSocket's upgrade request. */
export function factsOf(
  services: Services,
  request: Request,
  /** The socket's address, asked only when no trusted header names one (a system call). */
  socketAddress: () => string | undefined,
): RequestFacts {
  return {
    ip: clientIp(request, socketAddress, services.config.trustProxy),
    locale: request.headers.get(LOCALE_HEADER),
  };
}

/**
 * The tRPC context of one request (or one WebSocket): identities from cookies and the socket,
 * never from anything the client says. `setCookies` collects Set-Cookie lines for the response,
 * the last one per name. A socket's context (`socket`) outlives its upgrade: a session it opened
 * with is read again for each call (`rightsNow`), never taken from the upgrade.
 */
export async function contextFor(
  services: Services,
  facts: RequestFacts,
  cookies: Bun.CookieMap,
  visitor: Visitor,
  setCookies: Map<string, string>,
  socket = false,
): Promise<Context> {
  const { ip } = facts;
  const now = services.now();
  const https = isHttps(services);
  const names = cookieNames(https);
  const token = cookies.get(names.session) ?? undefined;
  // Taken before the read: a revocation landing during it makes the reading stale.
  const count = services.revocations.count;
  const valid = token ? await validateSessionToken(services.db, token, now) : null;
  const setSessionCookie = (value: string | null, expiresAt?: number) => {
    const maxAgeSeconds = value && expiresAt ? Math.floor((expiresAt - now) / 1000) : 0;
    setCookies.set(
      names.session,
      serializeCookie(names.session, value ?? "", { maxAgeSeconds, secure: https }),
    );
  };
  if (token && !valid) setSessionCookie(null);
  if (valid?.refreshed && token) setSessionCookie(token, valid.session.expiresAt);
  let country: Country | undefined;
  const context: Context = {
    db: services.db,
    limiter: services.limiter,
    moderator: services.moderator,
    translator: services.translator,
    chatTranslations: services.chatTranslations,
    recentlyShown: services.recentlyShown,
    shownBottles: services.shownBottles,
    finds: services.finds,
    devices: services.devices,
    chat: services.chat,
    repeats: services.repeats,
    revocations: services.revocations,
    features: services.features,
    pow: services.pow,
    metrics: services.metrics,
    connection: {},
    requester: {
      visitorId: visitor.id,
      ipKey: ipKey(services.config.secret, ip),
      userId: valid?.user.id ?? null,
      country: () => {
        country ??= services.countries.lookup(ip);
        return country;
      },
    },
    locale: localeFromHeader(facts.locale),
    now: services.now,
    user: valid?.user ?? null,
    isOperator: valid?.isOperator ?? false,
    session: valid?.session ?? null,
    deviceToken: cookies.get(names.device) ?? undefined,
    setSessionCookie,
    setDeviceCookie(value) {
      setCookies.set(
        names.device,
        serializeCookie(names.device, value, {
          maxAgeSeconds: DEVICE_MAX_AGE_SECONDS,
          secure: https,
        }),
      );
    },
  };
  // A socket that opened signed in; one that did not stays signed out (its cookies are fixed).
  if (socket && token && valid) {
    const rights = new SocketRights(
      services.revocations,
      () => validateSessionToken(services.db, token, services.now()),
      services.now,
      { valid, count },
    );
    context.rightsNow = rightsNowOf(rights, context);
  }
  return context;
}

/**
 * What a socket's calls see of its account, from its SocketRights: the same object while the
 * reading is the same, so a call in between makes nothing new.
 */
function rightsNowOf(
  rights: SocketRights,
  context: Context,
): () => AccountNow | Promise<AccountNow> {
  let seen: ValidSession | null | undefined;
  let now: AccountNow | undefined;
  const of = (valid: ValidSession | null): AccountNow => {
    if (now && valid === seen) return now;
    seen = valid;
    now = {
      user: valid?.user ?? null,
      session: valid?.session ?? null,
      isOperator: valid?.isOperator ?? false,
      requester: { ...context.requester, userId: valid?.user.id ?? null },
    };
    return now;
  };
  return () => {
    const current = rights.current();
    return current instanceof Promise ? current.then(of) : of(current);
  };
}
