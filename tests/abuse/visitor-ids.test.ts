import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import {
  type ChatTester,
  chatTester,
  isType,
  listening,
  pairListening,
  visitorId,
} from "../helpers/chat-client.ts";
import {
  bottleInput,
  CookieJar,
  rows,
  signedVisitorCookie,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// Visitor ids, tried as an attacker would: a cookie planted from a sibling subdomain or over
// plain http, and ids the client made up. Only ids the server issued (signed) are adopted.
const ORIGIN = "https://tidings.example.org";
let https: TestServer;
let plain: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  [https, plain] = await Promise.all([
    startTestServer({ PUBLIC_ORIGIN: ORIGIN, TRUST_PROXY: "true" }),
    startTestServer({ TRUST_PROXY: "true" }),
  ]);
});
afterAll(async () => {
  for (const t of open) t.close();
  await Promise.all([https.close(), plain.close()]);
});

let addresses = 0;
const nextAddress = () => `198.51.100.${(++addresses % 250) + 1}`;

/** The visitor cookie a response sets (`name=value`), and the id in its value. */
function issued(response: Response): { cookie: string; id: string } {
  const line = response.headers.getSetCookie().find((c) => /^(__Host-)?visitor=/.test(c)) ?? "";
  const cookie = line.split(";")[0] ?? "";
  const value = cookie.slice(cookie.indexOf("=") + 1);
  return { cookie, id: value.split(".")[0] ?? "" };
}

function page(server: TestServer, cookie?: string): Promise<Response> {
  return fetch(`${server.url}/en`, {
    headers: { "X-Forwarded-For": nextAddress(), ...(cookie ? { cookie } : {}) },
  });
}

function tester(server: TestServer, cookie: string): ChatTester {
  const origin = server === https ? ORIGIN : server.url;
  const t = chatTester(server.url, { cookie, origin, address: nextAddress() });
  open.push(t);
  return t;
}

