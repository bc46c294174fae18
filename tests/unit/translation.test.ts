import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DB } from "../../db/schema.ts";
import { type TargetLanguage, targetLanguages } from "../../src/common/translation.ts";
import { SHOWN_PASS_MS, ShownBottles } from "../../src/core/bottles/shown.ts";
import { DomainError } from "../../src/core/errors.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import {
  databaseTranslations,
  sourceHash,
  translateCached,
} from "../../src/core/translation/cache.ts";
import { CompositeTranslator } from "../../src/core/translation/composite.ts";
import { DeepLTranslator } from "../../src/core/translation/deepl.ts";
import {
  createTranslator,
  translatesBeyondChineseScripts,
} from "../../src/core/translation/index.ts";
import { LibreTranslateTranslator } from "../../src/core/translation/libretranslate.ts";
import { ChatTranslations } from "../../src/core/translation/memory-cache.ts";
import {
  chineseScriptOf,
  isMainlyChinese,
  OpenccTranslator,
} from "../../src/core/translation/opencc.ts";
import { availableTargets, translateForVisitor } from "../../src/core/translation/service.ts";
import {
  TranslationError,
  type TranslationErrorKind,
  type Translator,
} from "../../src/core/translation/translator.ts";
import { VirtualClock } from "../helpers/clock.ts";
import { openTestDatabase } from "../helpers/database.ts";

/** Resolves with the TranslationError kind the promise rejected with. */
async function failureKind(promise: Promise<unknown>): Promise<TranslationErrorKind> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TranslationError) return error.kind;
    throw error;
  }
  throw new Error("expected a TranslationError, got a result");
}

/** A translator whose answers and calls the test controls. */
class FakeTranslator implements Translator {
  calls: Array<{ text: string; target: TargetLanguage }> = [];
  constructor(
    readonly name: string,
    private readonly offered: readonly TargetLanguage[],
    private readonly answer: (text: string, target: TargetLanguage) => string | TranslationError,
  ) {}
  targets(): readonly TargetLanguage[] {
    return this.offered;
  }
  async translate(text: string, target: TargetLanguage): Promise<string> {
    this.calls.push({ text, target });
    const result = this.answer(text, target);
    if (result instanceof TranslationError) throw result;
    return result;
  }
}

interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
}

/** A real HTTP server on a free port, recording what it was sent. */
function serve(handler: (seen: Seen) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      const text = await request.text();
      const entry: Seen = {
        method: request.method,
        path: new URL(request.url).pathname,
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      seen.push(entry);
      return handler(entry);
    },
  });
  servers.push(server);
  return { url: `http://localhost:${server.port}`, seen };
}
const servers: Array<{ stop(force?: boolean): Promise<void> }> = [];
afterEach(async () => {
  for (const release of stalled.splice(0)) release();
  await Promise.all(servers.splice(0).map((s) => s.stop(true)));
});

/** Answers that never come until the test is over, and word of each request that waits so. */
const stalled: Array<() => void> = [];
function stall(): { reached: Promise<void>; answer: () => Promise<void> } {
  let reached: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    reached: arrived,
    answer: () => {
      reached();
      return new Promise<void>((resolve) => stalled.push(resolve));
    },
  };
}

describe("the translate menu's languages", () => {
  test("are eight, in menu order", () => {
    expect([...targetLanguages]).toEqual(["en", "zh-TW", "zh-CN", "ja", "ko", "es", "fr", "de"]);
  });
});

