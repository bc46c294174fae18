import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { banFromChat } from "../../src/core/admin/operator.ts";
import { SESSION_LIFETIME_MS } from "../../src/core/auth/sessions.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import { type ChatTester, chatTester, isType, listening } from "../helpers/chat-client.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  bottleInput,
  CookieJar,
  failure,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";

// What the running site does by itself, on its clock: forgetting spent limits, reading the
// operator's switches and bans written elsewhere, and the hourly purge. The site runs on a
// virtual clock here, so each of these happens when the test moves time, not after a pause.
const HOUR = 60 * 60 * 1000;
const clock = new VirtualClock(Date.UTC(2026, 0, 15, 2, 0));
let server: TestServer;
const open: ChatTester[] = [];
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { clock });
});
afterAll(async () => {
  for (const t of open) t.close();
  await server.close();
});

let n = 0;
const nextAddress = () => `203.0.113.${++n}`;

describe("the site's own timers, on its clock", () => {
  test("spent rate limits are forgotten once their windows have passed", async () => {
    const { limiter } = server.app.services;
    // On Redis, keys expire with their windows instead (the suites' cluster run).
    if (!(limiter instanceof MemoryRateLimiter)) return;
    clock.jump(2 * HOUR);
    expect(limiter.size).toBe(0);
    const reader = trpcClient(server.url, { "X-Forwarded-For": nextAddress() });
    await reader.bottles.discover.query();
    // Discover's limit is per visitor and per address: two keys, a minute each.
    expect(limiter.size).toBe(2);
    clock.advance(60_000);
    // Pruned each minute: the window has just passed at the minute's mark.
    expect(limiter.size).toBe(0);
  });

  test("an off switch another instance wrote is read within 5 seconds", async () => {
    const { db, features } = server.app.services;
    const reader = trpcClient(server.url, { "X-Forwarded-For": nextAddress() });
    await reader.bottles.publicList.query();
    await db
      .insertInto("site_settings")
      .values({ key: "feature:publicBottles", value: "off", updated_at: clock.now() })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: "off" }))
      .execute();
    expect(features.states.publicBottles).toBe(true);
    clock.advance(5000);
    await eventually(() => !features.states.publicBottles, "the switch read");
    expect((await failure(reader.bottles.publicList.query())).data.appCode).toBe("FEATURE_RESTING");
    await db.deleteFrom("site_settings").where("key", "=", "feature:publicBottles").execute();
    clock.advance(5000);
    await eventually(() => features.states.publicBottles, "the switch read again");
  });

  test("a ban the operator's command wrote ends the visitor's chat within 10 seconds", async () => {
    const visitor = await listening(chatTester(server.url, { address: nextAddress() }));
    open.push(visitor);
    expect(await visitor.start()).toEqual({ state: "waiting" });
    await banFromChat(
      server.app.services.db,
      `visitor:${visitor.visitorId}`,
      clock.now() + HOUR,
      clock.now(),
    );
    expect(visitor.events.some(isType("banned"))).toBe(false);
    clock.advance(10_000);
    const banned = await visitor.waitFor(isType("banned"));
    expect(banned).toMatchObject({ until: clock.now() - 10_000 + HOUR });
    expect((await failure(visitor.start())).data.appCode).toBe("CHAT_BANNED");
  });

  test("each hour, expired bottles and sessions leave the database", async () => {
    const { db } = server.app.services;
    const jar = new CookieJar();
    const writer = trpcClient(server.url, { "X-Forwarded-For": nextAddress() }, jar);
    await writer.auth.signUp.mutate({ username: "hourly_purge", password: "long-enough-pw" });
    await writer.bottles.confirmAge.mutate({ atLeast13: true });
    const { id } = await writer.bottles.throw.mutate(
      bottleInput("Gone by the purge", { expiryDays: 1 }),
    );
    const bottle = () => db.selectFrom("bottles").select("id").where("id", "=", id).execute();
    const sessions = () => db.selectFrom("sessions").select("id").execute();
    expect(await bottle()).toHaveLength(1);
    expect(await sessions()).toHaveLength(1);
    // Past the bottle's last day, the next hourly purge removes it; the session stays.
    clock.jump(2 * 24 * HOUR + HOUR);
    await eventually(async () => (await bottle()).length === 0, "the bottle purged");
    expect(await sessions()).toHaveLength(1);
    clock.jump(SESSION_LIFETIME_MS);
    await eventually(async () => (await sessions()).length === 0, "the session purged");
  });
});
