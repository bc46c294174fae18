import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type RawBuilder, sql } from "kysely";
import type { AppErrorData, FieldIssue } from "../../src/common/errors.ts";
import { SESSION_LIFETIME_MS } from "../../src/core/auth/sessions.ts";
import { VirtualClock } from "../helpers/clock.ts";
import {
  CookieJar,
  failure,
  rows,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// Password hashing (and here, many of them) is slow by design: on a busy machine these tests
// need the room ./scripts/test gives every test, also when run as a bare `bun test`.
setDefaultTimeout(20_000);

const clock = new VirtualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { clock });
});
afterAll(() => server.close());

const query = <T>(statement: RawBuilder<T>) => rows(server, statement);
const count = async (table: string) =>
  (await query(sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`))[0]?.n ?? 0;

let ipCounter = 0;
/** Each test speaks from its own address, as far as throttles are concerned. */
function visitor() {
  const jar = new CookieJar();
  const address = `203.0.113.${++ipCounter}`;
  return { jar, api: trpcClient(server.url, { "X-Forwarded-For": address }, jar) };
}

describe("sign up", () => {
  test("creates the account and a session cookie with safe flags", async () => {
    const { jar, api } = visitor();
    const { user } = await api.auth.signUp.mutate({
      username: "Mei_Lin",
      password: "sea-glass-42",
    });
    expect(user.username).toBe("Mei_Lin");
    const cookie = jar.lastSetCookies.find((c) => c.startsWith("session="));
    expect(cookie).toMatch(
      /^session=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/,
    );
    expect((await api.auth.me.query()).user).toEqual(user);
    // Only a hash of the secret is kept.
    const token = jar.cookies.get("session") ?? "";
    const [row] = await query(
      sql<{
        secret_hash: Uint8Array;
      }>`SELECT secret_hash FROM sessions WHERE id = ${token.split(".")[0] ?? ""}`,
    );
    expect(row?.secret_hash.length).toBe(32);
    expect(Buffer.from(row?.secret_hash ?? []).toString("base64url")).not.toBe(token.split(".")[1]);
  });

  test("usernames are unique without regard to case", async () => {
    const { api } = visitor();
    await api.auth.signUp.mutate({ username: "Harbor", password: "lighthouse-9" });
    const { status, data } = await failure(
      api.auth.signUp.mutate({ username: "hARBOR", password: "lighthouse-9" }),
    );
    expect(status).toBe(400);
    expect(data.issues).toEqual([{ field: "username", kind: "username_taken" }]);
  });

  test("two sign-ups for one name at the same moment: one account, the other told it is taken", async () => {
    // Both pass the look-up before either writes; the unique index decides (by its error code).
    const results = await Promise.allSettled(
      ["Tidepool", "tidepool"].map((username) =>
        visitor().api.auth.signUp.mutate({ username, password: "rock-pools-7" }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected");
    expect(refused && (await failure(Promise.reject(refused.reason)))).toMatchObject({
      status: 400,
      data: { issues: [{ field: "username", kind: "username_taken" }] },
    });
    const stored = await query(sql`SELECT id FROM users WHERE username_key = ${"tidepool"}`);
    expect(stored).toHaveLength(1);
  });

  test("bad input gets clear field errors and writes nothing", async () => {
    const { api } = visitor();
    const users = await count("users");
    const sessions = await count("sessions");
    const cases: Array<[Record<string, string>, string, FieldIssue["kind"]]> = [
      [{ username: "ab", password: "long-enough" }, "username", "too_short"],
      [{ username: "a".repeat(33), password: "long-enough" }, "username", "too_long"],
      [{ username: "has space", password: "long-enough" }, "username", "username_format"],
      [{ username: "emoji🐚", password: "long-enough" }, "username", "username_format"],
      [{ username: "<script>", password: "long-enough" }, "username", "username_format"],
      [{ username: "shortpw", password: "1234567" }, "password", "too_short"],
      [{ username: "longpw", password: "x".repeat(257) }, "password", "too_long"],
      [{ username: "Samename", password: "sAMEname" }, "password", "password_is_username"],
    ];
    for (const [input, field, kind] of cases) {
      // biome-ignore lint/suspicious/noExplicitAny: sending what the types forbid is the point.
      const { status, data } = await failure(api.auth.signUp.mutate(input as any));
      expect(status).toBe(400);
      expect(data.issues).toContainEqual({
        field,
        kind,
        ...(kind.startsWith("too_") ? { limit: expect.any(Number) } : {}),
      });
    }
    const huge = await fetch(`${server.url}/trpc/auth.signUp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify({ username: "huge", password: "p".repeat(1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { data: AppErrorData } }).error.data.appCode).toBe(
      "PAYLOAD_TOO_LARGE",
    );
    expect(await count("users")).toBe(users);
    expect(await count("sessions")).toBe(sessions);
  });
});

