import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ipKey } from "../../src/core/limits/ip-key.ts";
import { chatTester, isType, listening, pairListening } from "../helpers/chat-client.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { eventually } from "../helpers/eventually.ts";
import { parseMetrics, type Sample, sampled, scrape } from "../helpers/metrics.ts";
import {
  bottleInput,
  bottleWriter,
  CookieJar,
  failure,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// What an operator graphs: a scrape of a running site after real traffic, as Prometheus takes it.
const TOKEN = "a-scrape-token-for-the-test";
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true", METRICS_PORT: "0", METRICS_TOKEN: TOKEN });
});
afterAll(() => server.close());

const metricsUrl = () => `${server.app.metricsUrl?.toString().replace(/\/$/, "")}/metrics`;

let addresses = 0;
const nextAddress = () => `100.90.0.${++addresses}`;
function browser(address = nextAddress()) {
  const jar = new CookieJar();
  return { jar, address, api: trpcClient(server.url, { "X-Forwarded-For": address }, jar) };
}

/** Real traffic: bottles thrown, found and reported, a chat with a flood, refusals. */
async function traffic() {
  const writer = browser();
  await writer.api.bottles.confirmAge.mutate({ atLeast13: true });
  const { id } = await writer.api.bottles.throw.mutate(bottleInput("A bottle to be measured"));
  await browser().api.bottles.discover.query();
  const reporter = browser();
  await reporter.api.auth.signUp.mutate({ username: "metric_reader", password: "long-enough-pw" });
  await reporter.api.bottles.report.mutate({ bottleId: id, reason: "spam" });

  const a = await listening(chatTester(server.url, { address: nextAddress() }));
  const b = await listening(chatTester(server.url, { address: nextAddress() }));
  await pairListening(a, b);
  const message = await a.api.chat.send.mutate({ content: "hello from the metrics test" });
  await b.waitFor((e) => e.type === "message" && e.message.id === message.id);
  await b.api.chat.report.mutate({ messageId: message.id, reason: "harassment" });
  // Past the flood limit's burst: some are refused.
  // (Seven at a time: a frame holds at most ten calls.)
  const flood = [];
  for (const round of [0, 1]) {
    flood.push(
      ...(await Promise.allSettled(
        Array.from({ length: 7 }, (_, i) =>
          a.api.chat.send.mutate({ content: `flood ${round * 7 + i}` }),
        ),
      )),
    );
  }
  expect(flood.some((r) => r.status === "rejected")).toBe(true);
  // The safety gate not answered: refused for age.
  const stranger = chatTester(server.url, { address: nextAddress() });
  expect((await failure(stranger.api.chat.start.mutate())).data.appCode).toBe(
    "AGE_CONFIRMATION_REQUIRED",
  );
  // A bottle with contact details is refused for them.
  await failure(writer.api.bottles.throw.mutate(bottleInput("write me at someone@example.org")));
  return {
    testers: [a, b, stranger],
    ids: [a.visitorId, b.visitorId, stranger.visitorId],
    addresses: Array.from({ length: addresses }, (_, i) => `100.90.0.${i + 1}`),
  };
}