describe("OpenCC", () => {
  const opencc = new OpenccTranslator();

  test("offers only the two Chinese scripts", () => {
    expect(opencc.targets()).toEqual(["zh-TW", "zh-CN"]);
  });

  test("converts Taiwan Traditional to Simplified with mainland wording, and back", async () => {
    expect(await opencc.translate("這個軟體的資訊", "zh-CN")).toBe("这个软件的信息");
    expect(await opencc.translate("这个软件的信息", "zh-TW")).toBe("這個軟體的資訊");
    expect(await opencc.translate("我用滑鼠上網", "zh-CN")).toBe("我用鼠标上网");
    expect(await opencc.translate("我用鼠标上网", "zh-TW")).toBe("我用滑鼠上網");
  });

  test("refuses text that is not Chinese rather than echo it back", async () => {
    expect(await failureKind(opencc.translate("Hello from the shore", "zh-TW"))).toBe(
      "unsupported",
    );
    expect(await failureKind(opencc.translate("I love 台灣", "zh-CN"))).toBe("unsupported");
    expect(await failureKind(opencc.translate("日本語を勉強しています", "zh-CN"))).toBe(
      "unsupported",
    );
    expect(await failureKind(opencc.translate("안녕하세요", "zh-TW"))).toBe("unsupported");
    expect(await failureKind(opencc.translate("你好", "en"))).toBe("unsupported");
  });

  test("knows the script a Chinese text is in; Taiwan's everyday 台 is Traditional too", () => {
    expect(chineseScriptOf("我住在台北，這裡的天氣很好")).toBe("traditional");
    expect(chineseScriptOf("我住在台北，这里的天气很好")).toBe("simplified");
    expect(chineseScriptOf("台湾很好")).toBe("simplified");
    // Written the same in both: not a script of its own.
    expect(chineseScriptOf("台北")).toBe("either");
    expect(chineseScriptOf("你好")).toBe("either");
    expect(chineseScriptOf("Hello from Taipei")).toBeUndefined();
  });

  test("offers and makes only a conversion into the other script, never into the text's own", async () => {
    expect(opencc.targetsFor("這個軟體的資訊")).toEqual(["zh-CN"]);
    expect(opencc.targetsFor("这个软件的信息")).toEqual(["zh-TW"]);
    expect(opencc.targetsFor("台北")).toEqual([]);
    expect(opencc.targetsFor("Hello")).toEqual([]);
    // Traditional text "into Traditional" would turn 台北 into 臺北: refused.
    expect(await failureKind(opencc.translate("我住在台北，這裡很好", "zh-TW"))).toBe(
      "unsupported",
    );
    expect(await failureKind(opencc.translate("台北", "zh-TW"))).toBe("unsupported");
    expect(await failureKind(opencc.translate("这个软件", "zh-CN"))).toBe("unsupported");
    expect(await opencc.translate("我住在台北，這裡很好", "zh-CN")).toBe("我住在台北，这里很好");
  });

  test("counts Chinese with a Latin brand name in it as Chinese", () => {
    expect(isMainlyChinese("我用iPhone拍照")).toBe(true);
    expect(isMainlyChinese("12345 !?")).toBe(false);
  });
});

