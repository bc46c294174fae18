import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { CHILD_SAFETY_HIDES_PER_DAY } from "../../src/core/bottles/reports.ts";
import { ipKey } from "../../src/core/limits/ip-key.ts";
import { VirtualClock } from "../helpers/clock.ts";
import {
  bottleInput,
  bottleWriter,
  CookieJar,
  failure,
  rows,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";
import { distinctText } from "../helpers/texts.ts";

const HOUR = 60 * 60 * 1000;
const clock = new VirtualClock(Date.UTC(2026, 0, 15, 2, 0)); // 10:00 in Taipei
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { clock });
});
afterAll(() => server.close());

/**
 * The newest bottle's id, to count what a test writes after it: a count of every bottle is not
 * steady, as the purge takes an earlier test's expired bottles meanwhile.
 */
async function newestBottle(): Promise<number> {
  const [row] = await rows(server, sql<{ id: number | null }>`SELECT max(id) AS id FROM bottles`);
  return Number(row?.id ?? 0);
}

async function bottlesAfter(id: number): Promise<number> {
  const [row] = await rows(
    server,
    sql<{ n: number }>`SELECT count(*) AS n FROM bottles WHERE id > ${id}`,
  );
  return Number(row?.n ?? 0);
}

let n = 0;
/** A visitor of its own (cookie and address); the locale header is the interface language. */
function visitor(address = `198.51.100.${++n}`, locale = "en") {
  const jar = new CookieJar();
  return trpcClient(server.url, { "X-Forwarded-For": address, "x-tidings-locale": locale }, jar);
}

/** A visitor who answered the 13-or-older question, as the create page asks before a throw. */
async function aWriter(address?: string, locale?: string) {
  const api = visitor(address, locale);
  await api.bottles.confirmAge.mutate({ atLeast13: true });
  return api;
}

const bottle = (message: string, extra: Record<string, unknown> = {}) =>
  bottleInput(message, { timeZone: "Asia/Taipei", ...extra });

/** Discovers until the given message turns up (the pick is random among the newest 50). */
async function discoverUntil(api: ReturnType<typeof visitor>, message: string, tries = 40) {
  for (let i = 0; i < tries; i++) {
    const { bottle: found } = await api.bottles.discover.query();
    if (found?.message === message) return found;
  }
  return null;
}

