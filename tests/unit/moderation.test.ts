import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  createModerator,
  ExternalModerator,
  FallbackModerator,
  ModerationUnavailableError,
} from "../../src/core/moderation/external.ts";
import { LocalModerator } from "../../src/core/moderation/local.ts";
import type { ModerationReason, Moderator } from "../../src/core/moderation/moderator.ts";

const local = new LocalModerator();

async function expectUnsafe(moderator: Moderator, texts: string[], reason: ModerationReason) {
  for (const text of texts) {
    const verdict = await moderator.check(text);
    expect({ text, ...verdict }).toEqual({ text, safe: false, reasons: [reason] });
  }
}

async function expectSafe(moderator: Moderator, texts: string[]) {
  for (const text of texts) {
    expect({ text, ...(await moderator.check(text)) }).toEqual({ text, safe: true, reasons: [] });
  }
}

describe("LocalModerator: profanity", () => {
  test("English, plain and obfuscated", async () => {
    await expectUnsafe(
      local,
      [
        "fuck",
        "What the FUCK is this",
        "f u c k",
        "f.u.c.k you",
        "F-U-C-K",
        "sh1t",
        "you are a s h 1 t",
        "fuuuuck",
        "ｆｕｃｋ", // full-width
        "fu\u200Bck", // a zero-width space inside
        "bitch",
        "motherfucker",
        "dickhead",
      ],
      "profanity",
    );
  });

  // Digits read as letters make words of numbers: "455" is "ass" to the English matcher.
  test("a number standing on its own is a number, not a word spelled in digits", async () => {
    await expectSafe(local, [
      "Room 455 is on the left",
      "4550 Main Street",
      "the 717 area code",
      "這個軟體的資訊 455",
      "tag 1764_4550_7170",
    ]);
    await expectUnsafe(local, ["a55", "5h1t", "you a55hole"], "profanity");
  });

  test("Chinese abuse in Traditional and Simplified script, also spaced out", async () => {
    await expectUnsafe(
      local,
      [
        "幹你娘",
        "干你娘",
        "操你媽",
        "操你妈",
        "你這個王八蛋",
        "他媽的真煩",
        "他妈的真烦",
        "傻逼",
        "賤人",
        "贱人",
        "幹 你 娘",
        "幹，你，娘",
        "黑鬼滾出去",
      ],
      "profanity",
    );
  });

  test("one or more terms in each of the other languages", async () => {
    await expectUnsafe(
      local,
      [
        // Japanese
        "お前なんか死ね",
        "死ね。",
        "くたばれ",
        "このクソ野郎",
        // Korean
        "씨발",
        "이 개새끼야",
        "개 새 끼",
        "병신",
        // Spanish
        "Eres un pendejo",
        "hijo de puta",
        "p u t a",
        "¡Qué mierda!",
        // French
        "Putain de merde",
        "Quel connard",
        "Va te faire foutre",
        // German
        "Du Arschloch",
        "So eine SCHEISSE",
        "Scheiße",
        "Fick dich",
      ],
      "profanity",
    );
  });

  test("words that contain a flagged word stay safe", async () => {
    await expectSafe(local, [
      "Scunthorpe",
      "class",
      "assassin",
      "cocktail",
      "Sussex",
      // Both spellings of the mushroom: shitake is a common misspelling of shiitake.
      "shitake",
      "shiitake soup",
      "Penistone",
      "Dickens wrote novels",
      "a peacock in the garden",
      "analysis",
      "grapefruit",
      "summa cum laude",
      "cumin and coriander",
      "same-sex marriage",
      "a chink in the armour",
      "Montenegro",
      "Arsenal won",
    ]);
  });

  test("ordinary text in all eight languages stays safe", async () => {
    await expectSafe(local, [
      "I hope whoever finds this bottle has a lovely day!",
      "U S A",
      "我今天很開心",
      "我今天很开心",
      "社會",
      "社会",
      "幹部會議在操作室舉行",
      "雞肉飯很好吃",
      "我媽的生日快到了",
      "印度支那",
      "今日はとても楽しかったです。また明日会いましょう。",
      "まだ死ねない",
      "パチンコに行った",
      "ファックスを送ってください",
      "오늘 날씨가 정말 좋네요. 한국어를 배우고 있어요.",
      "엄마 사랑해요",
      "시발점에서 다시 시작하자",
      "우리 개 새끼 세 마리",
      "Feliz cumpleaños, el gato negro duerme junto a la computadora.",
      "Hubo una disputa, es ridículo.",
      "Il fait assez froid, je mange une pomme, s'il vous plaît.",
      "Ma chatte est mignonne.",
      "Das Buch ist sehr dick und die Klasse trinkt Wasser.",
      "Ich habe einen Hund und ein Huhn, das ist lustig.",
    ]);
  });

  test("empty and blank text is safe", async () => {
    await expectSafe(local, ["", "   "]);
  });
});

