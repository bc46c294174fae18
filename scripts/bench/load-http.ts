/**
 * HTTP load generator, `bun load-http.ts '<json options>'`: keep-alive connections each sending
 * its next request once the previous is answered (closed loop), for a warm-up and a measured
 * window, every request from a visitor of its own. A small HTTP/1.1 client over Bun.connect
 * keeps the generator's cost low and the same for the server and its baseline. Prints one JSON
 * line: requests/s, p50/p99 (ms), statuses, the server's CPU. With `urls`, connection i goes to
 * the (i mod n)th instance; a probe covers the window. With `agePool`, that many visitors answer
 * the bottles' age gate first and the throws are theirs in turn (see lib.ts throwPool). With
 * `pow`, each throw carries a proof-of-work solution of its own, solved before the warm-up.
 */

import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import type { Socket } from "bun";
import { ProofOfWork } from "../../src/core/pow/proof-of-work.ts";
import { MemoryPassStore } from "../../src/core/pow/stores.ts";
import { numberedVisitorId, privateAddress } from "../../tests/helpers/chat-client.ts";
import {
  BENCH_SECRET,
  cpuSeconds,
  loadOptions,
  publicAddress,
  round,
  signedVisitor,
  summarize,
} from "./lib.ts";
import { Probe, type ProbeResult, type ProbeTargets } from "./probe.ts";

export interface HttpLoadOptions {
  url: string;
  /** Several instances of one site: connections are spread over them in turn. */
  urls?: string[];
  path: string;
  kind: "discover" | "throw";
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** The server's pid, to report its CPU use during the window. */
  serverPid?: number;
  /**
   * Visitor numbers start here, so runs against the same server never share a visitor or an
   * address (the rate limits are per visitor and per address).
   */
  firstVisitor?: number;
  probe?: ProbeTargets;
  /** Visitors who answer the age gate before the load, whose throws the load then sends. */
  agePool?: number;
  /** The pool answered already (an earlier run with `ageOnly` and the same firstVisitor). */
  agePoolAnswered?: boolean;
  /** Only answer the pool's age gate, then print `{"agePoolSeconds":…}` and end. */
  ageOnly?: boolean;
  /**
   * Throws carry proof of work: this many solutions, one per throw, issued with the site's
   * SECRET as the site issues them (POW_COST 1) and solved before the load; used up, it stops.
   */
  pow?: number;
}

export interface HttpLoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  statuses: Record<string, number>;
  errors: number;
  serverCpu: number | null;
  /** Answers with status 200 from the first request on, warm-up included. */
  answered: number;
  probe?: ProbeResult;
  /** Seconds the pool took to answer the age gate (before the warm-up, not measured). */
  agePoolSeconds?: number;
  /** Requests of the load that were a pool visitor's second throw or later. */
  agePoolReused?: number;
  /** Every pool visitor threw 5 times, or every solution was used: the load stopped early. */
  agePoolExhausted?: boolean;
}

/** The age gate's answer for bottles, as the web sends it before a first throw. */
const AGE_PATH = "/trpc/bottles.confirmAge";
const AGE_BODY = JSON.stringify({ atLeast13: true });
/** Throws a pool visitor may make: the limit on throwing is 5 a minute. */
const THROWS_PER_VISITOR = 5;

const MESSAGES = [
  "Hello from the other side of the sea. I hope whoever finds this is having a calm evening.",
  "今天的海很安靜，希望撿到這個瓶子的人一切都好。",
  "Just finished a long week. Sending good thoughts to a stranger far away.",
  "If you are reading this, remember to look up at the stars tonight.",
  "我在台北的咖啡店寫下這封信，祝你有美好的一天。",
  "Does anyone else collect sea glass? I found a blue one today.",
];
const TIME_ZONES = ["Asia/Taipei", "Europe/Berlin", "America/New_York", "UTC", "Asia/Tokyo"];

const CLOSINGS = [
  "Take care.",
  "Good night from here.",
  "Write back if the tide allows.",
  "Wishing you a gentle week.",
  "祝你平安。",
  "",
];

/** A valid bottle: a clean message, and a drift that always ends before the expiry. */
function throwBody(n: number, pow: string | undefined): string {
  const expiryDays = [1, 3, 5, 7][n % 4] ?? 7;
  return JSON.stringify({
    pow,
    message: `${MESSAGES[n % MESSAGES.length]} ${CLOSINGS[n % CLOSINGS.length]}`.trim(),
    driftHours: expiryDays >= 3 && n % 7 === 0 ? (n % 24) + 1 : 0,
    isPublic: n % 3 === 0,
    expiryDays,
    timeZone: TIME_ZONES[n % TIME_ZONES.length],
    locale: n % 5 < 3 ? "en" : "zh-TW",
  });
}

/** A JSON POST from visitor n (a public address of its own), as the web sends one. */
function post(target: URL, path: string, n: number, body: string): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: ${target.host}\r\n` +
    `Origin: ${target.origin}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `Cookie: visitor=${signedVisitor(numberedVisitorId("bench", n))}\r\n` +
    `X-Forwarded-For: ${publicAddress(n)}\r\nx-tidings-locale: en\r\n\r\n${body}`
  );
}

interface Pending {
  resolve(status: number): void;
  reject(error: Error): void;
}

/** One keep-alive HTTP/1.1 connection; one request in flight at a time. */
class Connection {
  #socket: Socket<undefined> | undefined;
  #buffer = Buffer.alloc(0);
  #pending: Pending | undefined;