describe("over https, a planted visitor cookie is not adopted", () => {
  test("a plain visitor cookie planted with another's id gets a fresh __Host-visitor", async () => {
    const attacker = issued(await page(https));
    expect(attacker.cookie).toStartWith("__Host-visitor=");
    const value = attacker.cookie.slice("__Host-visitor=".length);
    // As a sibling subdomain or a plain http answer can set it: the bare id, or the whole value.
    for (const planted of [`visitor=${attacker.id}`, `visitor=${value}`]) {
      const victim = issued(await page(https, planted));
      expect(victim.cookie).toStartWith("__Host-visitor=");
      expect(victim.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(victim.id).not.toBe(attacker.id);
    }
  });

  test("the attacker's socket gets none of the victim's chat and cannot end it", async () => {
    const attacker = issued(await page(https));
    const spy = await listening(tester(https, attacker.cookie));
    const victim = await listening(tester(https, `visitor=${attacker.id}`));
    const stranger = await listening(
      tester(https, signedVisitorCookie(visitorId(), { https: true })),
    );
    await pairListening(victim, stranger);
    await stranger.api.chat.send.mutate({ content: "Meet me at the harbour" });
    await victim.waitFor(isType("message"));

    await spy.api.chat.end.mutate();
    await stranger.api.chat.send.mutate({ content: "Still there?" });
    await victim.waitFor((e) => e.type === "message" && e.message.content === "Still there?");
    expect(victim.events.some(isType("partner-left"))).toBe(false);
    expect(stranger.events.some(isType("partner-left"))).toBe(false);
    expect(spy.events.some((e) => e.type === "matched" || e.type === "message")).toBe(false);
  });
});

describe("a visitor id the server never issued gets a fresh one", () => {
  test("made-up, tampered and foreign-signed values are replaced, over HTTP and http sites", async () => {
    const real = issued(await page(plain));
    const [id = "", mac = ""] = real.cookie.slice("visitor=".length).split(".");
    const forged = [
      `visitor=${visitorId()}`,
      `visitor=${id}`,
      `visitor=${id}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`,
      `visitor=${visitorId()}.${mac}`,
      signedVisitorCookie(visitorId(), { secret: "another-sites-secret-of-32-characters!" }),
    ];
    for (const cookie of forged) {
      const fresh = issued(await page(plain, cookie));
      expect(fresh.cookie).toStartWith("visitor=");
      expect(fresh.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(cookie).not.toContain(fresh.id);
    }
    // The issued value itself is kept, and not sent again.
    expect((await page(plain, real.cookie)).headers.get("set-cookie")).toBeNull();
  });

  test("a socket claiming a victim's id without its MAC gets none of their chat", async () => {
    const issuedToVictim = issued(await page(https));
    const victim = await listening(tester(https, issuedToVictim.cookie));
    const id = issuedToVictim.id;
    // The victim's id, learned somehow, sent bare under the plain name, or with a made-up MAC.
    const spy = await listening(tester(https, `__Host-visitor=${id}.${"A".repeat(22)}`));
    const bare = await listening(tester(https, `visitor=${id}`));
    const stranger = await listening(
      tester(https, signedVisitorCookie(visitorId(), { https: true })),
    );
    await pairListening(victim, stranger);
    await stranger.api.chat.send.mutate({ content: "Hello, stranger" });
    await victim.waitFor(isType("message"));
    await spy.api.chat.end.mutate();
    await bare.api.chat.end.mutate();
    await stranger.api.chat.send.mutate({ content: "Still here" });
    await victim.waitFor((e) => e.type === "message" && e.message.content === "Still here");
    for (const t of [spy, bare]) {
      expect(t.events.some((e) => e.type === "matched" || e.type === "message")).toBe(false);
    }
  });

  test("no bad visitor cookie brings a 5xx, over HTTP or the chat socket", async () => {
    const { id } = issued(await page(plain));
    const values = [
      "",
      ".",
      `${id}.`,
      `.${id}`,
      `${id}.${id}.${id}`,
      `${id}.${"A".repeat(500)}`,
      `${id}.%ZZ`,
      `${id}.${"é".repeat(22)}`,
      "%00%00",
      "x".repeat(4000),
    ];
    for (const server of [plain, https]) {
      for (const value of values) {
        for (const name of ["visitor", "__Host-visitor"]) {
          const cookie = `${name}=${value}`;
          for (const path of ["/en", "/trpc/auth.me"]) {
            const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
            expect(response.status).toBe(200);
            expect(issued(response).id).toMatch(/^[A-Za-z0-9_-]{22}$/);
          }
        }
      }
      // The socket's upgrade reads the same cookie the same way.
      const socket = tester(server, `visitor=${id}.${"A".repeat(500)}`);
      await listening(socket);
    }
  });
});

describe("an existing visitor keeps their id", () => {
  test("over https, an unsigned __Host-visitor from before is kept and signed once", async () => {
    // Set before ids were signed: the __Host- name, which only this origin over https can set.
    const old = "beforesigning000000000";
    const jar = new CookieJar();
    jar.cookies.set("__Host-visitor", old);
    const api = trpcClient(https.url, { Origin: ORIGIN, "X-Forwarded-For": nextAddress() }, jar);
    await api.bottles.confirmAge.mutate({ atLeast13: true });
    const value = jar.cookies.get("__Host-visitor") ?? "";
    expect(value).toStartWith(`${old}.`);
    // Signed from now on: their age answer and bottles stay theirs, and nothing more is set.
    await api.bottles.throw.mutate(bottleInput("Thrown by a visitor from before"));
    expect(jar.cookies.get("__Host-visitor")).toBe(value);
    expect(jar.lastSetCookies.some((c) => c.startsWith("__Host-visitor="))).toBe(false);
    const written = await rows<{ visitor_id: string }>(
      https,
      sql`SELECT visitor_id FROM bottles WHERE message = ${"Thrown by a visitor from before"}`,
    );
    expect(written).toEqual([{ visitor_id: old }]);
  });

  test("on an http site, an unsigned visitor cookie starts afresh", async () => {
    // Nothing there stops a planted cookie, so an unsigned value is never taken on trust.
    const old = "plainhttpvisitor000000";
    const fresh = issued(await page(plain, `visitor=${old}`));
    expect(fresh.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(fresh.id).not.toBe(old);
  });
});
