import { describe, expect, test } from "bun:test";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { z } from "zod";
import { RateLimitedError } from "../../src/core/errors.ts";
import type { Context } from "../../src/server/trpc/context.ts";
import { createHttpHandler } from "../../src/server/trpc/http-adapter.ts";
import { publicProcedure, router } from "../../src/server/trpc/init.ts";

// A router built like the app's (same init, middleware and error formatter).
const testRouter = router({
  echo: publicProcedure
    .input(z.object({ text: z.string().max(5) }).optional())
    .query(({ input }) => ({
      said: input?.text ?? null,
    })),
  now: publicProcedure.query(() => 42),
  limited: publicProcedure.query(() => {
    throw new RateLimitedError(17);
  }),
  broken: publicProcedure.query(() => {
    throw new Error("internal detail");
  }),
  save: publicProcedure.input(z.object({ n: z.number() })).mutation(({ input }) => input.n * 2),
});

const retryAfter = (errors: Array<{ cause?: unknown }>) => {
  const limited = errors.find((e) => e.cause instanceof RateLimitedError)?.cause;
  return limited instanceof RateLimitedError
    ? { "Retry-After": String(limited.retryAfterSeconds) }
    : undefined;
};
const ours = createHttpHandler({ router: testRouter, endpoint: "/trpc", headersFor: retryAfter });
const context = async () => ({}) as Context;

async function theirs(request: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/trpc",
    req: request,
    router: testRouter,
    createContext: context,
    responseMeta: ({ errors }) => ({ headers: retryAfter(errors) }),
  });
}

const base = "http://site.test/trpc/";
const withUrl = (request: Request) => [request, new URL(request.url)] as const;
const get = (path: string) => () => new Request(base + path);
const post =
  (path: string, body: string, type = "application/json") =>
  () =>
    new Request(base + path, { method: "POST", body, headers: { "content-type": type } });
const input = (value: unknown) => `input=${encodeURIComponent(JSON.stringify(value))}`;

const cases: Record<string, () => Request> = {
  "a query without input": get("now"),
  "a query with input": get(`echo?${input({ text: "hi" })}`),
  "a batch of queries": get(`now,echo?batch=1&${input({ "1": { text: "yo" } })}`),
  "a batch of one": get(`echo?batch=1&${input({ "0": { text: "ok" } })}`),
  "input the schema refuses": get(`echo?${input({ text: "far too long" })}`),
  "a batch where one call fails": get(`now,echo?batch=1&${input({ "1": { text: 7 } })}`),
  "a domain error with Retry-After": get("limited"),
  "an unexpected error": get("broken"),
  "a mutation": post("save", JSON.stringify({ n: 21 })),
  "a batch of mutations": post("save,save?batch=1", JSON.stringify({ 0: { n: 1 }, 1: { n: 2 } })),
  "an unknown path": get("nothing.here"),
  "a mutation asked by GET": get("save"),
  "a query asked by POST": post("now", "{}"),
  "input that is not JSON": get("echo?input=%7Bnope"),
  "a body that is not JSON": post("save", "{nope"),
  "a body of another type": post("save", "n=1", "text/plain"),
  "a batch whose input is not an object": get(`now?batch=1&${input(3)}`),
};

describe("tRPC over HTTP", () => {
  for (const [name, make] of Object.entries(cases)) {
    test(`answers ${name} as tRPC's fetch adapter does`, async () => {
      const [mine, reference] = await Promise.all([
        ours(...withUrl(make()), context),
        theirs(make()),
      ]);
      expect(mine.status).toBe(reference.status);
      expect(mine.headers.get("content-type")).toBe(reference.headers.get("content-type"));
      expect(mine.headers.get("retry-after")).toBe(reference.headers.get("retry-after"));
      expect(await mine.json()).toEqual(await reference.json());
    });
  }

  test("never sends a stack trace or an internal message's stack", async () => {
    const body = await (await ours(...withUrl(get("broken")()), context)).text();
    expect(body).not.toContain("stack");
    expect(body).not.toContain("at ");
  });

  test("a context that fails to build fails the call with its error", async () => {
    const failing = async (): Promise<Context> => {
      throw new RateLimitedError(5);
    };
    const response = await ours(...withUrl(get("now")()), failing);
    expect(response.status).toBe(500);
    const reference = await fetchRequestHandler({
      endpoint: "/trpc",
      req: get("now")(),
      router: testRouter,
      createContext: failing,
    });
    expect(await response.json()).toEqual(await reference.json());
  });
});
