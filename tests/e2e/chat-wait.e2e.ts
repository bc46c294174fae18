import type { Page } from "@playwright/test";
import { scan } from "./axe";
import { expect, testOnOwnSite as test } from "./fixtures";
import { stranger } from "./helpers";

// The wait and the first minute: a visitor alone is told so and given something to do, a tab
// left in the background tells of a match, and leaving a live chat asks first. Every test here
// enters its site's one pool: each worker runs them on a site of its own, one at a time.

const WORDS = {
  en: {
    find: "Find Someone to Chat With",
    looking: "Looking for someone to chat with…",
    chatting: "Chatting with a stranger from",
    message: "Message",
    alone: "Nobody else is here right now",
    oneOther: "1 other person here",
    waited: /^Waiting for 0:0\d$/,
    whileWaiting: "While you wait",
    write: "Write a bottle",
    findBottle: "Find a bottle",
    sound: "Sound",
    pageTitle: "Random Chat · Tidings",
    matchedTitle: "Chat partner found · Tidings",
    end: "End chat",
  },
  zh: {
    find: "找人聊天",
    looking: "正在尋找聊天對象…",
    chatting: "你的聊天對象來自",
    message: "訊息",
    alone: "現在沒有其他人在線上",
    oneOther: "另有 1 人在線上",
    waited: /^已等候 0:0\d$/,
    whileWaiting: "等待的同時",
    write: "寫一封瓶中信",
    findBottle: "撿一個瓶子",
    sound: "提示音",
    pageTitle: "隨機聊天 · Tidings",
    matchedTitle: "找到聊天對象了 · Tidings",
    end: "結束聊天",
  },
} as const;
type Language = keyof typeof WORDS;

let siteUrl = "";
test.beforeEach(({ baseURL }) => {
  siteUrl = baseURL ?? "";
});

/** Opens the chat page as a stranger who passed the safety gate (see chat.e2e.ts). */
async function openAsAdult(page: Page, language: Language): Promise<void> {
  const response = await page.request.post("/trpc/chat.confirmAge", {
    data: { adult: true },
    headers: { origin: siteUrl },
  });
  expect(response.status(), await response.text()).toBe(200);
  await page.goto(`/${language}/random-chat`);
}

const chatPanel = (page: Page, language: Language) =>
  page.getByRole("region", { name: new RegExp(`^${WORDS[language].chatting}`) });
const box = (page: Page, language: Language) =>
  page.getByRole("textbox", { name: WORDS[language].message, exact: true });

/** Both open the chat and press Find, the first waiting before the second comes. */
async function pair(a: Page, b: Page, language: Language): Promise<void> {
  await openAsAdult(a, language);
  await openAsAdult(b, language);
  await a.getByRole("button", { name: WORDS[language].find }).click();
  await expect(a.getByText(WORDS[language].looking)).toBeVisible();
  await b.getByRole("button", { name: WORDS[language].find }).click();
  for (const page of [a, b]) await expect(chatPanel(page, language)).toBeVisible();
}

/**
 * Headless Chromium never hides a page, so the page is told, as a browser tells it, that its
 * tab went out of sight (as in chat.e2e.ts); and every tone the page plays is counted.
 */
async function watchTab(page: Page): Promise<(state: DocumentVisibilityState) => Promise<void>> {
  await page.addInitScript(() => {
    let state: DocumentVisibilityState = "visible";
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
    Object.defineProperty(document, "hidden", {
      configurable: true,
      get: () => state === "hidden",
    });
    const counted = window as unknown as { tones: number };
    counted.tones = 0;
    const create = AudioContext.prototype.createOscillator;
    AudioContext.prototype.createOscillator = function (this: AudioContext) {
      counted.tones += 1;
      return create.call(this);
    };
    Object.assign(window, {
      setTabVisibility: (next: DocumentVisibilityState) => {
        state = next;
        document.dispatchEvent(new Event("visibilitychange"));
      },
    });
  });
  return (state) =>
    page.evaluate((next) => {
      (window as unknown as { setTabVisibility: (s: string) => void }).setTabVisibility(next);
    }, state);
}

const tones = (page: Page) => page.evaluate(() => (window as unknown as { tones: number }).tones);
const icon = (page: Page) =>
  page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href ?? "");

const cases = [
  { language: "en", width: 390 },
  { language: "en", width: 1280 },
  { language: "zh", width: 390 },
  { language: "zh", width: 1280 },
] as const;