describe("the ocean", () => {
  test("a bottle thrown by one visitor is found by another, with the writer's country", async () => {
    const writer = await aWriter("168.95.1.1");
    const { id } = await writer.bottles.throw.mutate(bottle("Hello from Taipei"));
    const reader = visitor();
    const found = await discoverUntil(reader, "Hello from Taipei");
    expect(found).toMatchObject({
      id,
      country: { code: "TW", name: "Taiwan" },
      likeCount: 0,
      isLiked: false,
    });
    // Nothing that identifies the writer travels with it (the pass is an expiry and a signature).
    expect(found?.shownPass).toMatch(/^[0-9a-z]+\.[\w-]{32}$/);
    expect(Object.keys(found ?? {}).sort()).toEqual(
      [
        "shownPass",
        "country",
        "createdAt",
        "driftHours",
        "id",
        "isLiked",
        "isPublic",
        "likeCount",
        "message",
      ].sort(),
    );
    const [row] = await rows(
      server,
      sql<{ ip_key: string }>`SELECT ip_key FROM bottles WHERE id = ${id}`,
    );
    // Only the keyed hash of the writer's address is kept.
    expect(row?.ip_key).toBe(ipKey(server.app.services.config.secret, "168.95.1.1"));
    expect(row?.ip_key).not.toContain("168.95");
  });

  test("the writer never draws their own bottle", async () => {
    const fresh = await startTestServer({ TRUST_PROXY: "true" });
    try {
      const jar = new CookieJar();
      const writer = await bottleWriter(fresh.url, { "X-Forwarded-For": "203.0.113.1" }, jar);
      await writer.bottles.throw.mutate(bottle("Only mine"));
      for (let i = 0; i < 5; i++) expect((await writer.bottles.discover.query()).bottle).toBeNull();
      const other = trpcClient(fresh.url, { "X-Forwarded-For": "203.0.113.2" });
      expect((await other.bottles.discover.query()).bottle?.message).toBe("Only mine");
    } finally {
      await fresh.close();
    }
  });

  test("discover says when nothing was found but the reader's own bottle is out there", async () => {
    const fresh = await startTestServer({ TRUST_PROXY: "true" });
    try {
      const writer = await bottleWriter(
        fresh.url,
        { "X-Forwarded-For": "203.0.113.3" },
        new CookieJar(),
      );
      // An empty ocean: nothing found, and nothing of theirs out there.
      expect(await writer.bottles.discover.query()).toEqual({ bottle: null, onlyYours: false });
      // Still drifting, or already afloat: theirs is the only one either way.
      await writer.bottles.throw.mutate(bottle("Mine, drifting", { driftHours: 2 }));
      expect(await writer.bottles.discover.query()).toEqual({ bottle: null, onlyYours: true });
      await writer.bottles.throw.mutate(bottle("Mine, afloat"));
      expect(await writer.bottles.discover.query()).toEqual({ bottle: null, onlyYours: true });
      // Another reader finds it, and is not told it is theirs.
      const other = trpcClient(fresh.url, { "X-Forwarded-For": "203.0.113.4" });
      const found = await other.bottles.discover.query();
      expect(found.bottle?.message).toBe("Mine, afloat");
      expect(found.onlyYours).toBe(false);
      // Sunk, both of them: the writer has nothing out there any more.
      const { bottles } = await writer.bottles.mine.query({});
      for (const mine of bottles) await writer.bottles.sink.mutate({ bottleId: mine.id });
      expect(await writer.bottles.discover.query()).toEqual({ bottle: null, onlyYours: false });
    } finally {
      await fresh.close();
    }
  });

  test("drift hides a bottle until it is due", async () => {
    const writer = await aWriter();
    await writer.bottles.throw.mutate(
      bottle("Drifting for two hours", { driftHours: 2, isPublic: true }),
    );
    const reader = visitor();
    expect(await discoverUntil(reader, "Drifting for two hours", 10)).toBeNull();
    expect((await reader.bottles.publicList.query()).bottles.map((b) => b.message)).not.toContain(
      "Drifting for two hours",
    );
    clock.jump(2 * HOUR);
    expect(await discoverUntil(reader, "Drifting for two hours")).not.toBeNull();
  });

  test("expiry hides a bottle at the end of its last day in the writer's zone, and 0 days means 7", async () => {
    const writer = await aWriter();
    const start = clock.now();
    const { expiresAt } = await writer.bottles.throw.mutate(
      bottle("Gone after a day", { expiryDays: 1 }),
    );
    const { expiresAt: sevenDays } = await writer.bottles.throw.mutate(
      bottle("Default expiry", { expiryDays: 0 }),
    );
    expect(new Date(expiresAt).toISOString().slice(11)).toBe("15:59:59.999Z"); // midnight in Taipei
    expect(sevenDays - expiresAt).toBe(6 * 24 * HOUR);
    expect(expiresAt).toBeGreaterThan(start);
    const reader = visitor();
    clock.set(expiresAt);
    expect(await discoverUntil(reader, "Gone after a day", 15)).toBeNull();
    clock.set(expiresAt - 1);
    expect(await discoverUntil(reader, "Gone after a day")).not.toBeNull();
    clock.set(expiresAt + 1);
  });

  test("a bottle that would expire before it surfaces is refused", async () => {
    const { status, data } = await failure(
      (await aWriter()).bottles.throw.mutate(
        bottle("Too late", { driftHours: 168, expiryDays: 1 }),
      ),
    );
    expect(status).toBe(400);
    expect(data.issues).toEqual([{ field: "driftHours", kind: "drift_past_expiry" }]);
    // Counted by its text: the purge may take an earlier test's expired bottle meanwhile.
    const [row] = await rows(
      server,
      sql<{ n: number }>`SELECT count(*) AS n FROM bottles WHERE message = ${"Too late"}`,
    );
    expect(Number(row?.n ?? 0)).toBe(0);
  });

  test("moderation refuses inappropriate content in both languages and stores nothing", async () => {
    const newest = await newestBottle();
    for (const message of ["you are a fucking idiot", "f u c k you", "幹你娘"]) {
      const { status, data } = await failure(
        (await aWriter()).bottles.throw.mutate(bottle(message)),
      );
      expect(status).toBe(422);
      expect(data.appCode).toBe("CONTENT_REJECTED");
    }
    expect(await bottlesAfter(newest)).toBe(0);
  });

  test("a bottle with a link, an e-mail address, a phone number or a messenger account is refused", async () => {
    const newest = await newestBottle();
    for (const message of [
      "http://a.example http://b.example http://c.example http://d.example",
      "find me at mei.lin@example.org",
      "打給我 0912-345-678",
      "加我微信 mei0912",
      "LINE ID: mei_0912",
    ]) {
      const { status, data } = await failure(
        (await aWriter()).bottles.throw.mutate(bottle(message)),
      );
      expect(status).toBe(422);
      expect(data.appCode).toBe("CONTENT_HAS_CONTACT");
    }
    expect(await bottlesAfter(newest)).toBe(0);
  });

  test("public bottles form the collection; private ones do not", async () => {
    const writer = await aWriter();
    await writer.bottles.throw.mutate(bottle("For everyone", { isPublic: true }));
    await writer.bottles.throw.mutate(bottle("Just for one", { isPublic: false }));
    const { bottles } = await visitor().bottles.publicList.query();
    const messages = bottles.map((b) => b.message);
    expect(messages).toContain("For everyone");
    expect(messages).not.toContain("Just for one");
    expect(bottles.length).toBeLessThanOrEqual(20);
    expect(bottles.every((b) => b.isPublic)).toBe(true);
  });
});

