import { useEffect, useState } from "react";

/** A test cookie, removed as soon as it is read back. */
const CHECK = "tidings-cookie-check";

/**
 * Whether this browser refuses the site's cookies (a setting that blocks all cookies, or this
 * site's). The server knows a visitor from one request to the next only by the visitor cookie,
 * so without it an answer to the age question, a sign-in or a chat is forgotten at once.
 * Chromium keeps `navigator.cookieEnabled` true when its setting blocks every site, so a test
 * cookie is written and read back.
 */
export function cookiesBlocked(): boolean {
  if (typeof document === "undefined") return false;
  if (!navigator.cookieEnabled) return true;
  const secure = location.protocol === "https:" ? "; secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: asked while a page draws, so synchronously; the Cookie Store API is asynchronous and missing in some browsers.
  document.cookie = `${CHECK}=1; path=/; max-age=60; samesite=strict${secure}`;
  const kept = document.cookie.split("; ").includes(`${CHECK}=1`);
  // biome-ignore lint/suspicious/noDocumentCookie: as above.
  if (kept) document.cookie = `${CHECK}=; path=/; max-age=0; samesite=strict${secure}`;
  return !kept;
}

/**
 * Whether cookies are blocked, asked again when the visitor comes back to the tab: the way out
 * is a setting, changed elsewhere.
 */
export function useCookiesBlocked(): boolean {
  const [blocked, setBlocked] = useState(cookiesBlocked);
  useEffect(() => {
    const check = () => {
      if (document.visibilityState === "visible") setBlocked(cookiesBlocked());
    };
    window.addEventListener("focus", check);
    document.addEventListener("visibilitychange", check);
    return () => {
      window.removeEventListener("focus", check);
      document.removeEventListener("visibilitychange", check);
    };
  }, []);
  return blocked;
}

/** A send stopped before it left: the browser refuses the cookie it needs. */
export class CookiesBlocked extends Error {
  constructor() {
    super("this browser refuses the site's cookies");
    this.name = "CookiesBlocked";
  }
}

/**
 * Stops a send the browser could not keep (a throw, a sign-in): the server would answer, and the
 * cookie it sets would be dropped. Asked at each press, as cookies may be allowed meanwhile.
 */
export function requireCookies(): void {
  if (cookiesBlocked()) throw new CookiesBlocked();
}
