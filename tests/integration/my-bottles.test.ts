import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { VirtualClock } from "../helpers/clock.ts";
import {
  bottleInput,
  CookieJar,
  failure,
  rows,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

const HOUR = 60 * 60 * 1000;
const clock = new VirtualClock(Date.UTC(2026, 0, 15, 2, 0));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { clock });
});
afterAll(() => server.close());

let n = 0;
/** A browser of its own (cookie jar) behind an address; public ones map to a country. */
function browser(address = `203.0.113.${++n}`, jar = new CookieJar()) {
  return trpcClient(server.url, { "X-Forwarded-For": address }, jar);
}

const bottle = (message: string, extra: Record<string, unknown> = {}) =>
  bottleInput(message, { timeZone: "Asia/Taipei", ...extra });

/** Discovers until the bottle turns up (other tests' bottles float in the same ocean). */
async function discoverUntil(api: ReturnType<typeof browser>, id: number, tries = 60) {
  for (let i = 0; i < tries; i++) {
    const { bottle: found } = await api.bottles.discover.query();
    if (found?.id === id) return found;
  }
  throw new Error(`bottle ${id} never came up`);
}

let password = 0;
const account = () => ({ username: `writer_${++password}`, password: "sea-glass-harbor-42" });

describe("my bottles", () => {
  test("found by two visitors from two countries and liked by one: 2 finds, 1 like, two flags", async () => {
    const a = browser();
    await a.bottles.confirmAge.mutate({ atLeast13: true });
    const { id } = await a.bottles.throw.mutate(bottle("Where did I wash ashore?"));
    const b = browser("8.8.8.8"); // United States
    const c = browser("168.95.1.1"); // Taiwan
    await discoverUntil(b, id);
    await discoverUntil(b, id); // the same visitor again: still one find
    await discoverUntil(c, id);
    await c.auth.signUp.mutate(account());
    expect(await c.bottles.toggleLike.mutate({ bottleId: id })).toEqual({ liked: true, count: 1 });

    const page = await a.bottles.mine.query({});
    const mine = page.bottles.find((x) => x.id === id);
    expect(mine).toMatchObject({
      message: "Where did I wash ashore?",
      state: "ocean",
      finds: 2,
      likes: 1,
      isPublic: false,
    });
    expect(mine?.shores).toEqual([
      { countryCode: "TW", finds: 1 },
      { countryCode: "US", finds: 1 },
    ]);
    // Nothing about the finders travels: no visitor, no address, no account.
    expect(Object.keys(mine ?? {}).sort()).toEqual(
      [
        "availableAt",
        "createdAt",
        "expiresAt",
        "finds",
        "id",
        "isPublic",
        "likes",
        "message",
        "shores",
        "state",
      ].sort(),
    );
    // The stored finds: one row per visitor, with a country and nothing else of them.
    const stored = await rows(
      server,
      sql<{
        country_code: string | null;
      }>`SELECT country_code FROM bottle_finds WHERE bottle_id = ${id} ORDER BY country_code`,
    );
    expect(stored.map((row) => row.country_code)).toEqual(["TW", "US"]);

    // The finds since the start, then nothing new since the answer's time.
    const since = await a.bottles.findsSince.query({ since: 0 });
    expect(since.finds).toBeGreaterThanOrEqual(2);
    expect((await a.bottles.findsSince.query({ since: since.asOf })).finds).toBe(0);
    clock.advance(1000);
    await discoverUntil(browser(), id);
    expect(await a.bottles.findsSince.query({ since: since.asOf })).toMatchObject({
      finds: 1,
      bottles: 1,
    });
    // Someone else's list does not hold it.
    expect((await b.bottles.mine.query({})).bottles).toEqual([]);
  });

  test("nobody but the writer can sink a bottle: NOT_FOUND, and it stays in the ocean", async () => {
    const a = browser();
    await a.bottles.confirmAge.mutate({ atLeast13: true });
    const { id } = await a.bottles.throw.mutate(bottle("Only I may sink this"));
    const d = browser();
    const refused = await failure(d.bottles.sink.mutate({ bottleId: id }));
    expect(refused.status).toBe(404);
    expect(refused.data.appCode).toBe("NOT_FOUND");
    expect((await a.bottles.mine.query({})).bottles.find((x) => x.id === id)?.state).toBe("ocean");
    await discoverUntil(d, id);

    // The writer sinks it: gone from the ocean and the public list for everyone.
    expect(await a.bottles.sink.mutate({ bottleId: id })).toEqual({ state: "sunk" });
    expect((await a.bottles.mine.query({})).bottles.find((x) => x.id === id)?.state).toBe("sunk");
    const reader = browser();
    for (let i = 0; i < 20; i++) {
      expect((await reader.bottles.discover.query()).bottle?.id).not.toBe(id);
    }
  });

  test("a sunk public bottle leaves the public list", async () => {
    const a = browser();
    await a.bottles.confirmAge.mutate({ atLeast13: true });
    const { id } = await a.bottles.throw.mutate(bottle("Public for a moment", { isPublic: true }));
    const reader = browser();
    const listed = async () =>
      (await reader.bottles.publicList.query()).bottles.some((x) => x.id === id);
    expect(await listed()).toBe(true);
    await a.bottles.sink.mutate({ bottleId: id });
    expect(await listed()).toBe(false);
  });

  test("signed in, a writer sees on another device what they threw while signed in", async () => {
    const credentials = account();
    const phone = browser();
    await phone.bottles.confirmAge.mutate({ atLeast13: true });
    await phone.auth.signUp.mutate(credentials);
    const { id: signedIn } = await phone.bottles.throw.mutate(bottle("Thrown while signed in"));
    await phone.auth.signOut.mutate();
    const { id: anonymous } = await phone.bottles.throw.mutate(bottle("Thrown signed out"));
    // This browser still holds both: they are its own by its cookie.
    expect((await phone.bottles.mine.query({})).bottles.map((x) => x.id)).toEqual([
      anonymous,
      signedIn,
    ]);

    const laptop = browser();
    expect((await laptop.bottles.mine.query({})).bottles).toEqual([]);
    await laptop.auth.signIn.mutate(credentials);
    expect((await laptop.bottles.mine.query({})).bottles.map((x) => x.message)).toEqual([
      "Thrown while signed in",
    ]);
    // And may sink it from there.
    await laptop.bottles.sink.mutate({ bottleId: signedIn });
    expect((await phone.bottles.mine.query({})).bottles.map((x) => x.state)).toEqual([
      "ocean",
      "sunk",
    ]);
    const refused = await failure(laptop.bottles.sink.mutate({ bottleId: anonymous }));
    expect(refused.data.appCode).toBe("NOT_FOUND");
  });

  test("deleting the account keeps its bottles, no longer tied to it", async () => {
    const credentials = account();
    const phone = browser();
    await phone.bottles.confirmAge.mutate({ atLeast13: true });
    await phone.auth.signUp.mutate(credentials);
    const { id } = await phone.bottles.throw.mutate(bottle("Outlives my account"));
    await phone.auth.deleteAccount.mutate({ password: credentials.password });
    const [row] = await rows(
      server,
      sql<{ user_id: string | null }>`SELECT user_id FROM bottles WHERE id = ${id}`,
    );
    expect(row).toEqual({ user_id: null });
    expect((await phone.bottles.mine.query({})).bottles.map((x) => x.id)).toEqual([id]);
  });

  test("states follow the clock: drifting, then in the ocean, then expired", async () => {
    const a = browser();
    await a.bottles.confirmAge.mutate({ atLeast13: true });
    const { id, expiresAt } = await a.bottles.throw.mutate(
      bottle("Drifting a while", { driftHours: 3, expiryDays: 1 }),
    );
    const state = async () => (await a.bottles.mine.query({})).bottles.find((x) => x.id === id);
    expect(await state()).toMatchObject({ state: "drifting", finds: 0 });
    clock.jump(3 * HOUR);
    expect((await state())?.state).toBe("ocean");
    // Expired at the end of its last day (23:59:59.999 in Taipei), until the next hourly purge.
    clock.set(expiresAt);
    expect((await state())?.state).toBe("expired");
  });

  test("bad input gets a clear error and changes nothing", async () => {
    const a = browser();
    await a.bottles.confirmAge.mutate({ atLeast13: true });
    const { id } = await a.bottles.throw.mutate(bottle("Bad input leaves me be"));
    for (const input of [{ bottleId: -1 }, { bottleId: 1.5 }, { bottleId: "x" }, {}]) {
      const refused = await failure(a.bottles.sink.mutate(input as { bottleId: number }));
      expect(refused.status).toBe(400);
      expect(refused.data.appCode).toBe("INVALID_INPUT");
    }
    for (const since of [-1, 0.5, "soon"]) {
      const refused = await failure(a.bottles.findsSince.query({ since: since as number }));
      expect(refused.data.appCode).toBe("INVALID_INPUT");
    }
    const refused = await failure(a.bottles.mine.query({ cursor: -3 }));
    expect(refused.data.appCode).toBe("INVALID_INPUT");
    expect((await a.bottles.mine.query({})).bottles.find((x) => x.id === id)?.state).toBe("ocean");
  });
});