describe("bad input", () => {
  test("is refused with a clear error and writes nothing", async () => {
    const api = await aWriter();
    const newest = await newestBottle();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ message: "" }, "message"],
      [{ message: "   \n  " }, "message"],
      [{ message: "x".repeat(1001) }, "message"],
      [{ driftHours: -1 }, "driftHours"],
      [{ driftHours: 169 }, "driftHours"],
      [{ driftHours: 1.5 }, "driftHours"],
      [{ locale: "xx" }, "locale"],
      [{ timeZone: "Nowhere/Atlantis" }, "timeZone"],
    ];
    for (const [extra, field] of cases) {
      // biome-ignore lint/suspicious/noExplicitAny: sending what the types forbid is the point.
      const { status, data } = await failure(api.bottles.throw.mutate(bottle("ok", extra) as any));
      expect(status).toBe(400);
      expect(data.appCode).toBe("INVALID_INPUT");
      expect(data.issues?.map((i) => i.field)).toContain(field);
    }
    const huge = await fetch(`${server.url}/trpc/bottles.throw`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify(bottle("x".repeat(1024 * 1024))),
    });
    expect(huge.status).toBe(413);
    expect(await bottlesAfter(newest)).toBe(0);
  });
});

describe("likes", () => {
  test("need a session, then toggle and count per user", async () => {
    const writer = await aWriter();
    const { id } = await writer.bottles.throw.mutate(bottle("Like me", { isPublic: true }));
    const anonymous = visitor();
    const { status, data } = await failure(anonymous.bottles.toggleLike.mutate({ bottleId: id }));
    expect(status).toBe(401);
    expect(data.appCode).toBe("UNAUTHORIZED");

    const alice = visitor();
    await alice.auth.signUp.mutate({ username: `alice${n}`, password: "alice-password" });
    const bob = visitor();
    await bob.auth.signUp.mutate({ username: `bob${n}`, password: "bob-password-1" });
    expect(await alice.bottles.toggleLike.mutate({ bottleId: id })).toEqual({
      liked: true,
      count: 1,
    });
    expect(await bob.bottles.toggleLike.mutate({ bottleId: id })).toEqual({
      liked: true,
      count: 2,
    });
    expect(await alice.bottles.toggleLike.mutate({ bottleId: id })).toEqual({
      liked: false,
      count: 1,
    });
    const card = (await bob.bottles.publicList.query()).bottles.find((b) => b.id === id);
    expect(card).toMatchObject({ likeCount: 1, isLiked: true });
    const missing = await failure(bob.bottles.toggleLike.mutate({ bottleId: 999_999 }));
    expect(missing.status).toBe(404);
  });
  test("likes by one user at the same moment count as if one after another", async () => {
    const { id } = await (await aWriter()).bottles.throw.mutate(
      bottle("Liked at once", { isPublic: true }),
    );
    const carol = visitor();
    await carol.auth.signUp.mutate({ username: `carol${n}`, password: "carol-password" });
    // Five toggles in one batch, run together: none fails, and they alternate like and unlike.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => carol.bottles.toggleLike.mutate({ bottleId: id })),
    );
    expect(answers.filter((a) => a.liked)).toHaveLength(3);
    expect(answers.map((a) => a.count).sort()).toEqual([0, 0, 1, 1, 1]);
    const card = (await carol.bottles.publicList.query()).bottles.find((b) => b.id === id);
    expect(card).toMatchObject({ likeCount: 1, isLiked: true });
  });
});