describe("sign in and out", () => {
  test("a new session at every sign-in; sign-out deletes it and clears the cookie", async () => {
    const { jar, api } = visitor();
    await api.auth.signUp.mutate({ username: "tidewalker", password: "coral-reef-1" });
    await api.auth.signOut.mutate();
    expect(jar.cookies.has("session")).toBe(false);
    expect((await api.auth.me.query()).user).toBeNull();

    await api.auth.signIn.mutate({ username: "TideWalker", password: "coral-reef-1" });
    const first = jar.cookies.get("session");
    await api.auth.signIn.mutate({ username: "tidewalker", password: "coral-reef-1" });
    const second = jar.cookies.get("session");
    expect(second).not.toBe(first);
    const id = (t?: string) => t?.split(".")[0] ?? "";
    expect(await query(sql`SELECT id FROM sessions WHERE id = ${id(first)}`)).toHaveLength(0);
    expect((await api.auth.me.query()).user?.username).toBe("tidewalker");

    await api.auth.signOut.mutate();
    expect(await query(sql`SELECT id FROM sessions WHERE id = ${id(second)}`)).toHaveLength(0);
  });

  test("a wrong password and an unknown name get the same answer", async () => {
    const { api } = visitor();
    await api.auth.signUp.mutate({ username: "samewords", password: "right-password" });
    const wrong = await failure(
      api.auth.signIn.mutate({ username: "samewords", password: "wrong-password" }),
    );
    const unknown = await failure(
      api.auth.signIn.mutate({ username: "nobody-here", password: "wrong-password" }),
    );
    expect(wrong).toEqual(unknown);
    expect(wrong.status).toBe(401);
    expect(wrong.data.appCode).toBe("INVALID_CREDENTIALS");
  });

  test("a token with a wrong secret is refused and its cookie cleared", async () => {
    const { jar, api } = visitor();
    await api.auth.signUp.mutate({ username: "stolen", password: "stolen-token-1" });
    const [id] = (jar.cookies.get("session") ?? "").split(".");
    jar.cookies.set("session", `${id}.${"A".repeat(43)}`);
    expect((await api.auth.me.query()).user).toBeNull();
    expect(
      jar.lastSetCookies.some((c) => c.startsWith("session=;") && c.includes("Max-Age=0")),
    ).toBe(true);
  });
});

describe("session lifetime", () => {
  test("slides forward when used after an hour, and expires after 30 unused days", async () => {
    const { jar, api } = visitor();
    await api.auth.signUp.mutate({ username: "slider", password: "sliding-door" });
    const id = (jar.cookies.get("session") ?? "").split(".")[0] ?? "";
    const expiry = async () =>
      (
        await query(sql<{ expires_at: number }>`SELECT expires_at FROM sessions WHERE id = ${id}`)
      )[0]?.expires_at;
    const start = clock.now();
    expect(await expiry()).toBe(start + SESSION_LIFETIME_MS);

    clock.jump(30 * 60 * 1000);
    await api.auth.me.query();
    expect(await expiry()).toBe(start + SESSION_LIFETIME_MS); // not yet: less than an hour since the last check
    expect(jar.lastSetCookies).toEqual([]);

    clock.jump(31 * 60 * 1000);
    expect((await api.auth.me.query()).user?.username).toBe("slider");
    expect(await expiry()).toBe(clock.now() + SESSION_LIFETIME_MS);
    expect(jar.lastSetCookies[0]).toContain("Max-Age=2592000");

    clock.jump(SESSION_LIFETIME_MS - 1000);
    expect((await api.auth.me.query()).user?.username).toBe("slider");
    clock.jump(SESSION_LIFETIME_MS + 1);
    expect((await api.auth.me.query()).user).toBeNull();
    expect(await expiry()).toBeUndefined();
  });
});