test.describe("the wait", () => {
  test.describe.configure({ timeout: 120_000 });
  // axe's script is put into the page: this context bypasses the site's CSP, only here.
  test.use({ bypassCSP: true });

  for (const { language, width } of cases) {
    test(`alone in /${language} at ${width} px: told plainly, given something to do, still matched when someone comes`, async ({
      page,
      browser,
      baseURL,
      consoleErrors,
    }) => {
      const words = WORDS[language];
      await page.setViewportSize({ width, height: 844 });
      // The wait's seconds run ahead on request.
      await page.clock.install();
      await openAsAdult(page, language);
      // Nobody else: not "1 online", which was the visitor themselves.
      const count = page.locator(".chat-online");
      await expect(count).toHaveText(words.alone);
      // Scrolled down to Find, as on a phone below the preferences: the search that takes the
      // card's place is brought on screen with the count, which stays clear of the sticky header.
      await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
      await page.getByRole("button", { name: words.find }).click();
      await expect(page.getByText(words.looking)).toBeVisible();
      await expect(page.getByRole("timer")).toHaveText(words.waited);
      await expect(count).toHaveText(words.alone);
      const header = await page.locator(".site-header").boundingBox();
      await expect
        .poll(async () => {
          const badge = await count.boundingBox();
          return badge && header ? badge.y - (header.y + header.height) : -1;
        })
        .toBeGreaterThanOrEqual(0);
      // No offer at first: the next visitor may be a moment away.
      const offer = page.getByRole("region", { name: words.whileWaiting });
      await expect(offer).toHaveCount(0);

      await page.clock.runFor(10_000);
      await expect(offer).toBeVisible();
      const write = offer.getByRole("link", { name: new RegExp(`^${words.write}`) });
      await expect(write).toHaveAttribute("href", `/${language}/create`);
      await expect(
        offer.getByRole("link", { name: new RegExp(`^${words.findBottle}`) }),
      ).toHaveAttribute("href", `/${language}/discover`);
      for (const link of await offer.getByRole("link").all()) {
        await expect(link).toHaveAttribute("target", "_blank");
        await expect(link).toHaveAttribute("rel", "noopener");
      }
      if (width === 390) expect(await scan(page, `the wait at ${width} px`)).toEqual([]);

      // The bottle page opens in a tab of its own; this one keeps the place in the queue.
      const [bottles] = await Promise.all([page.context().waitForEvent("page"), write.click()]);
      await expect(bottles).toHaveURL(new RegExp(`/${language}/create$`));
      await expect(page.getByText(words.looking)).toBeVisible();

      // Someone comes: they see one other visitor, and the two are paired.
      const other = await stranger(browser, baseURL);
      await openAsAdult(other, language);
      await expect(other.locator(".chat-online")).toHaveText(words.oneOther);
      await other.getByRole("button", { name: words.find }).click();
      await expect(chatPanel(page, language)).toBeVisible();
      await expect(chatPanel(other, language)).toBeVisible();
      await other.context().close();
      expect(consoleErrors).toEqual([]);
    });
  }

  for (const { language, width } of [cases[1], cases[2]]) {
    test(`a hidden tab in /${language} at ${width} px: its title and icon tell of the match and the messages, with a sound when asked`, async ({
      page,
      browser,
      baseURL,
    }) => {
      const words = WORDS[language];
      await page.setViewportSize({ width, height: 844 });
      const tab = await watchTab(page);
      const other = await stranger(browser, baseURL);
      const otherTab = await watchTab(other);
      await openAsAdult(page, language);
      await openAsAdult(other, language);
      await page.getByRole("button", { name: words.find }).click();
      await expect(page.getByText(words.looking)).toBeVisible();
      // Off until turned on; heard once then, and kept on the device.
      const sound = page.getByRole("switch", { name: words.sound });
      await expect(sound).toHaveAttribute("aria-checked", "false");
      await sound.click();
      await expect(sound).toHaveAttribute("aria-checked", "true");
      expect(await page.evaluate(() => localStorage.getItem("tidings-chat-sound"))).toBe("on");
      const heard = await tones(page);
      expect(heard).toBeGreaterThan(0);
      const ownIcon = await icon(page);
      expect(ownIcon).toMatch(/\.svg$/);

      await tab("hidden");
      await expect(page).toHaveTitle(words.pageTitle);
      await other.getByRole("button", { name: words.find }).click();
      await expect(chatPanel(other, language)).toBeVisible();
      await expect(page).toHaveTitle(words.matchedTitle);
      await expect.poll(() => icon(page)).toMatch(/^data:image\/png/);
      await expect.poll(() => tones(page)).toBe(heard * 2);
      for (const text of ["hello", "anyone there?"]) {
        await box(other, language).fill(text);
        await box(other, language).press("Enter");
        await expect(page.locator(".chat-msg--partner", { hasText: text })).toHaveCount(1);
      }
      await expect(page).toHaveTitle(`(2) ${words.pageTitle}`);
      await expect.poll(() => tones(page)).toBe(heard * 4);

      // Seen again: the page's own title and icon.
      await tab("visible");
      await expect(page).toHaveTitle(words.pageTitle);
      await expect.poll(() => icon(page)).toBe(ownIcon);

      // The partner left the sound off: their hidden tab says it without a sound.
      await otherTab("hidden");
      await box(page, language).fill("hi");
      await box(page, language).press("Enter");
      await expect(other).toHaveTitle(`(1) ${words.pageTitle}`);
      await expect.poll(() => icon(other)).toMatch(/^data:image\/png/);
      expect(await tones(other)).toBe(0);
      await other.context().close();
    });
  }

  for (const { language, width } of [cases[0], cases[3]]) {
    test(`in /${language} at ${width} px, leaving asks during a live chat and not once it has ended`, async ({
      page,
      browser,
      baseURL,
    }) => {
      const words = WORDS[language];
      await page.setViewportSize({ width, height: 844 });
      const other = await stranger(browser, baseURL);
      await pair(page, other, language);
      const asked: string[] = [];
      page.on("dialog", (dialog) => {
        asked.push(dialog.type());
        void dialog.dismiss();
      });
      // During the chat: the browser asks, and staying keeps the chat.
      await page.close({ runBeforeUnload: true });
      await expect.poll(() => asked).toEqual(["beforeunload"]);
      expect(page.isClosed()).toBe(false);
      await expect(box(page, language)).toBeEnabled();

      // Ended by the partner: nothing is lost by going, and nothing asks.
      await other.getByRole("button", { name: words.end }).click();
      await expect(box(page, language)).toBeDisabled();
      const closed = page.waitForEvent("close");
      await page.close({ runBeforeUnload: true });
      await closed;
      expect(asked).toEqual(["beforeunload"]);
      await other.context().close();
    });
  }
});