describe("LibreTranslate", () => {
  const recentLanguages = [
    { code: "en", name: "English", targets: ["en", "ja", "zh-Hans", "zh-Hant"] },
    { code: "ja", name: "Japanese", targets: ["en", "ja"] },
    { code: "zh-Hans", name: "Chinese", targets: ["en", "zh-Hans", "zh-Hant"] },
    { code: "zh-Hant", name: "Chinese (traditional)", targets: ["en", "zh-Hans"] },
  ];

  test("learns the server's languages once and sends its codes and key", async () => {
    const server = serve(({ path, body }) => {
      if (path === "/languages") return Response.json(recentLanguages);
      const q = (body as { q: string }).q;
      return Response.json({ translatedText: `[${q}]`, detectedLanguage: { language: "en" } });
    });
    const libre = new LibreTranslateTranslator({ url: `${server.url}/`, apiKey: "k-123" });
    await libre.ready();
    expect(libre.targets()).toEqual(["en", "zh-TW", "zh-CN", "ja"]);

    expect(await libre.translate("Hello", "zh-TW")).toBe("[Hello]");
    expect(await libre.translate("Hello", "zh-CN")).toBe("[Hello]");
    expect(await failureKind(libre.translate("Hello", "ko"))).toBe("unsupported");

    expect(server.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      "GET /languages",
      "POST /translate",
      "POST /translate",
    ]);
    expect(server.seen[1]?.headers.get("content-type")).toBe("application/json");
    expect(server.seen[1]?.body).toEqual({
      q: "Hello",
      source: "auto",
      target: "zh-Hant",
      format: "text",
      api_key: "k-123",
    });
    expect(server.seen[2]?.body).toMatchObject({ target: "zh-Hans" });
  });

  test("speaks the older zh/zt codes to older servers, with no key when none is set", async () => {
    const server = serve(({ path }) =>
      path === "/languages"
        ? Response.json([
            { code: "en", name: "English" },
            { code: "zh", name: "Chinese" },
            { code: "zt", name: "Chinese (traditional)" },
          ])
        : Response.json({ translatedText: "好" }),
    );
    const libre = new LibreTranslateTranslator({ url: server.url });
    // Discovery starts on the first question and the answer fills in when it lands.
    expect(libre.targets()).toEqual([]);
    await libre.ready();
    expect(libre.targets()).toEqual(["en", "zh-TW", "zh-CN"]);
    await libre.translate("good", "zh-TW");
    await libre.translate("good", "zh-CN");
    expect(server.seen.slice(1).map((s) => s.body)).toEqual([
      { q: "good", source: "auto", target: "zt", format: "text" },
      { q: "good", source: "auto", target: "zh", format: "text" },
    ]);
  });

  test("a server error, bad key or dead server is unavailable", async () => {
    const server = serve(({ path }) =>
      path === "/languages"
        ? Response.json(recentLanguages)
        : Response.json({ error: "Invalid API key" }, { status: 403 }),
    );
    const libre = new LibreTranslateTranslator({ url: server.url });
    expect(await failureKind(libre.translate("Hello", "ja"))).toBe("unavailable");

    const dead = new LibreTranslateTranslator({ url: "http://127.0.0.1:9", retryDiscoveryMs: 0 });
    expect(await failureKind(dead.translate("Hello", "ja"))).toBe("unavailable");
    expect(dead.targets()).toEqual([]);
  });

  test("a failed discovery is retried later, not on every question", async () => {
    let up = false;
    const server = serve(({ path }) =>
      up && path === "/languages"
        ? Response.json(recentLanguages)
        : new Response("down", { status: 503 }),
    );
    const clock = new VirtualClock();
    const patient = new LibreTranslateTranslator({
      url: server.url,
      retryDiscoveryMs: 60_000,
      time: clock,
    });
    await patient.ready();
    up = true;
    await patient.ready();
    clock.advance(59_999);
    await patient.ready();
    expect(patient.targets()).toEqual([]);
    expect(server.seen).toHaveLength(1);
    // A minute after the failure, the next question asks again.
    clock.advance(1);
    await patient.ready();
    expect(patient.targets()).toEqual(["en", "zh-TW", "zh-CN", "ja"]);
    expect(server.seen).toHaveLength(2);

    const eager = new LibreTranslateTranslator({ url: server.url, retryDiscoveryMs: 0 });
    up = false;
    await eager.ready();
    up = true;
    await eager.ready();
    expect(eager.targets()).toEqual(["en", "zh-TW", "zh-CN", "ja"]);
  });

  test("a server slower than the timeout is unavailable, once the timeout has passed", async () => {
    const slow = stall();
    const server = serve(async ({ path }) => {
      if (path === "/languages") return Response.json(recentLanguages);
      await slow.answer();
      return Response.json({ translatedText: "too late" });
    });
    const clock = new VirtualClock();
    const libre = new LibreTranslateTranslator({ url: server.url, timeoutMs: 100, time: clock });
    let settled = false;
    const outcome = failureKind(libre.translate("Hello", "ja")).finally(() => {
      settled = true;
    });
    await slow.reached;
    clock.advance(99);
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await outcome).toBe("unavailable");
    // Answered requests leave no timer behind.
    expect(clock.pending).toBe(0);
  });
});

