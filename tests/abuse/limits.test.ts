import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { SIGN_IN_RULES, SIGN_UPS } from "../../src/core/auth/accounts.ts";
import { DEVICE_TRUST_MS, DeviceCookies } from "../../src/core/auth/devices.ts";
import { BOTTLE_RATES } from "../../src/core/bottles/bottles.ts";
import { CHAT_CONNECTIONS } from "../../src/core/chat/flood.ts";
import { START_RATES } from "../../src/core/chat/start.ts";
import { TRANSLATE_MENU_RATE, TRANSLATE_RATE } from "../../src/core/translation/service.ts";
import { chatSocket, visitorId } from "../helpers/chat-client.ts";
import { VirtualClock } from "../helpers/clock.ts";
import {
  bottleInput,
  CookieJar,
  failure,
  signedVisitorCookie,
  startTestServer,
  type TestServer,
  trpcClient,
} from "../helpers/server.ts";
import { distinctText } from "../helpers/texts.ts";

// Password hashing (and here, many of them) is slow by design: on a busy machine these tests
// need the room ./scripts/test gives every test, also when run as a bare `bun test`.
setDefaultTimeout(20_000);

// Password guessing and sign-ups in batches and in parallel, tried as a script would against
// the real server: each limit holds however the calls arrive.
const clock = new VirtualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" }, { clock });
});
afterAll(() => server.close());

let addresses = 0;
const nextAddress = () => `198.51.100.${++addresses}`;
function browser(address = nextAddress()) {
  const jar = new CookieJar();
  return { jar, address, api: trpcClient(server.url, { "X-Forwarded-For": address }, jar) };
}

/**
 * One raw tRPC request, as a script sends it: a batch of calls to `paths` with `inputs`, POSTed,
 * or for queries (`method` GET) in the address.
 */
async function batch(
  paths: string[],
  inputs: unknown[],
  address: string,
  cookie = "",
  method: "POST" | "GET" = "POST",
) {
  const body: Record<number, unknown> = {};
  inputs.forEach((input, i) => {
    body[i] = input;
  });
  const url = `${server.url}/trpc/${paths.join(",")}?batch=1`;
  const inUrl = `${url}&input=${encodeURIComponent(JSON.stringify(body))}`;
  const response = await fetch(method === "GET" ? inUrl : url, {
    method,
    headers: {
      "content-type": "application/json",
      origin: server.url,
      "x-forwarded-for": address,
      ...(cookie ? { cookie } : {}),
    },
    ...(method === "POST" ? { body: JSON.stringify(body) } : {}),
  });
  // Every call's answer, also when they all failed alike (the status is then theirs).
  const json: unknown = await response.json().catch(() => null);
  const answers = Array.isArray(json) ? json : [];
  return {
    status: response.status,
    answers: answers as Array<{ result?: unknown; error?: { data: { httpStatus: number } } }>,
  };
}

async function account(username: string, password: string) {
  clock.advance(1000);
  const owner = browser();
  await owner.api.auth.signUp.mutate({ username, password });
  return owner;
}

