import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ CONTACT_EMAIL: "hello@tidings.example.org" });
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers, redirect: "manual" });

describe("health", () => {
  test("answers ok with the version, the running chats and the waiting and present visitors", async () => {
    const response = await get("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ok: true,
      version: expect.any(String),
      chats: 0,
      waiting: 0,
      present: 0,
    });
  });
});

describe("redirects", () => {
  test("the root goes to /zh for a Chinese browser and /en otherwise", async () => {
    const zh = await get("/", { "Accept-Language": "zh-TW,zh;q=0.9,en;q=0.5" });
    expect(zh.status).toBe(302);
    expect(zh.headers.get("location")).toBe("/zh");
    expect(zh.headers.get("vary")).toContain("Accept-Language");
    const en = await get("/", { "Accept-Language": "en-GB,zh-TW;q=0.5" });
    expect(en.headers.get("location")).toBe("/en");
    const none = await get("/");
    expect(none.headers.get("location")).toBe("/en");
  });

  test("unprefixed pages go to their English pages, keeping the query", async () => {
    for (const slug of [
      "create",
      "discover",
      "about",
      "privacy",
      "terms",
      "contact",
      "faq",
      "public-bottles",
      "random-chat",
      "my-bottles",
    ]) {
      const response = await get(`/${slug}`, { "Accept-Language": "zh-TW" });
      expect(response.status).toBe(301);
      expect(response.headers.get("location")).toBe(`/en/${slug}`);
    }
    expect((await get("/faq?x=1")).headers.get("location")).toBe("/en/faq?x=1");
  });

  test("a trailing slash is dropped", async () => {
    const response = await get("/en/faq/");
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/en/faq");
  });
});