describe("DeepL", () => {
  test("sends the key in its header and DeepL's language codes", async () => {
    const server = serve(({ body }) => {
      const { text } = body as { text: string[] };
      return Response.json({
        translations: [{ detected_source_language: "EN", text: `<${text[0]}>` }],
      });
    });
    const deepl = new DeepLTranslator({ apiKey: "secret-key", baseUrl: server.url });
    expect(deepl.targets()).toEqual(targetLanguages);

    const expected: Record<TargetLanguage, string> = {
      en: "EN-US",
      "zh-TW": "ZH-HANT",
      "zh-CN": "ZH-HANS",
      ja: "JA",
      ko: "KO",
      es: "ES",
      fr: "FR",
      de: "DE",
    };
    for (const target of targetLanguages) {
      expect(await deepl.translate("Hello", target)).toBe("<Hello>");
    }
    expect(server.seen.map((s) => (s.body as { target_lang: string }).target_lang)).toEqual(
      targetLanguages.map((t) => expected[t]),
    );
    const first = server.seen[0];
    expect(first?.method).toBe("POST");
    expect(first?.path).toBe("/v2/translate");
    expect(first?.headers.get("authorization")).toBe("DeepL-Auth-Key secret-key");
    expect(first?.headers.get("content-type")).toBe("application/json");
    expect(first?.body).toEqual({ text: ["Hello"], target_lang: "EN-US" });
  });

  test("picks the free API for ':fx' keys and the paid one otherwise", async () => {
    const urls: string[] = [];
    const recordingFetch = async (input: string) => {
      urls.push(input);
      return Response.json({ translations: [{ detected_source_language: "EN", text: "x" }] });
    };
    await new DeepLTranslator({ apiKey: "abc:fx", fetch: recordingFetch }).translate("a", "de");
    await new DeepLTranslator({ apiKey: "abc", fetch: recordingFetch }).translate("a", "de");
    expect(urls).toEqual([
      "https://api-free.deepl.com/v2/translate",
      "https://api.deepl.com/v2/translate",
    ]);
  });

  test("quota, bad answers, dead servers and timeouts are unavailable", async () => {
    const quota = serve(() => new Response("Quota exceeded", { status: 456 }));
    expect(
      await failureKind(
        new DeepLTranslator({ apiKey: "k", baseUrl: quota.url }).translate("a", "ja"),
      ),
    ).toBe("unavailable");

    const garbled = serve(() => Response.json({ translations: [] }));
    expect(
      await failureKind(
        new DeepLTranslator({ apiKey: "k", baseUrl: garbled.url }).translate("a", "ja"),
      ),
    ).toBe("unavailable");

    const dead = new DeepLTranslator({ apiKey: "k", baseUrl: "http://127.0.0.1:9" });
    expect(await failureKind(dead.translate("a", "ja"))).toBe("unavailable");

    const stalling = stall();
    const slow = serve(async () => {
      await stalling.answer();
      return Response.json({ translations: [{ detected_source_language: "EN", text: "late" }] });
    });
    const clock = new VirtualClock();
    const impatient = new DeepLTranslator({
      apiKey: "k",
      baseUrl: slow.url,
      timeoutMs: 100,
      scheduler: clock,
    });
    const outcome = failureKind(impatient.translate("a", "ja"));
    await stalling.reached;
    clock.advance(100);
    expect(await outcome).toBe("unavailable");
    expect(clock.pending).toBe(0);
  });
});