describe("password guessing in batches and in parallel", () => {
  test("a batch of 100 sign-ins is refused whole; ten batches of 10 try at most the limit", async () => {
    await account("batch-target", "the-right-one");
    clock.jump(60 * 60 * 1000);
    const address = nextAddress();
    const signIn = (password: string) => ({ username: "batch-target", password });
    const hundred = Array.from({ length: 100 }, (_, i) =>
      signIn(i === 57 ? "the-right-one" : `wrong-${i}`),
    );
    const refused = await batch(Array(100).fill("auth.signIn"), hundred, address);
    expect(refused.status).toBe(400);

    let tried = 0;
    let found = false;
    for (let round = 0; round < 10; round++) {
      clock.advance(1000);
      const inputs = hundred.slice(round * 10, round * 10 + 10);
      const { answers } = await batch(Array(10).fill("auth.signIn"), inputs, address);
      for (const answer of answers) {
        if (answer.result) found = true;
        if (answer.error?.data.httpStatus === 401) tried += 1;
      }
    }
    expect(found).toBe(false);
    expect(tried).toBeLessThanOrEqual(SIGN_IN_RULES.perAccountAndAddress.limit);
  });

  test("60 parallel sign-ins from one address try at most the limit and never find the password", async () => {
    await account("parallel-target", "the-right-one");
    clock.jump(60 * 60 * 1000);
    const attacker = browser();
    const attempts = Array.from({ length: 60 }, (_, i) =>
      failure(
        attacker.api.auth.signIn.mutate({
          username: "parallel-target",
          password: i === 59 ? "the-right-one" : `wrong-${i}`,
        }),
      ).catch(() => ({ status: 200 })),
    );
    const statuses = (await Promise.all(attempts)).map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(0);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(
      SIGN_IN_RULES.perAccountAndAddress.limit,
    );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(50);
  });

  test("20 parallel sign-ups from one address make at most 5 accounts", async () => {
    clock.jump(60 * 60 * 1000);
    const address = nextAddress();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        browser(address).api.auth.signUp.mutate({
          username: `sprinter${i}`,
          password: "long-enough-1",
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled").length).toBeLessThanOrEqual(
      SIGN_UPS.limit,
    );
  });
});

describe("an attacker cannot lock the owner out of their own browser", () => {
  test("the owner signs in from a browser with a device cookie while the account is under attack", async () => {
    clock.jump(60 * 60 * 1000);
    const owner = await account("locked-owner", "owners-password");
    await owner.api.auth.signOut.mutate();
    // The device cookie stays after signing out: it names the browser, not a session.
    expect([...owner.jar.cookies.keys()]).toContain("device");

    // Failures for the name from many addresses: the limit for untrusted browsers is used up.
    for (let i = 0; i < SIGN_IN_RULES.perAccount.limit + 2; i++) {
      clock.advance(1000);
      await failure(
        browser().api.auth.signIn.mutate({ username: "locked-owner", password: `x${i}-guess` }),
      );
    }
    const stranger = await failure(
      browser().api.auth.signIn.mutate({ username: "locked-owner", password: "owners-password" }),
    );
    expect(stranger.status).toBe(429);

    // The owner's own browser, from another address still: let in.
    clock.advance(1000);
    const back = await owner.api.auth.signIn.mutate({
      username: "locked-owner",
      password: "owners-password",
    });
    expect(back.user.username).toBe("locked-owner");
  });

  test("a forged or foreign device cookie does not count as trusted", async () => {
    clock.jump(60 * 60 * 1000);
    const other = await account("someone-else", "their-password");
    const deviceForOther = other.jar.cookies.get("device") ?? "";
    await account("target-two", "target-password");
    for (let i = 0; i < SIGN_IN_RULES.perAccount.limit + 1; i++) {
      clock.advance(1000);
      await failure(
        browser().api.auth.signIn.mutate({ username: "target-two", password: `g${i}-guess` }),
      );
    }
    for (const cookie of [
      deviceForOther,
      "dGFyZ2V0LXR3bw.bm9uY2U.forged-signature-xxxxxxxxxxxxxxxx",
      "%ZZ",
    ]) {
      const jar = new CookieJar();
      jar.cookies.set("device", cookie);
      const api = trpcClient(server.url, { "X-Forwarded-For": nextAddress() }, jar);
      const { status } = await failure(
        api.auth.signIn.mutate({ username: "target-two", password: "target-password" }),
      );
      expect(status).toBe(429);
    }
  });
});

describe("bottle throws in batches and in parallel", () => {
  const bottle = (i: number) => bottleInput(distinctText(i), { isPublic: true });

  test("a batch of 40 throws is refused whole; four batches of 10 land at most the limit", async () => {
    const address = nextAddress();
    const cookie = signedVisitorCookie("batchthrower0000000000");
    await batch(["bottles.confirmAge"], [{ atLeast13: true }], address, cookie);
    const refused = await batch(
      Array(40).fill("bottles.throw"),
      Array.from({ length: 40 }, (_, i) => bottle(i)),
      address,
      cookie,
    );
    expect(refused.status).toBe(400);
    let landed = 0;
    for (let round = 0; round < 4; round++) {
      const inputs = Array.from({ length: 10 }, (_, i) => bottle(round * 10 + i));
      const { answers } = await batch(Array(10).fill("bottles.throw"), inputs, address, cookie);
      landed += answers.filter((a) => a.result).length;
    }
    expect(landed).toBe(BOTTLE_RATES.throwPerMinute.limit);
  });

  test("60 parallel throws from rotating cookies on one address land at most the limit", async () => {
    const address = nextAddress();
    // Sixty cookies, each past the 13-or-older question (one answer each: the address's limit).
    const writers = Array.from({ length: 60 }, () => browser(address).api);
    for (const api of writers) await api.bottles.confirmAge.mutate({ atLeast13: true });
    const results = await Promise.allSettled(
      writers.map((api, i) => api.bottles.throw.mutate(bottle(i))),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(
      BOTTLE_RATES.throwPerMinute.limit,
    );
  });
});

describe("interest refusals cost a start", () => {
  const { perVisitor, perAddress } = START_RATES;
  /** A start naming one interest the contact filter refuses (a different one each time). */
  const probe = (i: number) => ({ languages: ["en"], interests: [`probe${i}@mail.com`] });
  type Answer = { error?: { data: { httpStatus: number; appCode?: string; issues?: unknown } } };
  const refusals = (answers: Answer[]) =>
    answers.filter((a) => a.error?.data.appCode === "INTEREST_REFUSED");
  const limited = (answers: Answer[]) =>
    answers.filter((a) => a.error?.data.httpStatus === 429 && a.error.data.issues === undefined);

  test("150 probes as batches from one cookie: refusals stop at the start limit, and say nothing past it", async () => {
    clock.jump(60 * 60 * 1000);
    const address = nextAddress();
    const cookie = signedVisitorCookie(visitorId());
    await batch(["chat.confirmAge"], [{ adult: true }], address, cookie);
    const inputs = Array.from({ length: 150 }, (_, i) => probe(i));
    const whole = await batch(Array(150).fill("chat.startWith"), inputs, address, cookie);
    expect(whole.status).toBe(400);
    const answers: Answer[] = [];
    for (let round = 0; round < 15; round++) {
      const ten = inputs.slice(round * 10, round * 10 + 10);
      answers.push(
        ...(await batch(Array(10).fill("chat.startWith"), ten, address, cookie)).answers,
      );
    }
    expect(refusals(answers)).toHaveLength(perVisitor.limit);
    expect(limited(answers)).toHaveLength(150 - perVisitor.limit);
  });

  test("150 probes in parallel from rotating cookies on one address: at most the address's starts are answered", async () => {
    clock.jump(60 * 60 * 1000);
    const address = nextAddress();
    // Sixty cookies, each past the 18-or-older question (one answer each: the address's limit).
    const cookies = Array.from({ length: 60 }, () => signedVisitorCookie(visitorId()));
    for (const cookie of cookies) {
      await batch(["chat.confirmAge"], [{ adult: true }], address, cookie);
    }
    const answers = (
      await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          batch(["chat.startWith"], [probe(i)], address, cookies[i % cookies.length]),
        ),
      )
    ).flatMap((response) => response.answers as Answer[]);
    expect(answers).toHaveLength(150);
    expect(refusals(answers).length).toBeLessThanOrEqual(perAddress.limit);
    expect(refusals(answers).length + limited(answers).length).toBe(150);
  });
});

