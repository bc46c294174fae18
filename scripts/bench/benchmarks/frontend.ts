/**
 * The front end: what a first load of /en fetches (the compressed JS and CSS, as Chromium
 * requested them) against the smallest React app bundled the same way, and, in headless
 * Chromium, each from a fresh browser context (nothing cached), first contentful paint of /en
 * and /zh (the loading screen the server sends) and the app's first render painted (the page
 * itself), against a static HTML page as large as the document /en builds, which paints without
 * script.
 */
import { join, relative } from "node:path";
import { chromium } from "@playwright/test";
import { webBuildOptions } from "../../../src/server/assets.ts";
import {
  appServer,
  BENCH_DIR,
  CHROMIUM_ARGS,
  ROOT,
  round,
  startServer,
  withServers,
  workFolder,
} from "../lib.ts";
import {
  type Benchmark,
  fmt,
  median,
  type Row,
  ratioOf,
  type Section,
  type Size,
  yes,
} from "../section.ts";

type Sampled = { median: number; samples: number[] };

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

async function measureFrontend(appUrl: string, samples: number) {
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
    const assets: Array<{ path: string; bytes: number; gzip: number }> = [];
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

    const summary = (values: number[]) => ({
      median: round(median(values), 0),
      samples: values.map((v) => round(v, 0)),
    });
    const fcp: Record<string, Sampled> = {};
    const appPaint: Record<string, Sampled> = {};
    for (const prefix of ["en", "zh"]) {
      const painted: Awaited<ReturnType<typeof paint>>[] = [];
      for (let i = 0; i < samples; i++) painted.push(await paint(`${appUrl}/${prefix}`));
      fcp[`/${prefix}`] = summary(painted.map((p) => p.fcp));
      appPaint[`/${prefix}`] = summary(painted.map((p) => p.appPainted));
    }

    // The same page as static HTML: as large as the document /en builds in the browser.
    const staticPage = await startServer("raw-static.ts", { STATIC_BYTES: String(first.domBytes) });
    let baselineFcp: Sampled;
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

async function run(size: Size): Promise<Section> {
  const samples = { full: 5, quick: 3, smoke: 1 }[size];
  const r = await withServers([appServer(workFolder("frontend"))], ([app]) =>
    measureFrontend(app.url, samples),
  );
  const kb = (bytes: number) => (bytes / 1000).toFixed(1);
  const rows: Row[] = [
    {
      benchmark: "Front end: gzip of the JS and CSS the first load of /en fetches (KB)",
      ours: kb(r.gzipTotal),
      baseline: `${kb(r.baselineGzip)} (smallest React app)`,
      ratio: ratioOf(r.gzipTotal, r.baselineGzip).toFixed(1),
      goal: "≤ 200 KB",
      met: yes(r.gzipTotal <= 200_000),
    },
  ];
  for (const [what, painted, byPage] of [
    ["First contentful paint of", "", r.fcp],
    ["The app's first render of", " painted", r.appPaint],
  ] as const) {
    for (const [page, { median: middle }] of Object.entries(byPage)) {
      rows.push({
        benchmark: `${what} ${page}${painted}, headless Chromium (ms)`,
        ours: fmt(middle),
        baseline: `${fmt(r.baselineFcp.median)} (static page of the same size)`,
        ratio: ratioOf(middle, r.baselineFcp.median).toFixed(1),
      });
    }
  }
  return {
    title: "Front end",
    rows,
    notes: [
      `First load of /en: ${r.assets.length} files, ${kb(r.rawTotal)} KB minified, ${kb(r.gzipTotal)} KB as the server sends them gzipped (made at build time); largest: ${[
        ...r.assets,
      ]
        .sort((a, b) => b.gzip - a.gzip)
        .slice(0, 5)
        .map((a) => `${a.path} ${kb(a.bytes)} KB (${kb(a.gzip)} KB gzip)`)
        .join(
          ", ",
        )}. HTML ${kb(r.htmlBytes)} KB, ${kb(r.domBytes)} KB once rendered (the size of the static baseline page).`,
      `The first load's scripts by package, minified bytes before gzip (metafile of the same build): ${r.composition
        .slice(0, 12)
        .map((c) => `${c.name} ${kb(c.bytes)} KB`)
        .join(
          ", ",
        )}. Left for later (other pages, the other language, the header menus' Radix code): ${kb(r.deferredBytes)} KB of script.`,
      `FCP samples (ms), each from a fresh browser context: ${Object.entries(r.fcp)
        .map(([page, f]) => `${page} ${f.samples.join(", ")}`)
        .join("; ")}; static page ${r.baselineFcp.samples.join(", ")}.`,
      `First contentful paint is the loading screen the server sends in the page (in its language), painted before any script has run; the app's first render, which replaces it, is timed from the commit that removes it to the end of the next frame. Samples (ms): ${Object.entries(
        r.appPaint,
      )
        .map(([page, f]) => `${page} ${f.samples.join(", ")}`)
        .join("; ")}.`,
    ],
  };
}

export const frontend: Benchmark = { name: "frontend", run };