describe("a reader's own like", () => {
  test("says whether the account likes a bottle in the ocean, with its count, and nothing else", async () => {
    const writer = await aWriter();
    const { id } = await writer.bottles.throw.mutate(bottle("Did I like this one?"));
    const anonymous = visitor();
    expect((await failure(anonymous.bottles.likeOf.query({ bottleId: id }))).status).toBe(401);

    const reader = visitor();
    await reader.auth.signUp.mutate({ username: `reader${n}`, password: "reader-password" });
    const other = visitor();
    await other.auth.signUp.mutate({ username: `other${n}`, password: "other-password" });
    expect(await reader.bottles.likeOf.query({ bottleId: id })).toEqual({ liked: false, count: 0 });
    await other.bottles.toggleLike.mutate({ bottleId: id });
    // Another account's like counts, and is not the reader's.
    expect(await reader.bottles.likeOf.query({ bottleId: id })).toEqual({ liked: false, count: 1 });
    await reader.bottles.toggleLike.mutate({ bottleId: id });
    expect(await reader.bottles.likeOf.query({ bottleId: id })).toEqual({ liked: true, count: 2 });

    // Out of the ocean (sunk by its writer), or never there: not found, as for a like.
    expect((await failure(reader.bottles.likeOf.query({ bottleId: 999_999 }))).status).toBe(404);
    await writer.bottles.sink.mutate({ bottleId: id });
    expect((await failure(reader.bottles.likeOf.query({ bottleId: id }))).status).toBe(404);
  });

  test("is held to sixty a minute, also asked a hundred at once", async () => {
    const writer = await aWriter();
    const { id } = await writer.bottles.throw.mutate(bottle("Asked too often"));
    const reader = visitor();
    await reader.auth.signUp.mutate({ username: `asker${n}`, password: "asker-password" });
    const answers = await Promise.allSettled(
      Array.from({ length: 100 }, () => reader.bottles.likeOf.query({ bottleId: id })),
    );
    expect(answers.filter((a) => a.status === "fulfilled")).toHaveLength(60);
    const refused = answers.find((a) => a.status === "rejected");
    expect(refused && (await failure(Promise.reject(refused.reason))).status).toBe(429);
    clock.advance(61 * 1000);
    expect(await reader.bottles.likeOf.query({ bottleId: id })).toEqual({ liked: false, count: 0 });
  });
});