describe("translating bottles by their ids, in batches and in parallel", () => {
  type Answer = { result?: unknown; error?: { data: { httpStatus: number } } };
  /** Answers that told something: a translation, or a bottle not found. Not a 429. */
  const answered = (answers: Answer[]) =>
    answers.filter((a) => a.result || a.error?.data.httpStatus !== 429);
  /** A bottle no one was shown, not public: its id is all a script knows. */
  async function unshownBottle(message: string) {
    const writer = browser();
    await writer.api.bottles.confirmAge.mutate({ atLeast13: true });
    return (await writer.api.bottles.throw.mutate(bottleInput(message))).id;
  }

  test("a sweep of 100 ids, as batches from one cookie: nothing translated, at most the limit answered", async () => {
    clock.jump(60 * 60 * 1000);
    const secret = await unshownBottle("這是一個沒有人撿到的瓶子");
    const address = nextAddress();
    const cookie = signedVisitorCookie(visitorId());
    const sweep = Array.from({ length: 100 }, (_, i) => ({
      bottleId: i === 0 ? secret : secret + 1_000_000 + i,
      target: "zh-CN",
    }));
    const whole = await batch(Array(100).fill("translate.bottle"), sweep, address, cookie);
    expect(whole.status).toBe(400);
    const answers: Answer[] = [];
    for (let round = 0; round < 10; round++) {
      const ten = sweep.slice(round * 10, round * 10 + 10);
      answers.push(
        ...(await batch(Array(10).fill("translate.bottle"), ten, address, cookie)).answers,
      );
    }
    expect(answers).toHaveLength(100);
    expect(answers.filter((a) => a.result)).toHaveLength(0);
    expect(answered(answers)).toHaveLength(TRANSLATE_RATE.limit);

    // The menu's question is held to its own limit, with or without a bottle.
    const asked = sweep.map(({ bottleId }, i) => (i % 2 === 0 ? { bottleId } : undefined));
    const menu: Answer[] = [];
    for (let round = 0; round < 10; round++) {
      const ten = asked.slice(round * 10, round * 10 + 10);
      menu.push(
        ...(await batch(Array(10).fill("translate.languages"), ten, address, cookie, "GET"))
          .answers,
      );
    }
    expect(menu).toHaveLength(100);
    expect(answered(menu)).toHaveLength(TRANSLATE_MENU_RATE.limit);
    // Only the menu without a bottle answered: no bottle's language was told.
    expect(menu.filter((a, i) => asked[i] && a.result)).toHaveLength(0);
  });

  test("60 translations and 90 menus in parallel from rotating cookies on one address", async () => {
    clock.jump(60 * 60 * 1000);
    const secret = await unshownBottle("另一個沒有人撿到的瓶子");
    const address = nextAddress();
    const cookies = Array.from({ length: 90 }, () => signedVisitorCookie(visitorId()));
    const one = (path: string, input: unknown, cookie: string, method: "POST" | "GET" = "POST") =>
      batch([path], [input], address, cookie, method).then((r) => r.answers as Answer[]);
    const [translations, menus] = await Promise.all([
      Promise.all(
        cookies
          .slice(0, 60)
          .map((cookie) => one("translate.bottle", { bottleId: secret, target: "zh-CN" }, cookie)),
      ),
      Promise.all(
        cookies.map((cookie) => one("translate.languages", { bottleId: secret }, cookie, "GET")),
      ),
    ]);
    expect(translations.flat()).toHaveLength(60);
    expect(translations.flat().filter((a) => a.result)).toHaveLength(0);
    expect(answered(translations.flat()).length).toBeLessThanOrEqual(TRANSLATE_RATE.limit);
    expect(menus.flat()).toHaveLength(90);
    expect(menus.flat().filter((a) => a.result)).toHaveLength(0);
    expect(answered(menus.flat()).length).toBeLessThanOrEqual(TRANSLATE_MENU_RATE.limit);
  });
});

