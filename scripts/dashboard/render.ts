/**
 * Draws the Grafana dashboard's panels from a real run, as far as this machine can: Grafana
 * itself is not in Debian's packages, so this starts the site (METRICS_PORT), has Debian's
 * Prometheus scrape it every second, puts about a minute of load on it (bottles thrown and
 * found over HTTP, visitors paired and chatting over WebSockets, a few refused), then asks
 * Prometheus for each panel's own PromQL expression from ops/grafana-dashboard.json over the
 * run, draws the series with Vega-Lite to SVG and has Chromium turn that into a PNG.
 *
 *   bun scripts/dashboard/render.ts [seconds=60] [out=ops/dashboard-panels.png]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, createWSClient, httpLink, wsLink } from "@trpc/client";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { AppRouter } from "../../src/server/trpc/routers/index.ts";
import { signedVisitorId, visitorKey } from "../../src/server/visitor-id.ts";

const root = join(import.meta.dir, "..", "..");
const seconds = Number(process.argv[2] ?? 60);
const out = process.argv[3] ?? join(root, "ops", "dashboard-panels.png");
const work = mkdtempSync(join(tmpdir(), "tidings-dashboard-"));

const freePort = () => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port;
};

/** The site's SECRET, so the simulated visitors send cookies it signed. */
const SECRET = "dashboard-render-secret-0123456789abcdef";
const visitorCookie = (id: string) => `visitor=${signedVisitorId(visitorKey(SECRET), id)}`;

// The site, as an operator runs it, with its metrics port.
const metricsPort = freePort();
const site = Bun.spawn(["bun", "src/server/main.ts"], {
  cwd: root,
  env: {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: join(work, "data"),
    METRICS_PORT: String(metricsPort),
    TRUST_PROXY: "true",
    LOG_FORMAT: "off",
    SHUTDOWN_DRAIN: "0s",
    // Its load calls the API as a script would (throws and chat starts without proof of work).
    POW: "false",
    SECRET,
    BACKUP_EVERY: "1m",
  },
  stdout: "pipe",
  stderr: "inherit",
});
const url = await (async () => {
  const reader = site.stdout.getReader();
  let seen = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the site did not start: ${seen}`);
    seen += new TextDecoder().decode(value);
    const match = /listening on (http:\/\/\S+)/.exec(seen);
    if (match?.[1]) return match[1].replace("localhost", "127.0.0.1");
  }
})();

// Debian's Prometheus, scraping every second into a folder of its own.
const promPort = freePort();
writeFileSync(
  join(work, "prometheus.yml"),
  `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: tidings\n    static_configs:\n      - targets: ["127.0.0.1:${metricsPort}"]\n`,
);
const prometheus = Bun.spawn(
  [
    "prometheus",
    `--config.file=${join(work, "prometheus.yml")}`,
    `--storage.tsdb.path=${join(work, "tsdb")}`,
    `--web.listen-address=127.0.0.1:${promPort}`,
  ],
  { stdout: "ignore", stderr: "ignore" },
);

let address = 0;
const nextAddress = () => `198.18.${Math.floor(++address / 250)}.${(address % 250) + 1}`;
const visitorId = (i: number) => `load${String(i).padStart(6, "0")}${"x".repeat(12)}`.slice(0, 22);

let httpClients = 0;
function httpClient() {
  const headers = {
    Origin: url,
    "X-Forwarded-For": nextAddress(),
    Cookie: visitorCookie(visitorId(900_000 + ++httpClients)),
  };
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/trpc`, headers })] });
}

function chatClient(i: number) {
  const headers = {
    Origin: url,
    Cookie: visitorCookie(visitorId(i)),
    "X-Forwarded-For": nextAddress(),
  };
  class HeaderedWebSocket extends WebSocket {
    constructor(target: string | URL) {
      super(target, { headers } as unknown as string[]);
    }
  }
  const client = createWSClient({
    url: `${url.replace(/^http/, "ws")}/trpc`,
    WebSocket: HeaderedWebSocket as unknown as typeof WebSocket,
  });
  const api = createTRPCClient<AppRouter>({ links: [wsLink({ client })] });
  return { api, client };
}

/** About a minute of a small site's day. */
async function load(): Promise<void> {
  const until = Date.now() + seconds * 1000;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const writers = Array.from({ length: 30 }, httpClient);
  const readers = Array.from({ length: 60 }, httpClient);
  const bottles = (async () => {
    let n = 0;
    while (Date.now() < until) {
      const writer = writers[n % writers.length];
      await writer?.bottles.throw
        .mutate({
          message: `A bottle from the load run, number ${n}`,
          driftHours: 0,
          isPublic: n % 3 === 0,
          expiryDays: 7,
          timeZone: "UTC",
          locale: "en",
        })
        .catch(() => {});
      // Each reader looks about every 6 s, well inside discover's limit.
      for (let r = 0; r < 3; r++) {
        await readers[(n * 3 + r) % readers.length]?.bottles.discover.query().catch(() => {});
      }
      n += 1;
      await sleep(300);
    }
  })();
  // Visitors arrive in waves, wait to be paired, chat for a while, leave; some send too fast.
  let index = 0;
  const chats = Array.from({ length: 12 }, async (_, lane) => {
    await sleep(lane * 1500);
    while (Date.now() < until) {
      const pair = [chatClient(++index), chatClient(++index)];
      const streams = pair.map(({ api }) => api.chat.events.subscribe(undefined, { onData() {} }));
      try {
        for (const { api } of pair) await api.chat.confirmAge.mutate({ adult: true });
        await pair[0]?.api.chat.start.mutate();
        await sleep(200 + Math.random() * 2500);
        await pair[1]?.api.chat.start.mutate();
        const talk = 5 + Math.floor(Math.random() * 20);
        for (let m = 0; m < talk && Date.now() < until; m++) {
          const speaker = pair[m % 2];
          await speaker?.api.chat.send
            .mutate({ content: `message ${m} of a load chat` })
            .catch(() => {});
          await sleep(150 + Math.random() * 400);
        }
        if (lane === 1) {
          // A partner reports the last message: the queue grows.
          const last = await pair[0]?.api.chat.send
            .mutate({ content: "buy followers cheap" })
            .catch(() => undefined);
          if (last)
            await pair[1]?.api.chat.report
              .mutate({ messageId: last.id, reason: "spam" })
              .catch(() => {});
        }
        if (lane === 0) {
          // A flood: past the gate's burst, refused.
          await Promise.allSettled(
            Array.from({ length: 15 }, (_, f) =>
              pair[0]?.api.chat.send.mutate({ content: `flood ${f}` }),
            ),
          );
        }
        await pair[0]?.api.chat.end.mutate().catch(() => {});
      } catch {
        // A refusal ends this pair; the lane starts another.
      } finally {
        for (const s of streams) s.unsubscribe();
        for (const { client } of pair) client.close();
      }
    }
  });
  await Promise.all([bottles, ...chats]);
}