describe("LocalModerator: spam", () => {
  test("more than three links is spam; three is not", async () => {
    await expectSafe(local, ["see a.com, b.org and https://c.net/page"]);
    await expectUnsafe(
      local,
      [
        "visit a.com b.com c.com d.com",
        "https://x.io/a https://x.io/b www.example.org/c shop.example.net",
        "ｈｔｔｐｓ：／／ａ．ｃｏｍ b.com c.com d.com",
      ],
      "spam_links",
    );
  });

  test("file names, abbreviations, numbers and e-mail addresses are not links", async () => {
    await expectSafe(local, [
      "e.g. node.js, index.ts, i.e. 3.14 and 2.71",
      "write to a@mail.com, b@mail.com, c@mail.com or d@mail.com",
    ]);
  });

  test("the same character 20 times in a row is spam; 19 is not", async () => {
    await expectSafe(local, ["a".repeat(19), "哈".repeat(19), "😂".repeat(19), "-".repeat(40)]);
    await expectUnsafe(
      local,
      ["a".repeat(20), `so${"o".repeat(30)} good`, "哈".repeat(20), "😂".repeat(20)],
      "spam_repetition",
    );
  });

  test("the same word or short phrase 10 times in a row is spam; 9 is not", async () => {
    await expectSafe(local, [
      "buy now ".repeat(9),
      "ha".repeat(9),
      "I really really really like the sea",
    ]);
    await expectUnsafe(
      local,
      ["buy now ".repeat(10), "spam, ".repeat(10), "ha".repeat(10), "加我微信 ".repeat(10)],
      "spam_repetition",
    );
  });

  test("several reasons are reported together", async () => {
    const verdict = await local.check(`fuck ${"a.com ".repeat(4)}${"z".repeat(25)}`);
    expect(verdict).toEqual({
      safe: false,
      reasons: ["profanity", "spam_links", "spam_repetition"],
    });
  });

  // How fast is a benchmark's question (scripts/bench/contacts.ts), not a timed test's.
  test("a long calm message in three scripts is safe", () => {
    const text = "The sea is calm tonight. 今晚的海很平靜。 今夜の海は穏やかです。 ".repeat(200);
    expect(local.checkNow(text).safe).toBe(true);
  });
});

describe("LocalModerator: where each rule starts and stops", () => {
  test("letters spelled out count inside a sentence and before its full stop", async () => {
    await expectUnsafe(local, ["eres una p u t a.", "hijo de p  u  t  a"], "profanity");
  });

  test("Korean set apart by a dash or a dot is read joined", async () => {
    await expectUnsafe(local, ["씨-발", "병.신"], "profanity");
  });

  test("a domain name is a whole word: a.company is no link", async () => {
    await expectSafe(local, ["a.company b.company c.company d.company e.company"]);
  });

  test("emoji with a variation selector or a skin tone, 19 times, are not a run", async () => {
    await expectSafe(local, ["❤️".repeat(19), "👍🏽".repeat(19)]);
  });
});