  static async open(hostname: string, port: number): Promise<Connection> {
    const connection = new Connection();
    connection.#socket = await Bun.connect({
      hostname,
      port,
      socket: {
        data: (_socket, data) => connection.#onData(data),
        close: () => connection.#fail(new Error("connection closed")),
        error: (_socket, error) => connection.#fail(error),
      },
    });
    return connection;
  }

  request(bytes: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#buffer = Buffer.alloc(0);
      this.#socket?.write(bytes);
    });
  }

  close(): void {
    this.#socket?.end();
  }

  #fail(error: Error): void {
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error);
  }

  #onData(data: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, data]);
    const headerEnd = this.#buffer.indexOf("\r\n\r\n");
    if (headerEnd === -1) return;
    const head = this.#buffer.toString("latin1", 0, headerEnd);
    const status = Number(head.slice(9, 12));
    const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const bodyStart = headerEnd + 4;
    if (lengthMatch) {
      if (this.#buffer.length < bodyStart + Number(lengthMatch[1])) return;
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      if (this.#buffer.indexOf("\r\n0\r\n\r\n", bodyStart - 2) === -1) return;
    }
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve(status);
  }
}

async function main(): Promise<void> {
  const options = loadOptions<HttpLoadOptions>();
  const target = new URL(options.url);
  const targets = (options.urls ?? [options.url]).map((url) => new URL(url));
  const first = options.firstVisitor ?? 0;
  const pool = options.agePool ?? 0;
  let counter = 0;
  // With a pool, the visitors who answered the age gate throw in turn.
  const visitorOf = (c: number) => (pool > 0 ? first + 1 + ((c - 1) % pool) : first + c);
  const solutions: string[] = [];
  const issuer = new ProofOfWork({
    enabled: true,
    cost: 1,
    secret: BENCH_SECRET,
    now: Date.now,
    solutions: { record: async () => true, purge: async () => {} },
    passes: new MemoryPassStore(Date.now, 60_000),
  });
  for (let c = 1; c <= (options.pow ?? 0); c++) {
    const who = { visitorId: numberedVisitorId("bench", visitorOf(c)), ipKey: "" };
    const challenge = await issuer.challenge("throw", who);
    if (!challenge) throw new Error("no challenge");
    const solution = await solveChallenge({ challenge, deriveKey });
    solutions.push(JSON.stringify({ challenge, solution }));
  }

  const buildRequest = (): string => {
    counter += 1;
    const n = visitorOf(counter);
    const cookie = signedVisitor(numberedVisitorId("bench", n));
    if (options.kind === "discover") {
      return (
        `GET ${options.path} HTTP/1.1\r\nHost: ${target.host}\r\n` +
        `Cookie: visitor=${cookie}\r\nX-Forwarded-For: ${privateAddress(n)}\r\n` +
        `x-tidings-locale: ${n % 5 < 3 ? "en" : "zh-TW"}\r\n\r\n`
      );
    }
    return post(target, options.path, n, throwBody(n, solutions[counter - 1]));
  };

  const connections = await Promise.all(
    Array.from({ length: options.concurrency }, (_, i) => {
      const to = targets[i % targets.length] as URL;
      return Connection.open(to.hostname, Number(to.port));
    }),
  );
  let agePoolSeconds: number | undefined;
  if (pool > 0 && !options.agePoolAnswered) {
    const started = performance.now();
    let next = 0;
    await Promise.all(
      connections.map(async (connection, i) => {
        while (next < pool) {
          next += 1;
          const n = first + next;
          const status = await connection.request(
            post(targets[i % targets.length] as URL, AGE_PATH, n, AGE_BODY),
          );
          if (status !== 200) throw new Error(`the age gate answered ${status} to visitor ${n}`);
        }
      }),
    );
    agePoolSeconds = round((performance.now() - started) / 1000, 1);
  }
  if (options.ageOnly) {
    for (const c of connections) c.close();
    console.log(JSON.stringify({ agePoolSeconds }));
    process.exit(0);
  }
  const probe = options.probe ? await Probe.open(options.probe) : undefined;

  let measuring = false;
  let stop = false;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let answered = 0;

  let exhausted = false;
  const worker = async (connection: Connection) => {
    while (!stop) {
      // A pool visitor never throws a sixth time (the limit is 5 a minute), nor without a solution.
      const spent = options.pow !== undefined && counter >= options.pow;
      if ((pool > 0 && counter >= pool * THROWS_PER_VISITOR) || spent) {
        exhausted = true;
        return;
      }
      const started = performance.now();
      try {
        const status = await connection.request(buildRequest());
        if (status === 200) answered += 1;
        if (measuring) {
          latencies.push(performance.now() - started);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      } catch {
        if (measuring) errors += 1;
        return;
      }
    }
  };

  const workers = connections.map((c) => worker(c));
  await Bun.sleep(options.warmupMs);
  await probe?.begin();
  const cpuBefore = options.serverPid ? cpuSeconds(options.serverPid) : 0;
  const started = performance.now();
  measuring = true;
  await Bun.sleep(options.durationMs);
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = options.serverPid ? cpuSeconds(options.serverPid) : 0;
  const measured = await probe?.end();
  await probe?.close();
  stop = true;
  await Promise.race([Promise.all(workers), Bun.sleep(2000)]);
  for (const c of connections) c.close();

  const latency = summarize(latencies);
  const result: HttpLoadResult = {
    requests: latency.count,
    rps: round(latency.count / elapsed, 0),
    ...latency,
    statuses,
    errors,
    serverCpu: options.serverPid ? round((cpuAfter - cpuBefore) / elapsed, 2) : null,
    answered,
    probe: measured,
    agePoolSeconds,
    agePoolReused: pool > 0 ? Math.max(0, counter - pool) : undefined,
    agePoolExhausted: pool > 0 ? exhausted : undefined,
  };
  console.log(JSON.stringify(result));
  process.exit(0);
}

if (import.meta.main) await main();
