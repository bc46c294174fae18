/**
 * Front-end measurements: the compressed JS and CSS a first visit to /en loads (as Chromium
 * requested them), and, in headless Chromium, each from a fresh browser context (nothing
 * cached), first contentful paint of /en and /zh (the loading screen the server sends) and the
 * app's first render painted (the page itself). Baselines: the smallest React app bundled the
 * same way, and a static HTML page as large as the document /en builds, which paints without
 * script.
 */
import { join, relative } from "node:path";
import { chromium } from "@playwright/test";
import { webBuildOptions } from "../../src/server/assets.ts";
import { BENCH_DIR, ROOT, round, startServer } from "./lib.ts";
import { median } from "./section.ts";

export interface Asset {
  path: string;
  bytes: number;
  gzip: number;
}

export interface FrontendResult {
  assets: Asset[];
  gzipTotal: number;
  rawTotal: number;
  htmlBytes: number;
  /** The size of the document /en has built once it has loaded (its outerHTML). */
  domBytes: number;
  baselineGzip: number;
  /** Minified bytes of the first load's scripts by package, largest first. */
  composition: Array<{ name: string; bytes: number }>;
  /** Minified bytes of the scripts no first load of /en fetches (other pages, languages, menus). */
  deferredBytes: number;
  fcp: Record<string, { median: number; samples: number[] }>;
  /** When the app's first render (which replaces the server's loading screen) was painted. */
  appPaint: Record<string, { median: number; samples: number[] }>;
  baselineFcp: { median: number; samples: number[] };
}

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** The smallest React app, minified and gzipped: the floor for any React front end. */
async function reactFloorGzip(): Promise<number> {
  const build = await Bun.build({
    entrypoints: [join(BENCH_DIR, "raw-react.tsx")],
    minify: true,
    target: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!build.success) throw new Error(build.logs.map(String).join("\n"));
  let total = 0;
  for (const output of build.outputs) {
    total += Bun.gzipSync(new Uint8Array(await output.arrayBuffer())).length;
  }
  return total;
}

/**
 * What the first load's scripts are made of: minified bytes by package (or by folder of our own
 * code), from the metafile of the same build the server serves; and the bytes left to later.
 */
async function composition(
  firstLoad: ReadonlySet<string>,
): Promise<{ parts: Array<{ name: string; bytes: number }>; deferredBytes: number }> {
  const build = await Bun.build({ ...webBuildOptions(), metafile: true });
  if (!build.success || !build.metafile) return { parts: [], deferredBytes: 0 };
  const meta = (
    typeof build.metafile === "string" ? JSON.parse(build.metafile) : build.metafile
  ) as {
    outputs: Record<string, { bytes: number; inputs?: Record<string, { bytesInOutput: number }> }>;
  };
  const groups = new Map<string, number>();
  let deferredBytes = 0;
  for (const [file, output] of Object.entries(meta.outputs)) {
    if (!file.endsWith(".js")) continue;
    if (!firstLoad.has(file.replace(/^\.\//, "/"))) {
      deferredBytes += output.bytes;
      continue;
    }
    for (const [path, info] of Object.entries(output.inputs ?? {})) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
      const name = pkg ?? `${relative(ROOT, path).split("/").slice(0, 3).join("/")}/`;
      groups.set(name, (groups.get(name) ?? 0) + info.bytesInOutput);
    }
  }
  const parts = [...groups]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  return { parts, deferredBytes };
}

export async function measureFrontend(appUrl: string, samples: number): Promise<FrontendResult> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
  try {
    const paint = async (url: string) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        // The app's first render replaces the loading screen the server sent in #root; the
        // frame after that commit is the one that paints it.
        await page.addInitScript(() => {
          const marks = window as unknown as { appPainted?: number };
          let screen: Element | null = null;
          new MutationObserver((_, observer) => {
            screen ??= document.querySelector("#root > .page-loading");
            if (!screen || screen.isConnected) return;
            observer.disconnect();
            requestAnimationFrame(() => {
              setTimeout(() => {
                marks.appPainted = performance.now();
              }, 0);
            });
          }).observe(document, { subtree: true, childList: true });
        });
        const requested: string[] = [];
        page.on("request", (request) => {
          const type = request.resourceType();
          if (type === "script" || type === "stylesheet") requested.push(request.url());
        });
        await page.goto(url, { waitUntil: "networkidle" });
        const fcp = await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              new PerformanceObserver((list) => {
                const entry = list.getEntriesByName("first-contentful-paint")[0];
                if (entry) resolve(entry.startTime);
              }).observe({ type: "paint", buffered: true });
              setTimeout(() => resolve(Number.NaN), 5000);
            }),
        );
        const domBytes = await page.evaluate(
          () => new TextEncoder().encode(document.documentElement.outerHTML).length,
        );
        const appPainted = await page.evaluate(
          () => (window as unknown as { appPainted?: number }).appPainted ?? Number.NaN,
        );
        return { fcp, appPainted, requested, domBytes };
      } finally {
        await context.close();
      }
    };

    // Warm the server (its first answers are slower) and learn what a first visit loads.
    const first = await paint(`${appUrl}/en`);
    const htmlBytes = (await (await fetch(`${appUrl}/en`)).arrayBuffer()).byteLength;
    const assets: Asset[] = [];
    for (const url of new Set(first.requested)) {
      const body = new Uint8Array(await (await fetch(url)).arrayBuffer());
      // As the server sends it to a browser that accepts gzip.
      const sent = await fetch(url, { headers: { "Accept-Encoding": "gzip" }, decompress: false });
      const gzipped = sent.headers.get("content-encoding") === "gzip";
      const sentBytes = (await sent.arrayBuffer()).byteLength;
      assets.push({
        path: new URL(url).pathname,
        bytes: body.length,
        gzip: gzipped ? sentBytes : Bun.gzipSync(body).length,
      });
    }
    const gzipTotal = assets.reduce((sum, a) => sum + a.gzip, 0);
    const rawTotal = assets.reduce((sum, a) => sum + a.bytes, 0);

    const fcp: FrontendResult["fcp"] = {};
    const appPaint: FrontendResult["appPaint"] = {};
    const summary = (values: number[]) => ({
      median: round(median(values), 0),
      samples: values.map((v) => round(v, 0)),
    });
    for (const prefix of ["en", "zh"]) {
      const painted: Awaited<ReturnType<typeof paint>>[] = [];
      for (let i = 0; i < samples; i++) painted.push(await paint(`${appUrl}/${prefix}`));
      fcp[`/${prefix}`] = summary(painted.map((p) => p.fcp));
      appPaint[`/${prefix}`] = summary(painted.map((p) => p.appPainted));
    }

    // The same page as static HTML: as large as the document /en builds in the browser.
    const staticPage = await startServer("raw-static.ts", { STATIC_BYTES: String(first.domBytes) });
    let baselineFcp: FrontendResult["baselineFcp"];
    try {
      await paint(staticPage.url);
      const values: number[] = [];
      for (let i = 0; i < samples; i++) values.push((await paint(staticPage.url)).fcp);
      baselineFcp = summary(values);
    } finally {
      await staticPage.stop();
    }
    return {
      assets,
      gzipTotal,
      rawTotal,
      htmlBytes,
      domBytes: first.domBytes,
      baselineGzip: await reactFloorGzip(),
      ...(await composition(new Set(assets.map((a) => a.path))).then((c) => ({
        composition: c.parts,
        deferredBytes: c.deferredBytes,
      }))),
      fcp,
      appPaint,
      baselineFcp,
    };
  } finally {
    await browser.close();
  }
}
