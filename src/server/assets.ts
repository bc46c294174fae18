import type { HTMLBundle } from "bun";

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

export interface WebAssets {
  /** The app's HTML as Bun's bundler wrote it. */
  html: string;
  /** Hashed files by path ("/chunk-1a2b3c.js"). */
  files: Map<string, Asset>;
}

/**
 * Bun bundles the front end from its HTML import (at first request in development, at build
 * time inside a compiled binary). We take that output once, through a short-lived loopback
 * server, and serve it ourselves: that way every response carries our security headers, the
 * not-found page can answer 404, and the HTML can name the page's language.
 */
export async function loadWebAssets(bundle: HTMLBundle): Promise<WebAssets> {
  const internal = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    development: false,
    routes: { "/": bundle },
    fetch: () => new Response("not found", { status: 404 }),
  });
  try {
    const base = internal.url;
    const htmlResponse = await fetch(new URL("/", base));
    if (!htmlResponse.ok) throw new Error(`front end bundle failed: ${await buildErrors(bundle)}`);
    const html = await htmlResponse.text();
    const files = new Map<string, Asset>();
    const pending = referencedPaths(html);
    while (pending.length > 0) {
      const path = pending.pop();
      if (!path || files.has(path)) continue;
      const response = await fetch(new URL(path, base));
      if (!response.ok) throw new Error(`front end asset ${path} missing: ${response.status}`);
      const body = new Uint8Array(await response.arrayBuffer());
      const type = response.headers.get("content-type") ?? "application/octet-stream";
      files.set(path, { body, type, etag: `"${Bun.hash(body).toString(36)}"` });
      if (type.startsWith("text/css"))
        pending.push(...referencedPaths(new TextDecoder().decode(body)));
    }
    return { html, files };
  } finally {
    internal.stop(true);
  }
}

/** Bun's HTML route answers a failed bundle with an empty 500; a direct build says why. */
async function buildErrors(bundle: HTMLBundle): Promise<string> {
  try {
    const result = await Bun.build({ entrypoints: [bundle.index], throw: false });
    return result.logs.map((log) => String(log)).join("\n") || "no details";
  } catch (error) {
    return String(error);
  }
}

/** Root-relative asset paths named by src/href attributes or CSS url()s. */
function referencedPaths(text: string): string[] {
  const paths: string[] = [];
  for (const m of text.matchAll(/(?:src|href)="(\/[^"/][^"]*)"|url\((?:'|")?(\/[^'")]+)/g)) {
    const path = m[1] ?? m[2];
    if (path) paths.push(path.split(/[?#]/)[0] ?? path);
  }
  return paths;
}
