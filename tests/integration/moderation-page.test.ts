import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setOperator } from "../../src/core/admin/queue.ts";
import { CookieJar, startTestServer, type TestServer, trpcClient } from "../helpers/server.ts";

// The moderation page over plain HTTP: the app for a signed-in operator, 403 for anyone else,
// titled in the page's language (the app draws the forbidden message, as it does for 404).
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "true" });
});
afterAll(() => server.close());

let addresses = 0;
async function account(username: string, operator: boolean): Promise<CookieJar> {
  const jar = new CookieJar();
  const api = trpcClient(server.url, { "X-Forwarded-For": `100.81.0.${++addresses}` }, jar);
  await api.auth.signUp.mutate({ username, password: "long-enough-pw" });
  if (operator) await setOperator(server.app.services.db, username, true, Date.now());
  return jar;
}

const page = (path: string, jar?: CookieJar) =>
  fetch(`${server.url}${path}`, {
    headers: jar ? { Cookie: jar.header() } : {},
    redirect: "manual",
  });

const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
const langOf = (html: string) => /<html lang="([^"]*)"/.exec(html)?.[1];

describe("the moderation page", () => {
  test("an operator gets the page", async () => {
    const jar = await account("page_keeper", true);
    for (const [path, lang, title] of [
      ["/en/moderation", "en", "Moderation · Tidings"],
      ["/zh/moderation", "zh-TW", "內容管理 · Tidings"],
    ] as const) {
      const response = await page(path, jar);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      const html = await response.text();
      expect(langOf(html)).toBe(lang);
      expect(titleOf(html)).toBe(title);
    }
  });

  test("a signed-in visitor who is not an operator gets 403, in the page's language", async () => {
    const jar = await account("curious_reader", false);
    const en = await page("/en/moderation", jar);
    expect(en.status).toBe(403);
    expect(en.headers.get("cache-control")).toBe("no-cache");
    const html = await en.text();
    expect(langOf(html)).toBe("en");
    expect(titleOf(html)).toBe("Not for you · Tidings");
    const zh = await page("/zh/moderation", jar);
    expect(zh.status).toBe(403);
    const zhHtml = await zh.text();
    expect(langOf(zhHtml)).toBe("zh-TW");
    expect(titleOf(zhHtml)).toBe("無法存取 · Tidings");
  });

  test("an anonymous visitor gets 403; the unprefixed path still redirects first", async () => {
    const response = await page("/en/moderation");
    expect(response.status).toBe(403);
    expect(titleOf(await response.text())).toBe("Not for you · Tidings");
    const unprefixed = await page("/moderation");
    expect(unprefixed.status).toBe(301);
    expect(unprefixed.headers.get("location")).toBe("/en/moderation");
  });

  test("an operator whose operator role is taken away gets 403 on the next request", async () => {
    const jar = await account("former_keeper", true);
    expect((await page("/en/moderation", jar)).status).toBe(200);
    await setOperator(server.app.services.db, "former_keeper", false, Date.now());
    expect((await page("/en/moderation", jar)).status).toBe(403);
  });
});