interface Panel {
  title: string;
  fieldConfig?: { defaults?: { unit?: string } };
  targets: Array<{ expr: string; legendFormat?: string }>;
}

const dashboard = JSON.parse(readFileSync(join(root, "ops", "grafana-dashboard.json"), "utf8")) as {
  panels: Panel[];
};

async function queryRange(expr: string, start: number, end: number) {
  const params = new URLSearchParams({
    query: expr.replaceAll("$__rate_interval", "15s").replaceAll("$job", "tidings"),
    start: String(start),
    end: String(end),
    step: "2",
  });
  const response = await fetch(`http://127.0.0.1:${promPort}/api/v1/query_range?${params}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
  };
  if (body.status !== "success") throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}

const legend = (format: string | undefined, metric: Record<string, string>) =>
  (format ?? "{{__name__}}").replace(/\{\{\s*(\w+)\s*\}\}/g, (_, key: string) => metric[key] ?? "");

try {
  const started = Date.now() / 1000;
  await load();
  await Bun.sleep(3000); // the last scrapes
  const ended = Date.now() / 1000;
  const charts: TopLevelSpec[] = [];
  for (const panel of dashboard.panels.filter((p) => p.targets?.length)) {
    const rows: Array<{ t: number; value: number; series: string }> = [];
    for (const target of panel.targets) {
      for (const series of await queryRange(target.expr, started, ended)) {
        for (const [t, v] of series.values) {
          const value = Number(v);
          if (Number.isFinite(value)) {
            rows.push({
              t: t - started,
              value,
              series: legend(target.legendFormat, series.metric),
            });
          }
        }
      }
    }
    charts.push({
      title: { text: panel.title, anchor: "start", fontSize: 13 },
      width: 330,
      height: 150,
      data: { values: rows },
      mark: { type: "line", interpolate: "monotone" },
      encoding: {
        x: { field: "t", type: "quantitative", title: "seconds into the run" },
        y: {
          field: "value",
          type: "quantitative",
          title: panel.fieldConfig?.defaults?.unit ?? null,
        },
        color: {
          field: "series",
          type: "nominal",
          title: null,
          legend: { orient: "bottom", columns: 3, labelLimit: 160 },
        },
      },
    } as TopLevelSpec);
  }
  const columns = 3;
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: `Tidings: the dashboard's panels over a ${seconds} s load run (Prometheus data; drawn with Vega-Lite, not Grafana)`,
      fontSize: 15,
    },
    config: { font: "DejaVu Sans, sans-serif", view: { stroke: "#ddd" } },
    resolve: { scale: { color: "independent" }, legend: { color: "independent" } },
    vconcat: Array.from({ length: Math.ceil(charts.length / columns) }, (_, row) => ({
      hconcat: charts.slice(row * columns, row * columns + columns),
      resolve: { scale: { color: "independent" }, legend: { color: "independent" } },
    })),
  } as unknown as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  const svgFile = join(work, "panels.svg");
  writeFileSync(svgFile, svg);
  const width = Number(/width="(\d+(?:\.\d+)?)"/.exec(svg)?.[1] ?? 1200);
  const height = Number(/height="(\d+(?:\.\d+)?)"/.exec(svg)?.[1] ?? 900);
  const chromium = Bun.spawn(
    [
      process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      "--headless",
      "--no-sandbox",
      "--hide-scrollbars",
      `--window-size=${Math.ceil(width)},${Math.ceil(height)}`,
      `--screenshot=${out}`,
      `file://${svgFile}`,
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
  if ((await chromium.exited) !== 0) throw new Error("chromium could not draw the panels");
  const refused = await fetch(
    `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent('sum by (procedure, status) (tidings_procedure_calls_total{status!="200"})')}`,
  ).then(
    (r) =>
      r.json() as Promise<{
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      }>,
  );
  for (const r of refused.data.result) {
    console.log(`refused: ${r.metric.procedure} ${r.metric.status} × ${r.value[1]}`);
  }
  console.log(`${charts.length} panels over ${Math.round(ended - started)} s: ${out}`);
} finally {
  prometheus.kill();
  site.kill("SIGTERM");
  await Promise.all([prometheus.exited, site.exited]);
  rmSync(work, { recursive: true, force: true });
}