describe("pages", () => {
  test("every page answers 200 with the app, in the prefix's language", async () => {
    for (const prefix of ["en", "zh"]) {
      for (const slug of [
        "",
        "/create",
        "/discover",
        "/about",
        "/privacy",
        "/terms",
        "/contact",
        "/faq",
        "/public-bottles",
        "/random-chat",
        "/my-bottles",
      ]) {
        const response = await get(`/${prefix}${slug}`);
        expect(response.status).toBe(200);
        const html = await response.text();
        expect(html).toContain(`<html lang="${prefix === "zh" ? "zh-TW" : "en"}"`);
        expect(html).toContain('<div id="root">');
      }
    }
    expect((await get("/auth")).status).toBe(200);
  });

  test("titles are localized and the operator's settings are embedded", async () => {
    const zh = await (await get("/zh/faq")).text();
    expect(zh).toContain("<title>常見問題 · Tidings</title>");
    expect(await (await get("/zh/my-bottles")).text()).toContain(
      "<title>我的瓶子 · Tidings</title>",
    );
    expect(await (await get("/en/my-bottles")).text()).toContain(
      "<title>My bottles · Tidings</title>",
    );
    expect(zh).toContain('"contactEmail":"hello@tidings.example.org"');
  });

  test("the about page carries its metadata for link previews, absolute URLs only from PUBLIC_ORIGIN", async () => {
    const html = await (await get("/en/about")).text();
    for (const needle of ['name="keywords"', 'property="og:title"', 'name="twitter:card"']) {
      expect(html).toContain(needle);
    }
    // Without PUBLIC_ORIGIN nothing absolute is built from the request's Host.
    expect(html).not.toContain('rel="canonical"');
    expect(html).not.toContain(server.url);
    const withOrigin = await startTestServer({ PUBLIC_ORIGIN: "https://tidings.example.org" });
    try {
      const page = await (await fetch(`${withOrigin.url}/en/about`)).text();
      expect(page).toContain('<link rel="canonical" href="https://tidings.example.org/en/about">');
      expect(page).toContain('property="og:url" content="https://tidings.example.org/en/about"');
    } finally {
      await withOrigin.close();
    }
  });

  test("before its script runs, a page shows a loading screen and a no-script notice in its language", async () => {
    const root = (html: string) =>
      html.slice(html.indexOf('<div id="root">'), html.indexOf("</body>"));
    const zh = root(await (await get("/zh/create")).text());
    expect(zh).toContain('<p class="page-loading__text">載入中…</p>');
    expect(zh).toContain("Tidings 需要 JavaScript 才能運作");
    // The home page's says what its own overlay then says, so one follows the other unchanged.
    expect(root(await (await get("/en")).text())).toContain(
      '<p class="page-loading__text">Loading message bottles…</p>',
    );
    const missing = root(await (await get("/en/nope")).text());
    expect(missing).toContain('<p class="page-loading__text">Loading…</p>');
    expect(missing).toContain("Tidings needs JavaScript to run.");
  });

  test("unknown paths answer 404 with the app (which shows the not-found page)", async () => {
    for (const path of ["/nope", "/en/nope", "/zh/faq/more", "/fr", "/trpcx"]) {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  test("other methods than GET are refused on pages", async () => {
    const response = await fetch(`${server.url}/en`, { method: "POST", body: "x" });
    expect(response.status).toBe(405);
  });
});

/** The scripts a page names for its start script to fetch, the app's first. */
const appScriptsOf = (html: string): string[] =>
  JSON.parse(
    /<script type="application\/json" id="app-scripts">([^<]*)<\/script>/.exec(html)?.[1] ?? "[]",
  );

describe("assets", () => {
  test("hashed assets are served immutable, and revalidate by ETag", async () => {
    const html = await (await get("/en")).text();
    const script = appScriptsOf(html)[0];
    const style = /<link rel="stylesheet" crossorigin href="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/.+-[a-z0-9]+\.js$/);
    expect(style).toMatch(/^\/.+-[a-z0-9]+\.css$/);
    const js = await get(script ?? "");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.headers.get("set-cookie")).toBeNull();
    const again = await get(script ?? "", { "If-None-Match": js.headers.get("etag") ?? "" });
    expect(again.status).toBe(304);
  });

  test("scripts and styles go gzipped to clients that take gzip, plain to others", async () => {
    const script = appScriptsOf(await (await get("/en")).text())[0] ?? "";
    const fetchAs = (encoding: string) =>
      fetch(`${server.url}${script}`, {
        headers: { "Accept-Encoding": encoding },
        decompress: false,
      });
    const plain = await fetchAs("identity");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    const body = new Uint8Array(await plain.arrayBuffer());
    const zipped = await fetchAs("br, gzip");
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const compressed = new Uint8Array(await zipped.arrayBuffer());
    expect(compressed.byteLength).toBeLessThan(body.byteLength / 2);
    expect(Bun.gunzipSync(compressed)).toEqual(body);
    const refused = await fetchAs("gzip;q=0, deflate");
    expect(refused.headers.get("content-encoding")).toBeNull();
    expect(new Uint8Array(await refused.arrayBuffer())).toEqual(body);
  });

  test("pages are revalidated rather than cached", async () => {
    expect((await get("/en")).headers.get("cache-control")).toBe("no-cache");
  });
});

describe("security headers", () => {
  test("every kind of response carries them", async () => {
    const html = await (await get("/en")).text();
    const script = /src="([^"]+\.js)"/.exec(html)?.[1] ?? "";
    for (const path of ["/en", "/nope", "/", "/faq", "/healthz", script, "/trpc/contact.send"]) {
      const response = await get(path);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
  });

  test("the page has no inline script that would need unsafe-inline", async () => {
    const html = await (await get("/en")).text();
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((m) => m[1] ?? "");
    // The only script elements without src hold JSON data, which browsers never run.
    expect(inline).toEqual([
      ' type="application/json" id="site-config"',
      ' type="application/json" id="app-scripts"',
    ]);
  });
});

describe("page head", () => {
  const preloads = async (path: string) => appScriptsOf(await (await get(path)).text());

  test("the app's scripts wait for the first paint: the page names them for its start script", async () => {
    const html = await (await get("/en/discover")).text();
    // Nothing in the HTML fetches a module before the page is painted…
    expect(html).not.toMatch(/type="module"|rel="modulepreload"/);
    // …but the one deferred start script, served from here, which asks for the listed ones.
    const start = /<script defer src="(\/start-[^"]+\.js)"><\/script>/.exec(html)?.[1] ?? "";
    const response = await get(start);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("javascript");
    const body = await response.text();
    expect(body).toContain("app-scripts");
    expect(body).toContain("modulepreload");
    const [app] = await preloads("/en/discover");
    expect((await get(app ?? "")).headers.get("content-type")).toContain("javascript");
  });

  test("each page asks early for its own language's dictionary, and only that one", async () => {
    const en = await preloads("/en/faq");
    const zh = await preloads("/zh/faq");
    const onlyEn = en.filter((path) => !zh.includes(path));
    const onlyZh = zh.filter((path) => !en.includes(path));
    expect(onlyEn).toHaveLength(1);
    expect(onlyZh).toHaveLength(1);
    for (const path of [...onlyEn, ...onlyZh]) expect((await get(path)).status).toBe(200);
    expect(await (await get(onlyZh[0] ?? "")).text()).toContain("常見問題");
  });

  test("a page names its own scripts up front, and another page's are not named", async () => {
    const home = new Set(await preloads("/en"));
    const discover = new Set(await preloads("/en/discover"));
    const chat = new Set(await preloads("/en/random-chat"));
    const own = (page: Set<string>) => [...page].filter((path) => !home.has(path));
    // Each names chunks the home page does not load, served as scripts.
    expect(own(chat).length).toBeGreaterThan(0);
    const pageOnly = own(discover).filter((path) => !chat.has(path));
    expect(pageOnly.length).toBeGreaterThan(0);
    for (const path of pageOnly) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("javascript");
    }
    // The discover page's own module (its heading's words live in the dictionary, its class
    // names in its chunk) is among them.
    const bodies = await Promise.all(pageOnly.map(async (path) => (await get(path)).text()));
    expect(bodies.some((body) => body.includes("discover"))).toBe(true);
  });

  test("a page arrives compressed, with its heading and introduction before any script", async () => {
    const zipped = await get("/en/random-chat", { "accept-encoding": "gzip" });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toContain("Accept-Encoding");
    const html = await zipped.text();
    expect(html).toContain('<h1 class="page-intro__title">Random Chat</h1>');
    expect(html).toContain("Only your countries are shown.");
    const zh = await (await get("/zh/discover")).text();
    expect(zh).toContain('<h1 class="page-intro__title">尋找瓶子</h1>');
    // Pages whose first lines depend on who is looking keep the loading screen alone.
    expect(await (await get("/en/moderation")).text()).not.toContain("page-intro");
  });

  test("with analytics configured, pages load its script and the CSP allows it", async () => {
    const withStats = await startTestServer({
      ANALYTICS_SCRIPT_URL: "https://stats.example.org/js/script.js",
      ANALYTICS_SITE_ID: "site-42",
      PUBLIC_ORIGIN: "https://tidings.example.org",
    });
    try {
      const response = await fetch(`${withStats.url}/en`);
      const html = await response.text();
      expect(html).toContain(
        `<script defer src="https://stats.example.org/js/script.js" data-domain="tidings.example.org" data-website-id="site-42"></script>`,
      );
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/script-src 'self' https:\/\/stats\.example\.org/);
    } finally {
      await withStats.close();
    }
    expect(await (await get("/en")).text()).not.toContain("stats.example.org");
  });
});

describe("visitor cookie", () => {
  test("a new visitor gets an HttpOnly cookie of 128 random bits and their MAC; a known one keeps it", async () => {
    const first = await get("/en");
    const cookie = first.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      /^visitor=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
    );
    const value = cookie.split(";")[0] ?? "";
    const second = await get("/en", { Cookie: value });
    expect(second.headers.get("set-cookie")).toBeNull();
  });
});