describe("composite", () => {
  const unsupported = () => new TranslationError("unsupported", "cannot");
  const unavailable = () => new TranslationError("unavailable", "down");

  test("offers the union of its translators' targets, in menu order", () => {
    const composite = new CompositeTranslator([
      new FakeTranslator("a", ["zh-CN", "zh-TW"], () => ""),
      new FakeTranslator("b", ["fr", "en", "zh-TW"], () => ""),
    ]);
    expect(composite.targets()).toEqual(["en", "zh-TW", "zh-CN", "fr"]);
  });

  test("tries translators in order and moves on past refusals and failures", async () => {
    const opencc = new OpenccTranslator();
    const down = new FakeTranslator("down", ["zh-TW", "en"], unavailable);
    const last = new FakeTranslator("last", ["zh-TW", "en"], (text) => `last:${text}`);
    const composite = new CompositeTranslator([opencc, down, last]);

    // OpenCC serves Chinese text itself; nobody else is asked.
    expect(await composite.translateWithProvider("这个软件的信息", "zh-TW")).toEqual({
      text: "這個軟體的資訊",
      provider: "opencc",
    });
    expect(down.calls).toHaveLength(0);

    // English text: OpenCC declines, "down" fails, "last" answers.
    expect(await composite.translateWithProvider("software", "zh-TW")).toEqual({
      text: "last:software",
      provider: "last",
    });
    expect(down.calls).toEqual([{ text: "software", target: "zh-TW" }]);

    // A translator that does not offer the target is not asked.
    expect(await composite.translate("你好", "en")).toBe("last:你好");
  });

  test("fails as unsupported only when every translator refused", async () => {
    const refuses = new CompositeTranslator([
      new OpenccTranslator(),
      new FakeTranslator("picky", ["zh-TW"], unsupported),
    ]);
    expect(await failureKind(refuses.translate("Hello", "zh-TW"))).toBe("unsupported");
    expect(await failureKind(refuses.translate("Hello", "ko"))).toBe("unsupported");

    const broken = new CompositeTranslator([
      new OpenccTranslator(),
      new FakeTranslator("down", ["zh-TW"], unavailable),
    ]);
    expect(await failureKind(broken.translate("Hello", "zh-TW"))).toBe("unavailable");
  });

  test("for one text, offers what would translate it, never its own Chinese script", async () => {
    const composite = new CompositeTranslator([
      new OpenccTranslator(),
      new FakeTranslator("other", ["en", "zh-TW", "zh-CN", "ja"], (text) => `other:${text}`),
    ]);
    expect(composite.targetsFor("我住在台北，這裡很好")).toEqual(["en", "zh-CN", "ja"]);
    expect(composite.targetsFor("你好")).toEqual(["en", "ja"]);
    expect(composite.targetsFor("Good evening")).toEqual(["en", "zh-TW", "zh-CN", "ja"]);
    expect(await failureKind(composite.translate("台北很好", "zh-TW"))).toBe("unsupported");
    // A default install: OpenCC alone, so English text has nothing at all.
    const offline = createTranslator({});
    expect(await availableTargets(offline, "Good evening")).toEqual([]);
    expect(await availableTargets(offline, "這個軟體的資訊")).toEqual(["zh-CN"]);
    expect(await availableTargets(offline)).toEqual(["zh-TW", "zh-CN"]);
  });

  test("a same-script request is refused before any stored translation is looked at", async () => {
    const stored: string[] = [];
    const store = {
      get: async () => "臺北",
      put: async (_hash: string, _target: TargetLanguage, text: string) => void stored.push(text),
    };
    const deps = { limiter: new MemoryRateLimiter(), translator: createTranslator({}) };
    const visitor = { visitorId: "v", ipKey: "k" };
    const refused = await translateForVisitor(store, deps, visitor, "台北", "zh-TW", 0).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe("TRANSLATION_UNSUPPORTED");
  });

  test("waits for a translator's language discovery before judging its targets", async () => {
    const server = serve(({ path }) =>
      path === "/languages"
        ? Response.json([{ code: "ko", name: "Korean", targets: ["ko"] }])
        : Response.json({ translatedText: "안녕" }),
    );
    const composite = new CompositeTranslator([
      new OpenccTranslator(),
      new LibreTranslateTranslator({ url: server.url }),
    ]);
    expect(await composite.translateWithProvider("hello", "ko")).toEqual({
      text: "안녕",
      provider: "libretranslate",
    });
    expect(composite.targets()).toEqual(["zh-TW", "zh-CN", "ko"]);
  });

  test("createTranslator puts OpenCC first, then DeepL, then LibreTranslate", () => {
    expect(createTranslator({}).name).toBe("opencc");
    expect(createTranslator({}).targets()).toEqual(["zh-TW", "zh-CN"]);
    const all = createTranslator({
      deeplApiKey: "k:fx",
      libreTranslateUrl: "http://127.0.0.1:9",
    });
    expect(all.name).toBe("opencc+deepl+libretranslate");
    expect(all.targets()).toEqual(targetLanguages);
  });

  test("a translator beyond Chinese scripts is one the operator configured, reachable or not", () => {
    expect(translatesBeyondChineseScripts(createTranslator({}))).toBe(false);
    expect(translatesBeyondChineseScripts(createTranslator({ deeplApiKey: "k:fx" }))).toBe(true);
    // Configured but not answering (nothing listens there): still configured.
    const libre = createTranslator({ libreTranslateUrl: "http://127.0.0.1:9" });
    expect(translatesBeyondChineseScripts(libre)).toBe(true);
  });
});