describe("CSRF", () => {
  const body = JSON.stringify({ username: "csrf-target", password: "whatever-123" });
  const post = (headers: Record<string, string>) =>
    fetch(`${server.url}/trpc/auth.signIn`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body,
    });

  test("cross-site and foreign-origin mutations are refused", async () => {
    const refused: Array<Record<string, string>> = [
      { "Sec-Fetch-Site": "cross-site", Origin: server.url },
      { "Sec-Fetch-Site": "same-site" },
      { "Sec-Fetch-Site": "none" },
      { Origin: "https://evil.example" },
      { Origin: "null" },
      {},
    ];
    for (const headers of refused) {
      const response = await post(headers);
      expect(response.status).toBe(403);
      expect(
        ((await response.json()) as { error: { data: AppErrorData } }).error.data.appCode,
      ).toBe("FORBIDDEN");
    }
  });

  test("same-origin mutations pass", async () => {
    expect((await post({ "Sec-Fetch-Site": "same-origin" })).status).toBe(401);
    expect((await post({ Origin: server.url })).status).toBe(401);
  });

  test("queries by GET change nothing and need no origin", async () => {
    const response = await fetch(`${server.url}/trpc/auth.me`);
    expect(response.status).toBe(200);
    const mutationByGet = await fetch(`${server.url}/trpc/auth.signOut`);
    expect(mutationByGet.status).toBe(405);
  });
});

describe("password guessing", () => {
  test("ten failures are answered 401, the eleventh 429 with Retry-After, and the window frees it", async () => {
    const owner = visitor();
    await owner.api.auth.signUp.mutate({ username: "guarded", password: "correct-horse" });
    const guesser = visitor();
    for (let i = 0; i < 10; i++) {
      // A second apart: an address also gets only a few password hashes a second.
      clock.advance(1000);
      const { status } = await failure(
        guesser.api.auth.signIn.mutate({ username: "guarded", password: `guess-${i}-x` }),
      );
      expect(status).toBe(401);
    }
    const limited = await failure(
      guesser.api.auth.signIn.mutate({ username: "guarded", password: "correct-horse" }),
    );
    expect(limited.status).toBe(429);
    expect(limited.data.appCode).toBe("RATE_LIMITED");
    expect(limited.data.retryAfter).toBeGreaterThan(790);
    const raw = await fetch(`${server.url}/trpc/auth.signIn`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify({ username: "guarded", password: "correct-horse" }),
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get("retry-after"))).toBeGreaterThan(790);

    clock.jump(15 * 60 * 1000 + 1);
    const { user } = await guesser.api.auth.signIn.mutate({
      username: "guarded",
      password: "correct-horse",
    });
    expect(user.username).toBe("guarded");
  });
});

describe("account", () => {
  test("changing the password signs out other devices and keeps this one", async () => {
    const phone = visitor();
    await phone.api.auth.signUp.mutate({ username: "two-devices", password: "first-password" });
    const laptop = visitor();
    await laptop.api.auth.signIn.mutate({ username: "two-devices", password: "first-password" });
    await phone.api.auth.changePassword.mutate({
      currentPassword: "first-password",
      newPassword: "second-password",
    });
    expect((await phone.api.auth.me.query()).user?.username).toBe("two-devices");
    expect((await laptop.api.auth.me.query()).user).toBeNull();
    const { status } = await failure(
      laptop.api.auth.signIn.mutate({ username: "two-devices", password: "first-password" }),
    );
    expect(status).toBe(401);
    await laptop.api.auth.signIn.mutate({ username: "two-devices", password: "second-password" });
  });

  test("sign out everywhere ends every session", async () => {
    const a = visitor();
    await a.api.auth.signUp.mutate({ username: "everywhere", password: "everywhere-pw" });
    const b = visitor();
    await b.api.auth.signIn.mutate({ username: "everywhere", password: "everywhere-pw" });
    await a.api.auth.signOutEverywhere.mutate();
    expect((await a.api.auth.me.query()).user).toBeNull();
    expect((await b.api.auth.me.query()).user).toBeNull();
  });

  test("deleting the account removes the user and its sessions", async () => {
    const { api } = visitor();
    const { user } = await api.auth.signUp.mutate({
      username: "leaving",
      password: "goodbye-tide",
    });
    const wrong = await failure(api.auth.deleteAccount.mutate({ password: "not-it-at-all" }));
    expect(wrong.status).toBe(401);
    await api.auth.deleteAccount.mutate({ password: "goodbye-tide" });
    expect(await query(sql`SELECT id FROM users WHERE id = ${user.id}`)).toHaveLength(0);
    expect(await query(sql`SELECT id FROM sessions WHERE user_id = ${user.id}`)).toHaveLength(0);
    expect((await api.auth.me.query()).user).toBeNull();
  });

  test("account actions need a session", async () => {
    const { api } = visitor();
    const { status, data } = await failure(api.auth.signOutEverywhere.mutate());
    expect(status).toBe(401);
    expect(data.appCode).toBe("UNAUTHORIZED");
  });
});
