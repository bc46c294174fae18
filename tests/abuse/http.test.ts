import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Cookies, bodies and the Host header, tried as a script would: a malformed cookie counts as
// absent, the body cap holds however a body is sent, and a forged Host is never reflected.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("a malformed cookie counts as absent", () => {
  for (const cookie of [
    "visitor=%ZZ",
    "session=%ZZ",
    "device=%ZZ",
    "visitor=%ZZ; session=%E0%A4%A",
    "visitor",
  ]) {
    test(`${cookie}: every route still answers`, async () => {
      for (const path of ["/healthz", "/en", "/trpc/auth.me", "/trpc/geo.me"]) {
        const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
        expect(response.status).toBe(200);
      }
      const me = await fetch(`${server.url}/trpc/auth.me`, { headers: { cookie } });
      expect(await me.json()).toEqual({ result: { data: { user: null, isOperator: false } } });
    });
  }

  test("a malformed visitor cookie is replaced by a fresh one", async () => {
    const response = await fetch(`${server.url}/en`, { headers: { cookie: "visitor=%ZZ" } });
    expect(response.headers.get("set-cookie")).toMatch(
      /^visitor=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22};/,
    );
  });
});

describe("over https, cookies carry the __Host- prefix", () => {
  test("the visitor cookie is __Host-visitor, Secure, Path=/, no Domain; the plain name is ignored", async () => {
    const https = await startTestServer({ PUBLIC_ORIGIN: "https://tidings.example.org" });
    try {
      const fresh = (await fetch(`${https.url}/en`)).headers.get("set-cookie") ?? "";
      expect(fresh).toMatch(
        /^__Host-visitor=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}; Path=\/; .*HttpOnly; SameSite=Lax; Secure$/,
      );
      expect(fresh).not.toContain("Domain");
      const value = fresh.slice("__Host-visitor=".length, fresh.indexOf(";"));
      // Anyone on a sibling subdomain or on plain http can set the plain name: it counts for nothing.
      const planted = (
        await fetch(`${https.url}/en`, { headers: { cookie: `visitor=${value}` } })
      ).headers.get("set-cookie");
      expect(planted).toStartWith("__Host-visitor=");
      expect(planted).not.toContain(value.split(".")[0] ?? "");
      const kept = await fetch(`${https.url}/en`, {
        headers: { cookie: `__Host-visitor=${value}` },
      });
      expect(kept.headers.get("set-cookie")).toBeNull();
    } finally {
      await https.close();
    }
  });
});

describe("the body cap holds however the body is sent", () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/trpc/contact.send`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url, ...headers },
      body,
      // A stream body goes out chunked, with no Content-Length.
      duplex: "half",
    } as RequestInit);

  test("a 3 MB body sent in chunks is refused with 413", async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(`{"x":"${"a".repeat(64 * 1024)}`);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 3 * 1024 * 1024) {
          controller.close();
          return;
        }
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await post(stream);
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { data: { appCode: string } } };
    expect(body.error.data.appCode).toBe("PAYLOAD_TOO_LARGE");
  });

  test("a 3 MB body with its length declared is refused with 413", async () => {
    const response = await post("a".repeat(3 * 1024 * 1024));
    expect(response.status).toBe(413);
  });

  test("a small chunked body is read as usual", async () => {
    const json = JSON.stringify({ name: "Mei", email: "mei@example.org", message: "Hello there" });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(json.slice(0, 10)));
        controller.enqueue(new TextEncoder().encode(json.slice(10)));
        controller.close();
      },
    });
    expect((await post(stream)).status).toBe(200);
  });
});

describe("the Host header is never reflected", () => {
  test("a forged Host appears nowhere in a page when PUBLIC_ORIGIN is unset", async () => {
    for (const path of ["/en", "/en/about", "/zh/about", "/nope"]) {
      const response = await fetch(`${server.url}${path}`, { headers: { host: "evil.example" } });
      const html = await response.text();
      expect(html).not.toContain("evil.example");
    }
  });
});