describe("translation cache", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: DB;
  beforeEach(async () => {
    database = await openTestDatabase();
    db = database.db;
  });
  afterEach(() => database.dispose());

  test("a repeated request is answered from the database without the translator", async () => {
    const fake = new FakeTranslator("fake", ["fr", "de"], (text, target) => `${target}:${text}`);
    expect(await translateCached(databaseTranslations(db), fake, "Hello", "fr", 1000)).toEqual({
      text: "fr:Hello",
      cached: false,
    });
    expect(await translateCached(databaseTranslations(db), fake, "Hello", "fr", 2000)).toEqual({
      text: "fr:Hello",
      cached: true,
    });
    // Another language or another text is a new translation.
    expect(
      await translateCached(databaseTranslations(db), fake, "Hello", "de", 3000),
    ).toMatchObject({ cached: false });
    expect(
      await translateCached(databaseTranslations(db), fake, "Hello!", "fr", 4000),
    ).toMatchObject({ cached: false });
    expect(fake.calls).toHaveLength(3);

    const rows = await db.selectFrom("translations").selectAll().orderBy("created_at").execute();
    expect(rows[0]).toEqual({
      source_hash: sourceHash("Hello"),
      target: "fr",
      translated_text: "fr:Hello",
      provider: "fake",
      created_at: 1000,
    });
    expect(rows[0]?.source_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows).toHaveLength(3);
  });

  test("records which provider behind a composite made the text", async () => {
    const composite = new CompositeTranslator([
      new OpenccTranslator(),
      new FakeTranslator("fake", ["zh-TW"], (text) => `fake:${text}`),
    ]);
    await translateCached(databaseTranslations(db), composite, "这个软件", "zh-TW", 1);
    await translateCached(databaseTranslations(db), composite, "Hello", "zh-TW", 2);
    const rows = await db
      .selectFrom("translations")
      .select(["provider", "translated_text"])
      .orderBy("created_at")
      .execute();
    expect(rows).toEqual([
      { provider: "opencc", translated_text: "這個軟體" },
      { provider: "fake", translated_text: "fake:Hello" },
    ]);
  });

  test("simultaneous identical requests call the translator once", async () => {
    const fake = new FakeTranslator("fake", ["ja"], (text) => `ja:${text}`);
    const results = await Promise.all(
      [1, 2, 3].map((n) => translateCached(databaseTranslations(db), fake, "Hello", "ja", n)),
    );
    expect(results.map((r) => r.text)).toEqual(["ja:Hello", "ja:Hello", "ja:Hello"]);
    expect(fake.calls).toHaveLength(1);
  });

  test("a failure is not cached", async () => {
    let fail = true;
    const flaky = new FakeTranslator("flaky", ["es"], (text) =>
      fail ? new TranslationError("unavailable", "down") : `es:${text}`,
    );
    expect(
      await failureKind(translateCached(databaseTranslations(db), flaky, "Hello", "es", 1)),
    ).toBe("unavailable");
    fail = false;
    expect(await translateCached(databaseTranslations(db), flaky, "Hello", "es", 2)).toEqual({
      text: "es:Hello",
      cached: false,
    });
    expect(flaky.calls).toHaveLength(2);
  });
});

