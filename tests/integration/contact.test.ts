import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppErrorData } from "../../src/common/errors.ts";
import {
  failure,
  signedVisitorCookie,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function storedMessages() {
  return server.app.services.db
    .selectFrom("contact_messages")
    .select(["name", "email", "message", "locale"])
    .orderBy("id")
    .execute();
}

const good = { name: "Mei", email: "mei@example.org", message: "The tide brought me here." };

describe("contact.send", () => {
  test("stores a good message with the visitor's language", async () => {
    const client = trpcClient(server.url, { "x-tidings-locale": "zh-TW" });
    expect(await client.contact.send.mutate(good)).toEqual({ ok: true });
    expect(await storedMessages()).toEqual([{ ...good, locale: "zh-TW" }]);
  });

  test("bad input gets field errors and stores nothing", async () => {
    const client = trpcClient(server.url);
    const before = (await storedMessages()).length;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...good, name: "" }, "name", "required"],
      [{ ...good, name: "   " }, "name", "required"],
      [{ email: good.email, message: good.message }, "name", "required"],
      [{ ...good, email: "mei-at-example" }, "email", "invalid_email"],
      [{ ...good, message: "x".repeat(10_000) }, "message", "too_long"],
      [{ ...good, name: "n".repeat(10_000) }, "name", "too_long"],
    ];
    for (const [input, field, kind] of cases) {
      // biome-ignore lint/suspicious/noExplicitAny: the point is to send what the types forbid.
      const { status, data } = await failure(client.contact.send.mutate(input as any));
      expect(status).toBe(400);
      expect(data.appCode).toBe("INVALID_INPUT");
      expect(data.issues).toContainEqual(expect.objectContaining({ field, kind }));
    }
    expect(await storedMessages()).toHaveLength(before);
  });

  test("a body over the size bound is refused before it is read", async () => {
    const response = await fetch(`${server.url}/trpc/contact.send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify({ ...good, message: "x".repeat(100_000) }),
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { data: AppErrorData } };
    expect(body.error.data.appCode).toBe("PAYLOAD_TOO_LARGE");
  });

  test("past five messages an hour, a visitor is told when to retry, with HTTP 429", async () => {
    const client = trpcClient(server.url, {
      Cookie: signedVisitorCookie("AAAAAAAAAAAAAAAAAAAAAA"),
    });
    const before = (await storedMessages()).length;
    // One message already came from this address in the first test.
    for (let i = before; i < 5; i++) await client.contact.send.mutate(good);
    const { status, data } = await failure(client.contact.send.mutate(good));
    expect(status).toBe(429);
    expect(data.appCode).toBe("RATE_LIMITED");
    expect(data.retryAfter).toBeGreaterThan(3000);
    expect(await storedMessages()).toHaveLength(5);
    const raw = await fetch(`${server.url}/trpc/contact.send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify(good),
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get("retry-after"))).toBeGreaterThan(3000);
  });

  test("errors carry no stack trace", async () => {
    const response = await fetch(`${server.url}/trpc/contact.send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain("stack");
  });
});
