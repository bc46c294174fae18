// Locale rules shared by the server (redirects, 404 suggestions) and the web (navigation).

export const locales = ["en", "zh-TW"] as const;
export type Locale = (typeof locales)[number];

export const prefixes = ["en", "zh"] as const;
export type Prefix = (typeof prefixes)[number];

export const PREFERRED_LANGUAGE_KEY = "preferred-language";

/** Pages that live under a language prefix; "" is the home page. */
export const pageSlugs = [
  "",
  "create",
  "discover",
  "about",
  "privacy",
  "terms",
  "contact",
  "faq",
  "public-bottles",
  "random-chat",
  /** The bottles this browser (or the signed-in account) threw, with their finds. */
  "my-bottles",
  /** Operators only: the server answers 403 to anyone else, and no page links to it for them. */
  "moderation",
] as const;
export type PageSlug = (typeof pageSlugs)[number];

export function localeOfPrefix(prefix: Prefix): Locale {
  return prefix === "zh" ? "zh-TW" : "en";
}

export function prefixOfLocale(locale: Locale): Prefix {
  return locale === "zh-TW" ? "zh" : "en";
}

export function isPrefix(value: string | undefined): value is Prefix {
  return value === "en" || value === "zh";
}

export function isLocale(value: unknown): value is Locale {
  return value === "en" || value === "zh-TW";
}

/** zh when the first language the browser names starts with "zh", otherwise en. */
export function detectPrefix(acceptLanguage: string | null | undefined): Prefix {
  const first = (acceptLanguage ?? "").split(",")[0]?.trim().toLowerCase() ?? "";
  return first.startsWith("zh") ? "zh" : "en";
}

/** Splits "/zh/faq" into its prefix and the rest ("/faq"); no prefix gives undefined. */
export function splitPrefix(pathname: string): { prefix: Prefix | undefined; rest: string } {
  const match = /^\/(en|zh)(?=\/|$)/.exec(pathname);
  if (!match) return { prefix: undefined, rest: pathname };
  const rest = pathname.slice(match[0].length);
  return { prefix: match[1] as Prefix, rest: rest === "/" ? "" : rest };
}

/** The same page under another language: the old prefix removed, the new one added. */
export function swapPrefix(pathname: string, to: Prefix): string {
  const { rest } = splitPrefix(pathname);
  const clean = rest === "/" ? "" : rest;
  return `/${to}${clean}`;
}

export function localizedPath(prefix: Prefix, slug: PageSlug): string {
  return slug === "" ? `/${prefix}` : `/${prefix}/${slug}`;
}

function normalize(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
}

export type Resolution =
  | { kind: "page"; prefix: Prefix; slug: PageSlug }
  /** The sign-in page: /auth speaks the visitor's language; /en/auth and /zh/auth their own. */
  | { kind: "auth"; prefix?: Prefix }
  | { kind: "redirect"; location: string }
  | { kind: "not-found" };

/**
 * What a path means: a page, a redirect (the root by language, unprefixed pages to /en),
 * or not found. The server answers with real HTTP statuses from this; the web router agrees.
 */
export function resolvePath(pathname: string, acceptLanguage?: string | null): Resolution {
  const path = normalize(pathname);
  if (path === "/") return { kind: "redirect", location: `/${detectPrefix(acceptLanguage)}` };
  if (path === "/auth") return { kind: "auth" };
  const { prefix, rest } = splitPrefix(path);
  if (prefix) {
    if (rest === "/auth") return { kind: "auth", prefix };
    const slug = rest.slice(1);
    if ((pageSlugs as readonly string[]).includes(slug) && !slug.includes("/")) {
      return { kind: "page", prefix, slug: slug as PageSlug };
    }
    return { kind: "not-found" };
  }
  const slug = path.slice(1);
  if (slug !== "" && (pageSlugs as readonly string[]).includes(slug)) {
    return { kind: "redirect", location: `/en/${slug}` };
  }
  return { kind: "not-found" };
}

/**
 * The not-found page suggests the same path under the current language when the missing path
 * has no /en or /zh prefix and is not the root.
 */
export function notFoundSuggestion(pathname: string, current: Prefix): string | undefined {
  const path = normalize(pathname);
  if (path === "/" || path === "") return undefined;
  if (splitPrefix(path).prefix) return undefined;
  return `/${current}${path}`;
}