describe("chat translations in memory", () => {
  const HOUR = 60 * 60 * 1000;

  test("are kept for an hour, then forgotten", async () => {
    const clock = new VirtualClock();
    const memory = new ChatTranslations(clock);
    await memory.put("h1", "ja", "こんにちは");
    clock.advance(HOUR);
    expect(await memory.get("h1", "ja")).toBe("こんにちは");
    expect(await memory.get("h1", "ko")).toBeUndefined();
    clock.advance(1);
    expect(await memory.get("h1", "ja")).toBeUndefined();
    expect(memory.size).toBe(0);
  });

  test("hold at most their bound, the oldest written forgotten first", async () => {
    const clock = new VirtualClock();
    const memory = new ChatTranslations(clock, 3);
    for (const hash of ["a", "b", "c"]) {
      await memory.put(hash, "en", hash.toUpperCase());
      clock.advance(1000);
    }
    // Written again, "a" becomes the newest.
    await memory.put("a", "en", "A again");
    await memory.put("d", "en", "D");
    expect(memory.size).toBe(3);
    expect(await memory.get("b", "en")).toBeUndefined();
    expect(await memory.get("a", "en")).toBe("A again");
    expect(await memory.get("c", "en")).toBe("C");
    expect(await memory.get("d", "en")).toBe("D");
  });
});

describe("the pass discover gives with a bottle", () => {
  const SECRET = "a-secret-of-at-least-thirty-two-characters";
  const clock = new VirtualClock();
  const now = () => clock.now();

  test("any instance with the same secret takes it, for that visitor and bottle only", () => {
    const onA = new ShownBottles(SECRET, now);
    const onB = new ShownBottles(SECRET, now);
    const pass = onA.pass("reader", 42);
    expect(onB.wasShown(pass, "reader", 42)).toBe(true);
    expect(onB.wasShown(pass, "someone-else", 42)).toBe(false);
    expect(onB.wasShown(pass, "reader", 43)).toBe(false);
    expect(new ShownBottles(`${SECRET}!`, now).wasShown(pass, "reader", 42)).toBe(false);
  });

  test("a forged, altered, malformed or expired pass is refused", () => {
    const shown = new ShownBottles(SECRET, now);
    const pass = shown.pass("reader", 7);
    const [expiry = "", signature = ""] = pass.split(".");
    const flipped = `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`;
    const later = (Number.parseInt(expiry, 36) + 1000).toString(36);
    for (const bad of [
      undefined,
      "",
      `${expiry}.${flipped}`,
      `${later}.${signature}`,
      `${expiry}.${signature}.x`,
      `${expiry}`,
      `-1.${signature}`,
      "x".repeat(65),
    ]) {
      expect(shown.wasShown(bad, "reader", 7)).toBe(false);
    }
    // One signed for much later than the server signs (its clock set back) is refused too.
    const early = new ShownBottles(SECRET, () => clock.now() + 2 * SHOWN_PASS_MS);
    expect(shown.wasShown(early.pass("reader", 7), "reader", 7)).toBe(false);
    clock.advance(SHOWN_PASS_MS - 1);
    expect(shown.wasShown(pass, "reader", 7)).toBe(true);
    clock.advance(1);
    expect(shown.wasShown(pass, "reader", 7)).toBe(false);
  });
});
