import type { Page, Request } from "@playwright/test";
import { scan } from "./axe";
import { expect, test } from "./fixtures";
import { type E2eServer, startE2eServer } from "./server";

// Proof of work as a visitor meets it: on a site with it on (at its default cost), a bottle is
// thrown and a chat started without a word about it; with the CPU slowed and a dearer cost,
// the button says what the browser is doing, in the visitor's language, and it still works.

const WORDS = {
  en: {
    create: "/en/create",
    oldEnough: "I am 13 or older",
    message: "Your message",
    throw: "Throw into the Ocean",
    thrown: "Your bottle is on its way",
    chat: "/en/random-chat",
    find: "Find Someone to Chat With",
    looking: "Looking for someone to chat with…",
    working: "Checking this is a person…",
  },
  zh: {
    create: "/zh/create",
    oldEnough: "我已滿 13 歲",
    message: "你的訊息",
    throw: "丟進大海",
    thrown: "你的瓶子啟程了",
    chat: "/zh/random-chat",
    find: "找人聊天",
    looking: "正在尋找聊天對象…",
    working: "正在確認是真人…",
  },
} as const;

let site: E2eServer;
let dearSite: E2eServer;
test.beforeAll(async () => {
  [site, dearSite] = await Promise.all([
    startE2eServer({ POW: "true" }),
    // Dear enough that a slowed CPU is still solving when the button is pressed.
    startE2eServer({ POW: "true", POW_COST: "40000" }),
  ]);
});
test.afterAll(async () => {
  await Promise.all([site?.stop(), dearSite?.stop()]);
});

/** The calls of a protected action the page made, with their bodies. */
function watchCalls(page: Page, path: string): Request[] {
  const seen: Request[] = [];
  page.on("request", (request) => {
    if (request.url().includes(path)) seen.push(request);
  });
  return seen;
}

/** Writes and throws a bottle on the create page, answering the age question it asks first. */
async function throwOne(page: Page, url: string, language: "en" | "zh"): Promise<void> {
  const words = WORDS[language];
  await page.goto(`${url}${words.create}`);
  await page.getByRole("textbox", { name: words.message }).fill(`A bottle ${Math.random()}`);
  await page.getByRole("button", { name: words.throw }).click();
  const question = page.getByRole("dialog");
  await question.getByRole("button", { name: words.oldEnough }).click();
}

async function openChatAsAdult(page: Page, url: string, language: "en" | "zh"): Promise<void> {
  const response = await page.request.post(`${url}/trpc/chat.confirmAge`, {
    data: { adult: true },
    headers: { origin: url },
  });
  expect(response.status()).toBe(200);
  await page.goto(`${url}${WORDS[language].chat}`);
}

for (const language of ["en", "zh"] as const) {
  test(`${language}: a visitor throws a bottle and starts a chat without noticing`, async ({
    page,
    consoleErrors,
  }) => {
    const words = WORDS[language];
    const throws = watchCalls(page, "bottles.throw");
    await throwOne(page, site.url, language);
    await expect(page.getByRole("status").filter({ hasText: words.thrown }).first()).toBeAttached({
      timeout: 15_000,
    });
    // One call, carrying its solution; no refusal to retry.
    expect(throws).toHaveLength(1);
    expect(throws[0]?.postData() ?? "").toContain('"pow"');

    const starts = watchCalls(page, "chat.start");
    await openChatAsAdult(page, site.url, language);
    await page.getByRole("button", { name: words.find }).click();
    await expect(page.getByText(words.looking)).toBeVisible({ timeout: 15_000 });
    expect(consoleErrors).toEqual([]);
    // The chat's calls go over the WebSocket: the page made none over HTTP.
    expect(starts).toHaveLength(0);
  });
}

// The axe scan is injected as a script of its own, which the policy forbids: these bypass it
// (the tests above run the worker under the site's real Content-Security-Policy).
test.describe("with the CPU slowed", () => {
  test.use({ bypassCSP: true });
  for (const language of ["en", "zh"] as const) {
    test(`${language}: the button shows the work, and the throw lands`, async ({ page }) => {
      const words = WORDS[language];
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      // A challenge's counter is drawn at random, so a solve may end early by luck: the worker is
      // also held back (as on a slow network) until the press has been seen waiting on it.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route(/\/pow-worker-[a-z0-9]+\.js$/, async (route) => {
        await released;
        await route.continue();
      });
      await throwOne(page, dearSite.url, language);
      await expect(page.getByRole("button", { name: words.working })).toBeVisible();
      await expect(page.getByRole("textbox", { name: words.message })).not.toHaveValue("");
      // What the page shows while it waits is as accessible as the rest.
      expect(await scan(page, `${words.create} while the browser works`)).toEqual([]);
      release();
      await expect(page.getByRole("status").filter({ hasText: words.thrown }).first()).toBeAttached(
        {
          timeout: 60_000,
        },
      );
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    });
  }
});