describe("reports", () => {
  async function reporter() {
    const api = visitor();
    await api.auth.signUp.mutate({ username: `reporter${n}`, password: "reporting-pw" });
    return api;
  }

  test("three different reporters take a bottle out of the ocean; one reporter counts once", async () => {
    const { id } = await (await aWriter()).bottles.throw.mutate(
      bottle("Reported thrice", { isPublic: true }),
    );
    const first = await reporter();
    await first.bottles.report.mutate({ bottleId: id, reason: "spam" });
    await first.bottles.report.mutate({ bottleId: id, reason: "spam" });
    await (await reporter()).bottles.report.mutate({ bottleId: id, reason: "scam" });
    expect((await visitor().bottles.publicList.query()).bottles.map((b) => b.id)).toContain(id);
    await (await reporter()).bottles.report.mutate({ bottleId: id, reason: "other" });
    expect((await visitor().bottles.publicList.query()).bottles.map((b) => b.id)).not.toContain(id);
    expect(await discoverUntil(visitor(), "Reported thrice", 15)).toBeNull();
    const reports = await rows(
      server,
      sql`SELECT reason, is_safe FROM bottle_reports WHERE bottle_id = ${id}`,
    );
    expect(reports).toHaveLength(3);
  });

  test("three reporters at the same moment take a bottle out of the ocean", async () => {
    const { id } = await (await aWriter()).bottles.throw.mutate(
      bottle("Reported at once", { isPublic: true }),
    );
    const reporters = [await reporter(), await reporter(), await reporter()];
    // Each report counts the reporters in its transaction; the last one must see all three.
    await Promise.all(
      reporters.map((api) => api.bottles.report.mutate({ bottleId: id, reason: "spam" })),
    );
    expect((await visitor().bottles.publicList.query()).bottles.map((b) => b.id)).not.toContain(id);
  });

  const inPublicList = async (id: number) =>
    (await visitor().bottles.publicList.query()).bottles.map((b) => b.id).includes(id);

  // As an attacker would take a bottle out alone: one cookie on one address, three accounts.
  test("three accounts on one cookie and address are one source: the bottle stays", async () => {
    const { id } = await (await aWriter()).bottles.throw.mutate(
      bottle("Reported by one source", { isPublic: true }),
    );
    const address = `198.51.100.${++n}`;
    const api = trpcClient(server.url, { "X-Forwarded-For": address }, new CookieJar());
    for (let i = 0; i < 3; i++) {
      await api.auth.signUp.mutate({ username: `puppet${n}x${i}`, password: "reporting-pw" });
      await api.bottles.report.mutate({ bottleId: id, reason: "spam" });
      expect(await inPublicList(id)).toBe(true);
      await api.auth.signOut.mutate();
    }
    // Another cookie on the same address is the same source too.
    const again = trpcClient(server.url, { "X-Forwarded-For": address }, new CookieJar());
    await again.auth.signUp.mutate({ username: `puppet${n}x3`, password: "reporting-pw" });
    await again.bottles.report.mutate({ bottleId: id, reason: "scam" });
    expect(await inPublicList(id)).toBe(true);
    const reports = await rows(
      server,
      sql<{
        counted: number;
      }>`SELECT counted FROM bottle_reports WHERE bottle_id = ${id} ORDER BY id`,
    );
    expect(reports.map((r) => r.counted)).toEqual([1, 0, 0, 0]);
    // Two readers of their own, each on an address of their own, make three sources.
    await (await reporter()).bottles.report.mutate({ bottleId: id, reason: "spam" });
    expect(await inPublicList(id)).toBe(true);
    await (await reporter()).bottles.report.mutate({ bottleId: id, reason: "spam" });
    expect(await inPublicList(id)).toBe(false);
  });

  test(`child-safety reports from one address take out ${CHILD_SAFETY_HIDES_PER_DAY} bottles a day at once, no more`, async () => {
    const writer = await aWriter();
    const ids: number[] = [];
    for (let i = 0; i <= CHILD_SAFETY_HIDES_PER_DAY; i++) {
      const thrown = await writer.bottles.throw.mutate(
        bottle(distinctText(4000 + n * 10 + i), { isPublic: true }),
      );
      ids.push(thrown.id);
    }
    const address = `198.51.100.${++n}`;
    const shown = [];
    for (const [i, bottleId] of ids.entries()) {
      // A new cookie and account for each: the address is what is limited.
      const api = trpcClient(server.url, { "X-Forwarded-For": address }, new CookieJar());
      await api.auth.signUp.mutate({ username: `guard${n}x${i}`, password: "reporting-pw" });
      await api.bottles.report.mutate({ bottleId, reason: "childSafety" });
      shown.push(await inPublicList(bottleId));
    }
    expect(shown).toEqual([...Array(CHILD_SAFETY_HIDES_PER_DAY).fill(false), true]);
    // Someone elsewhere reporting the last one takes it out at once.
    const last = ids.at(-1) ?? 0;
    await (await reporter()).bottles.report.mutate({ bottleId: last, reason: "childSafety" });
    expect(await inPublicList(last)).toBe(false);
  });

  test("one report of a bottle the moderator finds unsafe hides it at once", async () => {
    // Written before the word lists caught it: put straight into the database.
    const { id } = await server.app.services.db
      .insertInto("bottles")
      .values({
        message: "what a fucking mess",
        drift_hours: 0,
        country: "Unknown",
        country_code: null,
        ip_key: "k",
        visitor_id: "someone",
        locale: "en",
        is_public: 1,
        available_at: clock.now(),
        created_at: clock.now(),
        expires_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await (await reporter()).bottles.report.mutate({ bottleId: id, reason: "offensive" });
    expect((await visitor().bottles.publicList.query()).bottles.map((b) => b.id)).not.toContain(id);
    const [row] = await rows(
      server,
      sql<{ is_safe: number }>`SELECT is_safe FROM bottle_reports WHERE bottle_id = ${id}`,
    );
    expect(row?.is_safe).toBe(0);
  });

  test("need a session and a bottle that exists", async () => {
    expect(
      (await failure(visitor().bottles.report.mutate({ bottleId: 1, reason: "spam" }))).status,
    ).toBe(401);
    expect(
      (
        await failure(
          (await reporter()).bottles.report.mutate({ bottleId: 999_999, reason: "spam" }),
        )
      ).status,
    ).toBe(404);
    const odd = await failure(
      // biome-ignore lint/suspicious/noExplicitAny: an unknown reason is the point.
      (await reporter()).bottles.report.mutate({ bottleId: 1, reason: "boring" as any }),
    );
    expect(odd.status).toBe(400);
  });
});

describe("translation", () => {
  test("the server names what it can serve, and translates Traditional to Simplified offline", async () => {
    const api = visitor();
    expect((await api.translate.languages.query()).targets).toEqual(["zh-TW", "zh-CN"]);
    const { id } = await (await aWriter()).bottles.throw.mutate(
      bottle("這個軟體的資訊", { isPublic: true }),
    );
    expect(await api.translate.bottle.mutate({ bottleId: id, target: "zh-CN" })).toEqual({
      text: "这个软件的信息",
      target: "zh-CN",
    });
    const unsupported = await failure(api.translate.bottle.mutate({ bottleId: id, target: "ja" }));
    expect(unsupported.data.appCode).toBe("TRANSLATION_UNSUPPORTED");
  });

  test("a bottle that is not public translates only for a reader discover showed it to", async () => {
    const message = "這是只給撿到的人看的瓶子";
    const { id } = await (await aWriter()).bottles.throw.mutate(bottle(message));
    /** How a call failed, as its caller sees it: status, data and message. */
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => "answered",
        (error: { message: string; data: unknown }) => ({
          message: error.message,
          data: error.data,
        }),
      );
    const stranger = visitor();
    const absent = 999_999_999;
    // Asked for by its id alone, it is "not found", exactly as a bottle that does not exist.
    const unknown = await refusal(
      stranger.translate.bottle.mutate({ bottleId: absent, target: "zh-CN" }),
    );
    expect(unknown).toMatchObject({ data: { httpStatus: 404, appCode: "NOT_FOUND" } });
    expect(
      await refusal(stranger.translate.bottle.mutate({ bottleId: id, target: "zh-CN" })),
    ).toEqual(unknown);
    const unknownMenu = await refusal(stranger.translate.languages.query({ bottleId: absent }));
    expect(unknownMenu).toMatchObject({ data: { httpStatus: 404, appCode: "NOT_FOUND" } });
    expect(await refusal(stranger.translate.languages.query({ bottleId: id }))).toEqual(
      unknownMenu,
    );

    const reader = visitor();
    const found = await discoverUntil(reader, message);
    expect(found?.shownPass).toEqual(expect.any(String));
    const asked = { bottleId: id, shownPass: found?.shownPass };
    expect((await reader.translate.languages.query(asked)).targets).toEqual(["zh-CN"]);
    expect(await reader.translate.bottle.mutate({ ...asked, target: "zh-CN" })).toEqual({
      text: "这是只给捡到的人看的瓶子",
      target: "zh-CN",
    });
    // The pass is the reader's, and for that bottle only.
    expect(await refusal(stranger.translate.bottle.mutate({ ...asked, target: "zh-CN" }))).toEqual(
      unknown,
    );
    const other = await (await aWriter()).bottles.throw.mutate(bottle("另一個不公開的瓶子"));
    expect(
      await refusal(
        reader.translate.bottle.mutate({ ...asked, bottleId: other.id, target: "zh-CN" }),
      ),
    ).toMatchObject({ data: { httpStatus: 404, appCode: "NOT_FOUND" } });
  });
});

describe("rate limits", () => {
  test("five bottles a minute per visitor and address, then a wait", async () => {
    const api = await aWriter();
    for (let i = 0; i < 5; i++) await api.bottles.throw.mutate(bottle(`Burst ${i}`));
    const { status, data } = await failure(api.bottles.throw.mutate(bottle("One too many")));
    expect(status).toBe(429);
    expect(data.retryAfter).toBeGreaterThan(0);
    expect(data.retryAfter).toBeLessThanOrEqual(60);
    clock.advance(61 * 1000);
    await api.bottles.throw.mutate(bottle("After the wait"));
  });

  test("sixty discovers a minute", async () => {
    const api = visitor();
    for (let i = 0; i < 60; i++) await api.bottles.discover.query();
    expect((await failure(api.bottles.discover.query())).status).toBe(429);
  });
});

describe("country", () => {
  test("comes from the offline database; private addresses are Unknown", async () => {
    expect(await visitor("8.8.8.8").geo.me.query()).toEqual({
      code: "US",
      name: "United States",
    });
    expect(await visitor("10.1.2.3").geo.me.query()).toEqual({ code: null, name: "Unknown" });
  });
});