// Last: it moves the clock past the trust period, past every other test's windows.
describe("device cookies expire on the server", () => {
  test("a device cookie older than DEVICE_TRUST_MS no longer lets its browser past the lock", async () => {
    clock.jump(60 * 60 * 1000);
    const owner = await account("aging-owner", "aging-password");
    await owner.api.auth.signOut.mutate();
    // The browser keeps its cookie past the trust period (a cookie's own age is the browser's
    // word); the server counts from when it issued the token.
    clock.jump(DEVICE_TRUST_MS + 1000);
    for (let i = 0; i < SIGN_IN_RULES.perAccount.limit + 2; i++) {
      clock.advance(1000);
      await failure(
        browser().api.auth.signIn.mutate({ username: "aging-owner", password: `a${i}-guess` }),
      );
    }
    const { status } = await failure(
      owner.api.auth.signIn.mutate({ username: "aging-owner", password: "aging-password" }),
    );
    expect(status).toBe(429);
  });

  test("a token from before the trust period ends is trusted; one signed for a later time is not", () => {
    let now = Date.UTC(2026, 0, 1);
    const devices = new DeviceCookies("a-secret-of-at-least-thirty-two-chars", () => now);
    const token = devices.issue("owner");
    now += DEVICE_TRUST_MS - 1;
    expect(devices.trusted(token, "owner")).not.toBeNull();
    now += 1;
    expect(devices.trusted(token, "owner")).toBeNull();
    // Changing the issue time breaks the signature.
    const [name, nonce, , signature] = token.split(".");
    const later = `${name}.${nonce}.${now.toString(36)}.${signature}`;
    expect(devices.trusted(later, "owner")).toBeNull();
  });
});

describe("chat sockets opened and closed in a loop", () => {
  /** Opens a chat socket and, once it is open, closes it: whether it opened. */
  async function cycle(cookie: string, address: string): Promise<boolean> {
    const socket = await chatSocket(server.url, { Cookie: cookie, "X-Forwarded-For": address });
    if (!socket) return false;
    const closed = new Promise<void>((resolve) => {
      socket.onclose = () => resolve();
    });
    socket.close();
    await closed;
    return true;
  }
  const { perVisitor, perAddress } = CHAT_CONNECTIONS;

  test(`one visitor opens ${perVisitor.burst} at once, then one a second`, async () => {
    const cookie = signedVisitorCookie(visitorId());
    const address = nextAddress();
    const opened: boolean[] = [];
    for (let i = 0; i < perVisitor.burst + 5; i++) opened.push(await cycle(cookie, address));
    expect(opened).toEqual([...Array(perVisitor.burst).fill(true), ...Array(5).fill(false)]);
    clock.advance(1000 / perVisitor.ratePerSecond);
    expect([await cycle(cookie, address), await cycle(cookie, address)]).toEqual([true, false]);
  });

  test(`an address with rotating cookies opens ${perAddress.burst} at once, then two a second`, async () => {
    const address = nextAddress();
    const cookie = () => signedVisitorCookie(visitorId());
    let opened = 0;
    for (let i = 0; i < perAddress.burst + 6; i++) if (await cycle(cookie(), address)) opened += 1;
    expect(opened).toBe(perAddress.burst);
    clock.advance(1000);
    const after = [];
    for (let i = 0; i < 3; i++) after.push(await cycle(cookie(), address));
    expect(after).toEqual([true, true, false]);
    // Another address is not held back by this one.
    expect(await cycle(cookie(), nextAddress())).toBe(true);
  });
});
