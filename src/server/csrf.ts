/**
 * Whether a state-changing request comes from the site's own pages. Browsers send
 * Sec-Fetch-Site; older ones at least send Origin on POST. A request with neither is refused:
 * only a browser can be tricked into a cross-site request, and every browser sends one of them.
 */
export function isSameOriginRequest(request: Request, ownOrigin: string): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  return origin !== null && origin === ownOrigin;
}
