import { timingSafeEqual } from "node:crypto";
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type LabelValues,
  Registry,
} from "prom-client";
import type { AppErrorCode } from "../common/errors.ts";
import type { BrokerCounts, ChatBroker } from "../core/chat/broker.ts";

/**
 * What an operator graphs, in Prometheus's text format through prom-client. Every label comes
 * from a bounded set (route kinds, procedure names from the router, status codes, rule names
 * from the error codes); none ever carries a visitor id, an address or its hash.
 */

/** prom-client's process metrics (memory, CPU, event-loop lag), one set per process. */
let processMetrics: Registry | undefined;
function defaults(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** The kinds of HTTP request, as the request metrics and log name them. */
export type RouteKind =
  | "trpc"
  | "websocket"
  | "page"
  | "asset"
  | "redirect"
  | "health"
  | "metrics"
  | "other";

/** A refusal's rule, from its error code: what an operator watches for abuse. */
export function refusalRule(code: AppErrorCode, procedure: string): string | null {
  switch (code) {
    case "RATE_LIMITED":
      // A chat message refused for its pace is the chat's flood limit.
      return procedure === "chat.send" ? "flood_gate" : "rate_limit";
    case "SPAM_REPEATED":
      return "spam";
    case "CONTENT_HAS_CONTACT":
      return "contact_details";
    case "CHAT_BANNED":
      return "ban";
    case "AGE_REFUSED":
    case "AGE_CONFIRMATION_REQUIRED":
      return "age";
    case "CONTENT_REJECTED":
      return "moderation";
    case "FEATURE_RESTING":
      return "resting";
    default:
      return null;
  }
}

export interface MetricSources {
  chatCounts(): Promise<BrokerCounts>;
  openReports(): Promise<number>;
  /** Files in BACKUP_DIR named or dated after now (SQLite sites). */
  futureSnapshots?: () => number;
  /** Redis's round trip in seconds (cluster mode), or a failure. */
  redisPing?: () => Promise<number>;
}

/** A scrape never waits long on what it reads, and never fails for it: NaN is the answer. */
const SOURCE_TIMEOUT_MS = 1000;
async function settled<T>(read: (() => Promise<T>) | undefined): Promise<T | null> {
  if (!read) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), SOURCE_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class SiteMetrics {
  readonly #own = new Registry();
  registry: Registry;
  #sources: MetricSources | undefined;

  readonly httpRequests = new Counter({
    name: "tidings_http_requests_total",
    help: "HTTP requests answered, by kind of route and status.",
    labelNames: ["route", "status"] as const,
    registers: [this.#own],
  });
  readonly httpDuration = new Histogram({
    name: "tidings_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by kind of route.",
    labelNames: ["route"] as const,
    buckets: seconds,
    registers: [this.#own],
  });
  readonly #callSeries = new Map<
    string,
    { calls: { inc(): void }; duration: { observe(seconds: number): void } }
  >();
  readonly calls = new Counter({
    name: "tidings_procedure_calls_total",
    help: "tRPC procedure calls (HTTP and WebSocket), by procedure and HTTP status.",
    labelNames: ["procedure", "status"] as const,
    registers: [this.#own],
  });
  readonly callDuration = new Histogram({
    name: "tidings_procedure_duration_seconds",
    help: "Time a tRPC procedure took, by procedure (a subscription: until its stream opens).",
    labelNames: ["procedure"] as const,
    buckets: seconds,
    registers: [this.#own],
  });
  readonly refusals = new Counter({
    name: "tidings_refusals_total",
    help: "Calls refused by a rule: flood_gate, rate_limit, spam, contact_details, ban, age, moderation, resting.",
    labelNames: ["rule"] as const,
    registers: [this.#own],
  });
  readonly websockets = new Gauge({
    name: "tidings_websocket_connections",
    help: "WebSocket connections open on this instance.",
    registers: [this.#own],
  });
  readonly messagesRelayed = new Counter({
    name: "tidings_chat_messages_relayed_total",
    help: "Chat messages accepted and relayed.",
    registers: [this.#own],
  });
  readonly chatStarts = new Counter({
    name: "tidings_chat_starts_total",
    help: "Visitors who asked to be paired (Find Someone).",
    registers: [this.#own],
  });
  readonly chatMatches = new Counter({
    name: "tidings_chat_matches_total",
    help: "Visitors paired with a partner after asking on this instance (two per chat).",
    registers: [this.#own],
  });
  readonly matchWait = new Histogram({
    name: "tidings_chat_match_wait_seconds",
    help: "From asking to be paired to being paired, per visitor.",
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
    registers: [this.#own],
  });
  readonly reportsFiled = new Counter({
    name: "tidings_reports_filed_total",
    help: "Reports filed by visitors, by what they are about (bottle or chat).",
    labelNames: ["kind"] as const,
    registers: [this.#own],
  });
  readonly dbQueries = new Histogram({
    name: "tidings_db_query_duration_seconds",
    help: "Time of the database queries run through Kysely, by outcome.",
    labelNames: ["outcome"] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.#own],
  });
  readonly backups = new Counter({
    name: "tidings_backups_total",
    help: "Scheduled snapshots of the database, by outcome (ok, failed).",
    labelNames: ["outcome"] as const,
    registers: [this.#own],
  });
  readonly backupLastSuccess = new Gauge({
    name: "tidings_backup_last_success_timestamp_seconds",
    help: "When the newest good snapshot was taken (0: none yet).",
    registers: [this.#own],
  });
  readonly faults = new Counter({
    name: "tidings_server_faults_total",
    help: "Server faults written to the error log (before its once-a-minute folding).",
    registers: [this.#own],
  });

  constructor(now: () => number = Date.now) {
    const own = this.#own;
    const sources = () => this.#sources;
    new Gauge({
      name: "tidings_chat_visitors",
      help: "Visitors waiting to be paired and chatting, on the whole site.",
      labelNames: ["state"] as const,
      registers: [own],
      async collect() {
        const source = sources();
        if (!source) return;
        const counts = await settled(() => source.chatCounts());
        this.set({ state: "waiting" }, counts ? counts.waiting : Number.NaN);
        this.set({ state: "chatting" }, counts ? counts.chatting * 2 : Number.NaN);
      },
    });
    let openCache: { at: number; value: Promise<number> } | undefined;
    new Gauge({
      name: "tidings_reports_open",
      help: "Reports waiting in the moderation queue (read at most every 5 seconds).",
      registers: [own],
      async collect() {
        const source = sources();
        if (!source) return;
        // One query per few seconds however often, and however many at once, scrapes come.
        if (!openCache || now() - openCache.at > 5000) {
          openCache = {
            at: now(),
            value: settled(() => source.openReports()).then((n) => n ?? Number.NaN),
          };
        }
        this.set(await openCache.value);
      },
    });
    const lastSuccess = this.backupLastSuccess;
    new Gauge({
      name: "tidings_backup_age_seconds",
      help: "Seconds since the newest good snapshot (NaN until there is one).",
      registers: [own],
      async collect() {
        const { value } = ((await lastSuccess.get()).values[0] ?? { value: 0 }) as {
          value: number;
        };
        this.set(value > 0 ? Math.max(0, now() / 1000 - value) : Number.NaN);
      },
    });
    new Gauge({
      name: "tidings_backup_future_snapshots",
      help: "Files in BACKUP_DIR dated in the future, not counted as the newest snapshot (alert above 0).",
      registers: [own],
      collect() {
        const count = sources()?.futureSnapshots;
        if (count) this.set(count());
      },
    });
    this.registry = Registry.merge([defaults(), own]);
  }

  /** The parts of the running site the gauges read when scraped. */
  watch(sources: MetricSources): void {
    this.#sources = sources;
    const { redisPing } = sources;
    // Only a site on Redis has a round trip to show.
    if (!redisPing) return;
    const own = this.#own;
    // One PING per scrape, however many gauges read it.
    let pinged: { at: number; value: Promise<number | null> } | undefined;
    const ping = () => {
      if (!pinged || performance.now() - pinged.at > 500) {
        pinged = { at: performance.now(), value: settled(redisPing) };
      }
      return pinged.value;
    };
    new Gauge({
      name: "tidings_redis_up",
      help: "Whether Redis answered a PING within a second during this scrape (cluster mode).",
      registers: [own],
      async collect() {
        this.set((await ping()) === null ? 0 : 1);
      },
    });
    new Gauge({
      name: "tidings_redis_ping_seconds",
      help: "Round trip of a PING to Redis, timed during this scrape (cluster mode).",
      registers: [own],
      async collect() {
        this.set((await ping()) ?? Number.NaN);
      },
    });
    this.registry = Registry.merge([defaults(), own]);
  }

  /** Counts a finished tRPC call: its status, its time, and what it meant for the site. */
  procedure(procedure: string, status: number, appCode: AppErrorCode | null, ms: number): void {
    const key = `${procedure} ${status}`;
    let series = this.#callSeries.get(key);
    if (!series) {
      // Looked up once per procedure and status (the router's few paths, a few statuses):
      // finding a series by its labels costs more than counting, on every chat message.
      series = {
        calls: this.calls.labels({ procedure, status: String(status) }),
        duration: this.callDuration.labels({ procedure }),
      };
      this.#callSeries.set(key, series);
    }
    series.calls.inc();
    series.duration.observe(ms / 1000);
    if (appCode) {
      const rule = refusalRule(appCode, procedure);
      if (rule) this.refusals.inc({ rule });
      return;
    }
    switch (procedure) {
      case "chat.send":
        this.messagesRelayed.inc();
        break;
      case "chat.start":
      case "chat.startWith":
        this.chatStarts.inc();
        break;
      case "bottles.report":
        this.reportsFiled.inc({ kind: "bottle" });
        break;
      case "chat.report":
        this.reportsFiled.inc({ kind: "chat" });
        break;
    }
  }

  request(route: RouteKind, status: number, ms: number): void {
    const labels: LabelValues<"route" | "status"> = { route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe({ route }, ms / 1000);
  }

  /** Prometheus's text format. */
  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

/** Visitors this instance saw ask to be paired, kept until paired (at most this many). */
const MAX_WAITING = 20_000;

/**
 * The broker, timing how long visitors wait to be paired: from `start` answering "waiting" to
 * the visitor's "matched" event (or a stream that reopens on a chat), or the broker's own answer
 * when `start` pairs at once. Everything else passes through untouched.
 */
export function timedBroker(
  broker: ChatBroker,
  metrics: SiteMetrics,
  now: () => number = Date.now,
): ChatBroker {
  const waitingSince = new Map<string, number>();
  const paired = (visitorId: string) => {
    const since = waitingSince.get(visitorId);
    if (since === undefined) return;
    waitingSince.delete(visitorId);
    metrics.chatMatches.inc();
    metrics.matchWait.observe((now() - since) / 1000);
  };
  const start: ChatBroker["start"] = async (visitor) => {
    const asked = now();
    const status = await broker.start(visitor);
    waitingSince.delete(visitor.visitorId);
    if (status.state === "chatting") {
      metrics.chatMatches.inc();
      metrics.matchWait.observe((now() - asked) / 1000);
    } else if (status.state === "waiting") {
      if (waitingSince.size >= MAX_WAITING) {
        const oldest = waitingSince.keys().next().value;
        if (oldest !== undefined) waitingSince.delete(oldest);
      }
      waitingSince.set(visitor.visitorId, asked);
    }
    return status;
  };
  const events: ChatBroker["events"] = async function* (visitorId, lastEventId, signal) {
    for await (const batch of broker.events(visitorId, lastEventId, signal)) {
      for (const { event } of batch) {
        if (
          event.type === "matched" ||
          (event.type === "status" && event.status.state === "chatting")
        ) {
          paired(visitorId);
        } else if (
          event.type === "idle" ||
          (event.type === "status" && event.status.state === "idle")
        ) {
          waitingSince.delete(visitorId);
        }
      }
      yield batch;
    }
  };
  // A proxy, so methods the broker gains later pass through without a change here; each is
  // bound once, not on every call (a chat message calls three or four).
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(broker, {
    get(target, property) {
      if (property === "start") return start;
      if (property === "events") return events;
      const known = bound.get(property);
      if (known !== undefined) return known;
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      const method = value.bind(target);
      bound.set(property, method);
      return method;
    },
  });
}

/** Whether a request carries the operator's bearer token (compared in constant time). */
export function bearerMatches(request: Request, token: string): boolean {
  const given = Buffer.from(request.headers.get("authorization") ?? "");
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