/** A real HTTP server in the OpenAI moderation format, told per test how to answer. */
describe("ExternalModerator and the fallback", () => {
  type Answer = "openai" | "error" | "malformed" | "slow";
  let answer: Answer = "openai";
  let requests: { authorization: string | null; contentType: string | null; body: unknown }[];
  let server: ReturnType<typeof Bun.serve>;
  let url: string;
  const stalled: Array<() => void> = [];

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      async fetch(request) {
        const body: unknown = await request.json();
        requests.push({
          authorization: request.headers.get("authorization"),
          contentType: request.headers.get("content-type"),
          body,
        });
        if (answer === "error") return new Response("overloaded", { status: 503 });
        if (answer === "malformed") return new Response("{ not json", { status: 200 });
        // A slow server answers only once the test is over, long after the moderator's timeout.
        if (answer === "slow") await new Promise<void>((resolve) => stalled.push(resolve));
        const input = typeof body === "object" && body && "input" in body ? body.input : "";
        const flagged = typeof input === "string" && input.includes("I will hurt you");
        return Response.json({
          id: "modr-1",
          model: "omni-moderation-latest",
          results: [{ flagged, categories: { violence: flagged } }],
        });
      },
    });
    url = `http://localhost:${server.port}/v1/moderations`;
  });

  afterAll(() => server.stop(true));

  beforeEach(() => {
    answer = "openai";
    requests = [];
  });
  afterEach(() => {
    for (const release of stalled.splice(0)) release();
  });

  // A short timeout only where the test is about timing out: a busy machine answers slowly.
  const external = (timeoutMs = 10_000) =>
    new ExternalModerator({ url, apiKey: "sk-test", timeoutMs });

  test("sends the text with the key and reads the answer", async () => {
    expect(await external().check("I will hurt you")).toEqual({
      safe: false,
      reasons: ["external"],
    });
    expect(await external().check("A calm sea")).toEqual({ safe: true, reasons: [] });
    expect(requests[0]).toEqual({
      authorization: "Bearer sk-test",
      contentType: "application/json",
      body: { input: "I will hurt you" },
    });
  });

  test("a server error, malformed JSON or a slow answer throws", async () => {
    for (const failure of ["error", "malformed", "slow"] as const) {
      answer = failure;
      await expect(external(100).check("A calm sea")).rejects.toBeInstanceOf(
        ModerationUnavailableError,
      );
    }
  });

  test("an answer without results is malformed", async () => {
    const fetchOther = async () => Response.json({ flagged: true });
    const moderator = new ExternalModerator({ url, fetch: fetchOther });
    await expect(moderator.check("x")).rejects.toBeInstanceOf(ModerationUnavailableError);
  });

  test("FallbackModerator uses the local lists when the API fails", async () => {
    for (const failure of ["error", "malformed", "slow"] as const) {
      answer = failure;
      const errors: unknown[] = [];
      const moderator = new FallbackModerator(external(100), local, (error) => errors.push(error));
      expect(await moderator.check("you piece of shit")).toEqual({
        safe: false,
        reasons: ["profanity"],
      });
      expect(await moderator.check("A calm sea")).toEqual({ safe: true, reasons: [] });
      expect(errors).toHaveLength(2);
      expect(errors[0]).toBeInstanceOf(ModerationUnavailableError);
    }
  });

  test("FallbackModerator takes the API's answer when there is one", async () => {
    const moderator = new FallbackModerator(external(), local);
    expect(await moderator.check("I will hurt you")).toEqual({
      safe: false,
      reasons: ["external"],
    });
  });

  test("createModerator without settings is the local moderator alone", async () => {
    const moderator = createModerator();
    expect(moderator).toBeInstanceOf(LocalModerator);
    expect(createModerator({ apiUrl: "" })).toBeInstanceOf(LocalModerator);
    expect(await moderator.check("幹你娘")).toEqual({ safe: false, reasons: ["profanity"] });
  });

  test("createModerator with an API: the local lists first, then the API", async () => {
    const moderator = createModerator({ apiUrl: url, apiKey: "sk-test", timeoutMs: 10_000 });
    // Refused locally: the text is never sent out.
    expect(await moderator.check("fuck off")).toEqual({ safe: false, reasons: ["profanity"] });
    expect(requests).toHaveLength(0);
    // Passed locally: the API decides.
    expect(await moderator.check("I will hurt you")).toEqual({
      safe: false,
      reasons: ["external"],
    });
    expect(await moderator.check("A calm sea")).toEqual({ safe: true, reasons: [] });
    expect(requests).toHaveLength(2);
  });

  test("createModerator with an API that is down keeps the local verdict", async () => {
    answer = "slow";
    const fallbacks: unknown[] = [];
    const moderator = createModerator({
      apiUrl: url,
      apiKey: "sk-test",
      timeoutMs: 50,
      onFallback: (error) => fallbacks.push(error),
    });
    expect(await moderator.check("A calm sea")).toEqual({ safe: true, reasons: [] });
    expect(fallbacks).toHaveLength(1);
  });
});

