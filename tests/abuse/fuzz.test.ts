import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerProcess, startServerProcess } from "../helpers/process.ts";

/** A small seeded generator, so a failing case can be run again exactly. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}
type Random = ReturnType<typeof prng>;

const PATHS = [
  "bottles.throw",
  "bottles.discover",
  "bottles.toggleLike",
  "bottles.likeOf",
  "auth.signIn",
  "auth.signUp",
  "auth.me",
  "chat.events",
  "chat.start",
  "chat.send",
  "chat.typing",
  "chat.report",
  "chat.translate",
  "contact.send",
  "translate.bottle",
  "translate.languages",
  "geo.me",
  "",
  "nope",
  "__proto__",
  "chat.__proto__",
  "constructor.prototype",
  "bottles..throw",
  "%E0%A4%A",
  "%ZZ",
  "a".repeat(3000),
];
const STRINGS = ["", " ", "x".repeat(5000), "💥\u0000\ud800", "<script>", "1e400", "null", "{"];

function randomJson(r: Random, depth = 0): unknown {
  switch (r.int(depth > 4 ? 5 : 9)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 53]);
    case 2:
      return r.pick(STRINGS);
    case 3:
      return r.next() < 0.5;
    case 4:
      return r.pick(PATHS);
    case 5:
    case 6: {
      const object: Record<string, unknown> = {};
      const keys = [
        "text",
        "content",
        "input",
        "message",
        "username",
        "password",
        "lastEventId",
        "__proto__",
        "bottleId",
        "id",
        "0",
        "1",
        "target",
        "reason",
        "isTyping",
      ];
      for (let i = r.int(5); i > 0; i--) object[r.pick(keys)] = randomJson(r, depth + 1);
      return object;
    }
    case 7:
      return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
    default: {
      // Deep nesting.
      let value: unknown = 1;
      for (let i = r.int(200); i > 0; i--) value = [value];
      return value;
    }
  }
}

function randomText(r: Random): string {
  if (r.next() < 0.7) return JSON.stringify(randomJson(r)) ?? "";
  return r.pick([
    "{",
    "}",
    "[1,",
    "\u0000\u0001",
    "PING",
    "PONG",
    '{"id":',
    "💥".repeat(100),
    "nul",
  ]);
}

function randomRequest(r: Random, base: string): [string, RequestInit] {
  const paths = Array.from({ length: 1 + r.int(r.next() < 0.1 ? 15 : 3) }, () => r.pick(PATHS));
  const query = new URLSearchParams();
  if (r.next() < 0.5) query.set("batch", r.pick(["1", "0", "true", ""]));
  if (r.next() < 0.6) query.set("input", randomText(r));
  if (r.next() < 0.05) query.set("connectionParams", "1");
  const method = r.pick(["GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);
  const headers: Record<string, string> = {};
  if (r.next() < 0.8) headers.origin = base;
  const type = r.pick([
    "application/json",
    "application/json",
    "text/plain",
    "multipart/form-data",
    "application/octet-stream",
    "",
  ]);
  if (type) headers["content-type"] = type;
  if (r.next() < 0.1) headers["trpc-accept"] = "application/jsonl";
  if (r.next() < 0.1) headers.accept = "text/event-stream";
  const init: RequestInit = { method, headers };
  if (method !== "GET" && r.next() < 0.9) init.body = randomText(r);
  return [`${base}/trpc/${paths.join(",")}?${query}`, init];
}

function randomFrame(r: Random): string | Uint8Array {
  if (r.next() < 0.05) return new Uint8Array(Array.from({ length: r.int(64) }, () => r.int(256)));
  if (r.next() < 0.2) return randomText(r);
  const message = () => ({
    id: r.pick([1, 2, "a", null, {}, [], -1, 1.5, r.int(100000)]),
    jsonrpc: r.pick([undefined, "2.0", "1.0", 5]),
    method: r.pick([
      "query",
      "mutation",
      "subscription",
      "subscription.stop",
      "connectionParams",
      "nope",
      1,
    ]),
    params:
      r.next() < 0.9
        ? {
            path: r.pick(PATHS),
            input: randomJson(r),
            lastEventId: r.pick([undefined, "x", "1:2", 5, null]),
          }
        : randomJson(r),
  });
  return JSON.stringify(r.next() < 0.2 ? Array.from({ length: r.int(5) }, message) : message());
}

describe("1,000 malformed requests and 1,000 malformed frames", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ LOG_FORMAT: "off", TRUST_PROXY: "true" });
  });
  afterAll(() => server.stop());

  const healthy = async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
  };

  test("HTTP: no answer is a server error, the log stays small, the site stays healthy", async () => {
    const r = prng(11);
    const logBefore = server.output().length;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const [url, init] = randomRequest(r, server.url);
      const headers = {
        ...(init.headers as Record<string, string>),
        "x-forwarded-for": `198.51.${i >> 8}.${i & 255}`,
      };
      const response = await fetch(url, { ...init, headers });
      const body = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status >= 500)
        throw new Error(
          `${init.method} ${url.slice(0, 300)} → ${response.status} ${body.slice(0, 200)}`,
        );
      if (i % 100 === 0) await healthy();
    }
    await healthy();
    expect(server.output().length - logBefore).toBeLessThan(10 * 1024);
    // The fuzzing reached the procedures, not only the door.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
  });

  test("WebSocket: no frame is answered with an internal error, the log stays small", async () => {
    const r = prng(23);
    const logBefore = server.output().length;
    const internal: string[] = [];
    let answers = 0;
    let sockets = 0;
    const open = () =>
      new Promise<WebSocket>((resolve, reject) => {
        sockets += 1;
        const socket = new WebSocket(`${server.url.replace("http", "ws")}/trpc`, {
          headers: { Origin: server.url, "X-Forwarded-For": `198.18.0.${sockets}` },
        } as unknown as string[]);
        socket.onopen = () => resolve(socket);
        socket.onerror = () => reject(new Error("socket failed"));
        socket.onmessage = (event) => {
          if (String(event.data).includes('"caught-up-')) return;
          answers += 1;
          const text = String(event.data);
          if (text.includes("INTERNAL_SERVER_ERROR") || text.includes('"code":-32603'))
            internal.push(text);
        };
      });
    /**
     * Sends a well-formed query after what was sent, and resolves once it is answered (frames on
     * one socket are handled in order, so everything before it has been) or the socket closed.
     */
    let asked = 0;
    const caughtUp = (socket: WebSocket) =>
      new Promise<void>((resolve) => {
        const id = `caught-up-${++asked}`;
        const done = (event?: MessageEvent) => {
          if (event && !String(event.data).includes(`"${id}"`)) return;
          socket.removeEventListener("message", done);
          socket.removeEventListener("close", closed);
          resolve();
        };
        const closed = () => done();
        socket.addEventListener("message", done);
        socket.addEventListener("close", closed);
        if (socket.readyState !== WebSocket.OPEN) return closed();
        socket.send(JSON.stringify({ id, method: "query", params: { path: "chat.online" } }));
      });
    let socket = await open();
    for (let i = 0; i < 1000; i++) {
      if (socket.readyState !== WebSocket.OPEN) socket = await open();
      socket.send(randomFrame(r));
      if (i % 50 === 49) await caughtUp(socket);
    }
    await caughtUp(socket);
    socket.close();
    await healthy();
    expect(internal).toEqual([]);
    expect(answers).toBeGreaterThan(500);
    expect(server.output().length - logBefore).toBeLessThan(10 * 1024);
  });
});
