/**
 * The front end: what a first load of /en fetches (gzip of its JS and CSS) against the smallest
 * React app, and first contentful paint of /en and /zh in headless Chromium (the server's
 * loading screen) and the app's first render painted, against a static page of the same size.
 */

import { type FrontendResult, measureFrontend } from "../frontend.ts";
import { appServer, withServers, workFolder } from "../lib.ts";
import {
  type Benchmark,
  fmt,
  type Row,
  ratioOf,
  type Section,
  type Size,
  yes,
} from "../section.ts";

async function run(size: Size): Promise<Section> {
  const samples = { full: 5, quick: 3, smoke: 1 }[size];
  const r: FrontendResult = await withServers([appServer(workFolder("frontend"))], ([app]) => {
    if (!app) throw new Error("server missing");
    return measureFrontend(app.url, samples);
  });
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
  for (const [page, fcp] of Object.entries(r.fcp)) {
    rows.push({
      benchmark: `First contentful paint of ${page}, headless Chromium (ms)`,
      ours: fmt(fcp.median),
      baseline: `${fmt(r.baselineFcp.median)} (static page of the same size)`,
      ratio: ratioOf(fcp.median, r.baselineFcp.median).toFixed(1),
      goal: "—",
      met: "—",
    });
  }
  for (const [page, painted] of Object.entries(r.appPaint)) {
    rows.push({
      benchmark: `The app's first render of ${page} painted, headless Chromium (ms)`,
      ours: fmt(painted.median),
      baseline: `${fmt(r.baselineFcp.median)} (static page of the same size)`,
      ratio: ratioOf(painted.median, r.baselineFcp.median).toFixed(1),
      goal: "—",
      met: "—",
    });
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