describe("ExternalModerator: what counts as an answer", () => {
  /** A moderation API that answers every request with `body`, and the requests it got. */
  function answering(body: string, status = 200) {
    const requests: RequestInit[] = [];
    const fetch = async (_url: string, init: RequestInit) => {
      requests.push(init);
      return new Response(body, { status, headers: { "content-type": "application/json" } });
    };
    return { fetch, requests };
  }
  const flaggedNot = JSON.stringify({ results: [{ flagged: false }] });

  test("an error status is no answer, whatever its body says", async () => {
    const api = answering(flaggedNot, 503);
    const error = await new ExternalModerator({ url: "http://api.test/", ...api })
      .check("A calm sea")
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModerationUnavailableError);
    expect(error).toMatchObject({
      name: "ModerationUnavailableError",
      message: "moderation API answered 503",
    });
  });

  test("every answer not in the format is no answer", async () => {
    for (const body of [
      "null",
      '"flagged"',
      "42",
      "{}",
      '{"results":{"flagged":true}}',
      '{"results":[]}',
      '{"results":[null]}',
      '{"results":[1]}',
      '{"results":[{}]}',
      '{"results":[{"flagged":"yes"}]}',
      '{"results":[{"flagged":false},{"flagged":"yes"}]}',
    ]) {
      const error = await new ExternalModerator({ url: "http://api.test/", ...answering(body) })
        .check("A calm sea")
        .catch((thrown: unknown) => thrown);
      expect({ body, error }).toMatchObject({
        body,
        error: { name: "ModerationUnavailableError" },
      });
      expect(error).toBeInstanceOf(ModerationUnavailableError);
    }
    const error = await new ExternalModerator({ url: "http://api.test/", ...answering("{}") })
      .check("A calm sea")
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ message: "moderation API answered in an unknown format" });
  });

  test("any one result flagged makes the text unsafe", async () => {
    const body = JSON.stringify({ results: [{ flagged: false }, { flagged: true }] });
    const moderator = new ExternalModerator({ url: "http://api.test/", ...answering(body) });
    expect(await moderator.check("x")).toEqual({ safe: false, reasons: ["external"] });
  });

  test("without a key no authorization is sent", async () => {
    const api = answering(flaggedNot);
    await new ExternalModerator({ url: "http://api.test/", fetch: api.fetch }).check("x");
    expect(new Headers(api.requests[0]?.headers).has("authorization")).toBe(false);
  });

  test("a failed call says why, and keeps what failed as its cause", async () => {
    const refused = new Error("connection refused");
    const error = await new ExternalModerator({
      url: "http://api.test/",
      fetch: async () => {
        throw refused;
      },
    })
      .check("x")
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModerationUnavailableError);
    expect(error).toMatchObject({
      message: "moderation API failed: connection refused",
      cause: refused,
    });
    const timedOut = await new ExternalModerator({
      url: "http://api.test/",
      fetch: async () => {
        throw new DOMException("The operation timed out.", "TimeoutError");
      },
    })
      .check("x")
      .catch((thrown: unknown) => thrown);
    expect(timedOut).toMatchObject({ message: "moderation API failed: timed out" });
    const odd = await new ExternalModerator({
      url: "http://api.test/",
      fetch: async () => {
        throw "reset";
      },
    })
      .check("x")
      .catch((thrown: unknown) => thrown);
    expect(odd).toMatchObject({ message: "moderation API failed: reset" });
  });

  test("a blank text is not sent to the API", async () => {
    const api = answering(JSON.stringify({ results: [{ flagged: true }] }));
    const moderator = createModerator({ apiUrl: "http://api.test/", fetch: api.fetch });
    expect(await moderator.check("   ")).toEqual({ safe: true, reasons: [] });
    expect(await moderator.check("")).toEqual({ safe: true, reasons: [] });
    expect(api.requests).toHaveLength(0);
  });
});
