import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  createTRPCClient,
  createWSClient,
  httpBatchLink,
  httpLink,
  splitLink,
  wsLink,
} from "@trpc/client";
import { initTRPC, TRPCError, tracked } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import type { Server } from "bun";
import { z } from "zod";
import { handleTrpcHttp, MAX_BATCH_SIZE } from "../../src/server/trpc/http.ts";
import { createTrpcWebSocketHandler, type SocketData } from "../../src/server/trpc/ws-adapter.ts";
import { bottleInput, startTestServer, type TestServer, trpcClient } from "../helpers/server.ts";

// A toy transformer: if either transport skipped it, answers would lose their wrapping.
const wrapping = {
  serialize: (value: unknown) => ({ wrapped: value }),
  deserialize: (value: unknown) => (value as { wrapped: unknown } | undefined)?.wrapped,
};

interface Ctx {
  calls: { count: number };
}
const t = initTRPC
  .context<Ctx>()
  .create({ transformer: wrapping, isDev: false, sse: { enabled: false } });
const calls = { count: 0 };
const testRouter = t.router({
  when: t.procedure.query(() => ({ when: 1 })),
  echo: t.procedure.input(z.object({ text: z.string().max(5) })).query(({ input }) => input),
  count: t.procedure.mutation(({ ctx }) => {
    ctx.calls.count += 1;
    return { count: ctx.calls.count };
  }),
  refuse: t.procedure.mutation(() => {
    throw new TRPCError({ code: "FORBIDDEN", message: "no" });
  }),
  ticks: t.procedure
    .input(z.object({ lastEventId: z.string().nullish() }).optional())
    .subscription(async function* ({ input }) {
      const from = Number(input?.lastEventId ?? 0);
      for (let i = from + 1; i <= from + 3; i++) yield tracked(String(i), { tick: i });
    }),
});
const createContext = async () => ({ calls });

// Bun has the `ws` package built in; its types are not installed.
interface WsServer {
  address(): { port: number } | string | null;
  close(): void;
}
const { WebSocketServer } = require("ws") as {
  WebSocketServer: new (options: { port: number; host: string }) => WsServer;
};

/** Ours: the site's HTTP glue and WebSocket bridge on Bun.serve. */
function serveOurs(): Server<SocketData<null>> {
  const socket = createTrpcWebSocketHandler<typeof testRouter, null>({
    router: testRouter,
    createContext,
  });
  return Bun.serve<SocketData<null>>({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request, server) {
      if (request.headers.get("upgrade") === "websocket") {
        return server.upgrade(request, { data: { upgrade: null } })
          ? undefined
          : new Response(null, { status: 400 });
      }
      return handleTrpcHttp(request, { router: testRouter, endpoint: "/trpc", createContext });
    },
    websocket: socket.websocket,
  });
}

/** tRPC's reference: its fetch adapter as it is, and its ws adapter on a `ws` server. */
function serveReference() {
  const http = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) =>
      fetchRequestHandler({ endpoint: "/trpc", req: request, router: testRouter, createContext }),
  });
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  applyWSSHandler({ wss, router: testRouter, createContext });
  return { http, wss };
}

