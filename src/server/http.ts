/**
 * Headers every response carries. No inline script is allowed anywhere; the operator's
 * self-hosted analytics, when configured, is the one other origin allowed.
 */
export function securityHeaders(https: boolean, analyticsOrigin?: string): Record<string, string> {
  const extra = analyticsOrigin ? ` ${analyticsOrigin}` : "";
  const csp = [
    "default-src 'self'",
    `script-src 'self'${extra}`,
    // Inline styles only: the toast library injects its stylesheet at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${extra}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const headers: Record<string, string> = {
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
  };
  if (https) headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  return headers;
}

/** Sets each header on the response; the pairs are made once, not per response. */
export function withHeaders(
  response: Response,
  headers: ReadonlyArray<readonly [string, string]>,
): Response {
  for (const [name, value] of headers) response.headers.set(name, value);
  return response;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
}

export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    "Path=/",
    `Max-Age=${o.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (o.secure) parts.push("Secure");
  return parts.join("; ");
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