describe("a scrape of a running site", () => {
  let samples: Sample[];
  let seen: Awaited<ReturnType<typeof traffic>>;
  beforeAll(async () => {
    seen = await traffic();
    samples = await scrape(metricsUrl(), TOKEN);
  });
  afterAll(() => {
    for (const t of seen.testers) t.close();
  });

  test("counts requests by route and status, and calls by procedure and status, with times", () => {
    expect(
      sampled(samples, "tidings_http_requests_total", { route: "trpc", status: "200" }),
    ).toBeGreaterThan(0);
    expect(
      sampled(samples, "tidings_http_requests_total", { route: "websocket", status: "101" }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sampled(samples, "tidings_http_request_duration_seconds_count", { route: "trpc" }),
    ).toBeGreaterThan(0);
    expect(
      sampled(samples, "tidings_procedure_calls_total", {
        procedure: "bottles.throw",
        status: "200",
      }),
    ).toBe(1);
    expect(
      sampled(samples, "tidings_procedure_calls_total", {
        procedure: "bottles.throw",
        status: "422",
      }),
    ).toBe(1);
    expect(
      sampled(samples, "tidings_procedure_duration_seconds_bucket", {
        procedure: "chat.send",
        le: "+Inf",
      }),
    ).toBeGreaterThanOrEqual(15);
  });

  test("counts the chat: sockets, visitors waiting and chatting, starts, matches and their wait, messages", () => {
    expect(sampled(samples, "tidings_websocket_connections")).toBe(3);
    expect(sampled(samples, "tidings_chat_visitors", { state: "chatting" })).toBe(2);
    expect(sampled(samples, "tidings_chat_visitors", { state: "waiting" })).toBe(0);
    expect(sampled(samples, "tidings_chat_starts_total")).toBe(2);
    // The first waited for the second; the second was paired at once: two visitors paired.
    expect(sampled(samples, "tidings_chat_matches_total")).toBe(2);
    expect(sampled(samples, "tidings_chat_match_wait_seconds_count")).toBe(2);
    const relayed = sampled(samples, "tidings_chat_messages_relayed_total") ?? 0;
    expect(relayed).toBeGreaterThanOrEqual(2);
    expect(relayed).toBeLessThan(15);
  });

  test("counts refusals by rule, reports filed and the open queue", () => {
    expect(sampled(samples, "tidings_refusals_total", { rule: "flood_gate" })).toBeGreaterThan(0);
    expect(sampled(samples, "tidings_refusals_total", { rule: "age" })).toBe(1);
    expect(sampled(samples, "tidings_refusals_total", { rule: "contact_details" })).toBe(1);
    expect(sampled(samples, "tidings_reports_filed_total", { kind: "bottle" })).toBe(1);
    expect(sampled(samples, "tidings_reports_filed_total", { kind: "chat" })).toBe(1);
    expect(sampled(samples, "tidings_reports_open")).toBe(2);
  });

  test("times database queries, and has the process's memory, CPU and event-loop lag", () => {
    expect(
      sampled(samples, "tidings_db_query_duration_seconds_count", { outcome: "ok" }),
    ).toBeGreaterThan(0);
    for (const name of [
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
      "nodejs_eventloop_lag_seconds",
      "nodejs_eventloop_lag_p99_seconds",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(sampled(samples, name), name).toBeGreaterThanOrEqual(0);
    }
  });

  test("no label carries a visitor id, an address or an address's hash", () => {
    const secret = server.app.services.config.secret;
    const forbidden = [
      ...seen.ids,
      ...seen.addresses,
      ...seen.addresses.map((address) => ipKey(secret, address)),
    ];
    const labelNames = new Set<string>();
    for (const sample of samples) {
      for (const [name, value] of Object.entries(sample.labels)) {
        labelNames.add(name);
        for (const bad of forbidden) expect(value).not.toContain(bad);
      }
    }
    // Only bounded label sets: route kinds, procedures, statuses, rules, kinds, states, outcomes
    // and the histograms' buckets (and prom-client's own process labels).
    const allowed = ["route", "status", "procedure", "rule", "kind", "state", "outcome", "le"];
    const processLabels = ["space", "type", "version", "major", "minor", "patch", "quantile"];
    for (const name of labelNames) expect([...allowed, ...processLabels]).toContain(name);
    const procedures = new Set(
      samples.flatMap((s) => (s.labels.procedure ? [s.labels.procedure] : [])),
    );
    for (const p of procedures) expect(p).toMatch(/^[a-z]+\.[A-Za-z]+$/);
  });
});

describe("metrics stay off the public internet", () => {
  test("on the site's own port only to the bearer token", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${server.url}/metrics`, {
      headers: { Authorization: "Bearer not-the-token-at-all-no" },
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${server.url}/metrics`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(right.status).toBe(200);
    expect(parseMetrics(await right.text()).length).toBeGreaterThan(10);
  });

  test("the metrics port listens on 127.0.0.1 only, and asks for the token too when one is set", async () => {
    expect(server.app.metricsUrl?.hostname).toBe("127.0.0.1");
    expect((await fetch(metricsUrl())).status).toBe(401);
  });

  test("a site with neither METRICS_PORT nor METRICS_TOKEN serves no metrics at all", async () => {
    const plain = await startTestServer();
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
      expect(plain.app.metricsUrl).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe("a real Prometheus", () => {
  test("scrapes the running site and holds the series", async () => {
    const prometheus = Bun.which("prometheus") ?? Bun.which("/usr/bin/prometheus");
    if (!prometheus) {
      throw new Error("Debian's prometheus is not installed: ./scripts/test installs it");
    }
    const dir = mkdtempSync(join(tmpdir(), "tidings-prometheus-"));
    writeFileSync(join(dir, "token"), TOKEN);
    // The README's own scrape config, as an operator copies it: only the addresses and the
    // token file are this test's (and plain HTTP, and a scrape a second, to finish soon).
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### Metrics and health"));
    const written = /```yaml\n(scrape_configs:[\s\S]*?)```/.exec(section)?.[1];
    if (!written) throw new Error("the README's Metrics and health section has no scrape config");
    const config = written
      .replaceAll("/etc/prometheus/tidings-token", join(dir, "token"))
      .replaceAll("127.0.0.1:9464", new URL(metricsUrl()).host)
      .replaceAll("tidings.example.org", new URL(server.url).host)
      .replaceAll("scheme: https", "scheme: http")
      .replaceAll("scrape_interval: 15s", "scrape_interval: 1s");
    writeFileSync(join(dir, "prometheus.yml"), config);
    const listen = Bun.serve({ port: 0, fetch: () => new Response() });
    const port = listen.port;
    listen.stop(true);
    const child = Bun.spawn(
      [
        prometheus,
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdout: "ignore", stderr: "pipe" },
    );
    try {
      const query = async (expr: string) => {
        const response = await fetch(
          `http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(expr)}`,
        ).catch(() => null);
        if (!response?.ok) return [];
        const body = (await response.json()) as {
          data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
        };
        return body.data.result;
      };
      // Prometheus scrapes every second; wait for its first scrape to land (bounded).
      // Both of the README's jobs: the metrics port and the site's own, each with the token.
      const up = await eventually(
        async () => {
          const found = (await query("up == 1")).filter((r) => r.value[1] === "1");
          return found.length === 2 ? found : null;
        },
        "Prometheus's first scrape of both jobs",
        30_000,
      );
      expect(up.map((r) => r.metric.job).sort()).toEqual(["tidings", "tidings-site"]);
      const starts = await query('tidings_chat_starts_total{job="tidings"}');
      expect(starts.map((r) => Number(r.value[1]))).toEqual([2]);
      const throws = await query(
        'tidings_procedure_calls_total{job="tidings",procedure="bottles.throw"}',
      );
      expect(throws.map((r) => r.metric.status).sort()).toEqual(["200", "422"]);
      expect(
        (await query('tidings_chat_match_wait_seconds_count{job="tidings"}'))[0]?.value[1],
      ).toBe("2");
    } finally {
      child.kill();
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("liveness and readiness", () => {
  test("live answers while the process does; ready says what it checked", async () => {
    const live = await fetch(`${server.url}/healthz/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${server.url}/healthz/ready`);
    expect(ready.status).toBe(200);
    const checks = ((await ready.json()) as { checks: Record<string, string> }).checks;
    expect(checks.database).toBe("ok");
    expect(checks.serving).toBe("ok");
    // The old /healthz stays as it was.
    expect(await (await fetch(`${server.url}/healthz`)).json()).toMatchObject({ ok: true });
  });

  test("draining: ready answers 503 while everything else is still served", async () => {
    const site = await startTestServer({ SHUTDOWN_DRAIN: "0s" });
    try {
      await site.app.drain();
      const ready = await fetch(`${site.url}/healthz/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        ready: false,
        checks: { database: "ok", serving: "shutting down" },
      });
      expect((await fetch(`${site.url}/healthz/live`)).status).toBe(200);
      const visitor = await bottleWriter(site.url);
      expect((await visitor.bottles.throw.mutate(bottleInput("Still served"))).id).toBeGreaterThan(
        0,
      );
    } finally {
      await site.close();
    }
  });

  test("a database migrated by an older version is not ready", async () => {
    const site = await startTestServer();
    try {
      const { db } = site.app.services;
      const { sql } = await import("kysely");
      await sql`DELETE FROM kysely_migration WHERE name = (SELECT max(name) FROM kysely_migration)`.execute(
        db,
      );
      const ready = await fetch(`${site.url}/healthz/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { database: string } }).checks.database).toBe(
        "migrations pending",
      );
    } finally {
      await site.close();
    }
  });
});

describe("the wait to be paired", () => {
  test("is measured from start answering waiting to the matched event", async () => {
    const clock = new VirtualClock();
    const site = await startTestServer({ TRUST_PROXY: "true", METRICS_TOKEN: TOKEN }, { clock });
    try {
      const a = await listening(chatTester(site.url, { address: "100.91.0.1" }));
      const b = await listening(chatTester(site.url, { address: "100.91.0.2" }));
      expect(await a.start()).toEqual({ state: "waiting" });
      clock.jump(7000);
      expect((await b.start()).state).toBe("chatting");
      await a.waitFor(isType("matched"));
      const samples = await scrape(`${site.url}/metrics`, TOKEN);
      // The first waited the 7 s until the second came; the second was paired at once.
      expect(sampled(samples, "tidings_chat_match_wait_seconds_sum")).toBe(7);
      expect(sampled(samples, "tidings_chat_match_wait_seconds_bucket", { le: "0.01" })).toBe(1);
      expect(sampled(samples, "tidings_chat_match_wait_seconds_bucket", { le: "5" })).toBe(1);
      expect(sampled(samples, "tidings_chat_match_wait_seconds_bucket", { le: "10" })).toBe(2);
      a.close();
      b.close();
    } finally {
      await site.close();
    }
  });
});