/** Sends frames on one socket and collects every frame answered until `count` have come. */
async function framesFor(url: string, sent: string[], count: number): Promise<unknown[]> {
  const socket = new WebSocket(url);
  const received: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${JSON.stringify(received)}`)), 3000);
    socket.onopen = () => {
      for (const frame of sent) socket.send(frame);
    };
    socket.onmessage = (event) => {
      received.push(JSON.parse(String(event.data)));
      if (received.length === count) {
        clearTimeout(timer);
        resolve();
      }
    };
  });
  socket.close();
  return received;
}

describe("transport parity with tRPC's own adapters, with a transformer", () => {
  let ours: Server<SocketData<null>>;
  let reference: ReturnType<typeof serveReference>;
  let oursUrl: string;
  let referenceHttp: string;
  let referenceWs: string;

  beforeAll(() => {
    ours = serveOurs();
    reference = serveReference();
    oursUrl = `http://127.0.0.1:${ours.port}`;
    referenceHttp = `http://127.0.0.1:${reference.http.port}`;
    const address = reference.wss.address();
    referenceWs = `ws://127.0.0.1:${typeof address === "object" ? address?.port : 0}`;
  });
  afterAll(() => {
    ours.stop(true);
    reference.http.stop(true);
    reference.wss.close();
  });

  const requests: Array<[string, string, RequestInit?]> = [
    ["a query", "/trpc/when"],
    ["a query with input", `/trpc/echo?input=${encodeURIComponent('{"wrapped":{"text":"hi"}}')}`],
    ["bad input", `/trpc/echo?input=${encodeURIComponent('{"wrapped":{"text":"toolong"}}')}`],
    [
      "a batch",
      `/trpc/when,echo?batch=1&input=${encodeURIComponent('{"1":{"wrapped":{"text":"a"}}}')}`,
    ],
    ["an unknown path", "/trpc/nothing"],
    [
      "a refused mutation",
      "/trpc/refuse",
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
    ],
  ];
  for (const [name, path, init] of requests) {
    test(`HTTP: ${name} is answered as tRPC's fetch adapter answers it`, async () => {
      const [a, b] = await Promise.all([
        fetch(`${oursUrl}${path}`, init),
        fetch(`${referenceHttp}${path}`, init),
      ]);
      expect(a.status).toBe(b.status);
      expect(await a.json()).toEqual(await b.json());
    });
  }

  test("HTTP: the transformer wraps data (single and batched)", async () => {
    const single = await (await fetch(`${oursUrl}/trpc/when`)).json();
    expect(single).toEqual({ result: { data: { wrapped: { when: 1 } } } });
    const batch = await (await fetch(`${oursUrl}/trpc/when,when?batch=1`)).json();
    expect(batch).toEqual([
      { result: { data: { wrapped: { when: 1 } } } },
      { result: { data: { wrapped: { when: 1 } } } },
    ]);
  });

  test("WebSocket: the same frames as tRPC's ws adapter, for calls, errors and a resumed stream", async () => {
    const sent = [
      JSON.stringify({ id: 1, method: "query", params: { path: "when" } }),
      JSON.stringify({
        id: 2,
        method: "query",
        params: { path: "echo", input: { wrapped: { text: "toolong" } } },
      }),
      JSON.stringify({ id: 3, method: "mutation", params: { path: "refuse" } }),
      JSON.stringify({ id: 4, method: "query", params: { path: "nothing" } }),
      JSON.stringify({
        id: 5,
        method: "subscription",
        params: { path: "ticks", lastEventId: "7" },
      }),
      "not json",
    ];
    const sortById = (frames: unknown[]) => frames.map((f) => JSON.stringify(f)).sort();
    const ws = oursUrl.replace("http", "ws");
    const [a, b] = await Promise.all([framesFor(ws, sent, 10), framesFor(referenceWs, sent, 10)]);
    expect(sortById(a)).toEqual(sortById(b));
    // The stream resumed after event 7 and its data is wrapped.
    expect(a).toContainEqual({
      id: 5,
      result: { type: "data", id: "8", data: { wrapped: { id: "8", data: { tick: 8 } } } },
    });
  });

  test("a client with the transformer reads the same values over HTTP, batched HTTP and WebSocket", async () => {
    const socket = createWSClient({ url: oursUrl.replace("http", "ws") });
    const links = [
      httpLink({ url: `${oursUrl}/trpc`, transformer: wrapping }),
      httpBatchLink({ url: `${oursUrl}/trpc`, transformer: wrapping }),
      splitLink({
        condition: () => true,
        true: wsLink({ client: socket, transformer: wrapping }),
        false: httpLink({ url: `${oursUrl}/trpc`, transformer: wrapping }),
      }),
    ];
    for (const link of links) {
      const client = createTRPCClient<typeof testRouter>({ links: [link] });
      expect(await client.when.query()).toEqual({ when: 1 });
      expect(await client.echo.query({ text: "abc" })).toEqual({ text: "abc" });
    }
    socket.close();
  });

  test(`a batch of ${MAX_BATCH_SIZE + 1} is refused with 400 and runs no procedure`, async () => {
    calls.count = 0;
    const paths = Array(MAX_BATCH_SIZE + 1)
      .fill("count")
      .join(",");
    const refused = await fetch(`${oursUrl}/trpc/${paths}?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(400);
    expect(calls.count).toBe(0);
    const ten = Array(MAX_BATCH_SIZE).fill("count").join(",");
    const allowed = await fetch(`${oursUrl}/trpc/${ten}?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(allowed.status).toBe(200);
    expect(calls.count).toBe(MAX_BATCH_SIZE);
  });
});

describe("the site's tRPC endpoint", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ TRUST_PROXY: "true" });
  });
  afterAll(() => server.close());

  test("a subscription asked for over HTTP is refused with 405 and a clear message", async () => {
    const response = await fetch(`${server.url}/trpc/chat.events`);
    expect(response.status).toBe(405);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("WebSocket");
  });

  test("a batch of 11 throws is refused before any bottle is written", async () => {
    const paths = Array(11).fill("bottles.throw").join(",");
    const input: Record<number, unknown> = {};
    for (let i = 0; i < 11; i++) {
      input[i] = bottleInput(`batch ${i}`, { isPublic: true });
    }
    const response = await fetch(`${server.url}/trpc/${paths}?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify(input),
    });
    expect(response.status).toBe(400);
    const list = await trpcClient(server.url).bottles.publicList.query();
    expect(list.bottles).toHaveLength(0);
  });

  test("a malformed escape in the path is a 400, not a server error", async () => {
    const response = await fetch(`${server.url}/trpc/%E0%A4%A`);
    expect(response.status).toBe(400);
  });
});
