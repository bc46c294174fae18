import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import {
  answerOf,
  createAccount,
  runClockUntil,
  signInWithForm,
  stoppedClock,
  throwBottle,
  unique,
} from "./helpers";
import { type E2eServer, startE2eServer } from "./server";

const BOTTLE_NAME = /^Floating bottle \d+$/;
const TIP = "Tip: Click on a floating bottle to view the message inside!";

/** Once the app has drawn the home (the server draws its title, but not its sea's bottles). */
const seaDrawn = (page: Page) =>
  expect(page.locator(".home-sea__bottles").getByRole("button").first()).toBeVisible();

/** When the home's loading screen came, its title stood uncovered, and the app's sea came (ms). */
interface HomeTimes {
  loading?: number;
  uncovered?: number;
  /** The last time something covered the title after it stood uncovered. */
  coveredAgain?: number;
  app?: number;
}

/** The messages of the public bottles the page itself was given, once it has asked. */
function publicMessagesSeen(page: Page): Promise<string[]> {
  return new Promise((resolve) => {
    page.on("response", async (response) => {
      if (!response.url().includes("bottles.publicList")) return;
      const { bottles } = await answerOf<{ bottles: Array<{ message: string }> }>(
        response,
        "bottles.publicList",
      );
      resolve(bottles.map((b) => b.message));
    });
  });
}

test.describe("home page", () => {
  test("shows the loading overlay, then lets it fade away", async ({ page, consoleErrors }) => {
    await page.goto("/en", { waitUntil: "commit" });
    const overlay = page.getByText("Loading message bottles…");
    await expect(overlay).toBeVisible();
    await expect(overlay).toBeHidden();
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test("on a slow connection, the overlay leaves after its time and uncovers the page's words before the app", async ({
    page,
    consoleErrors,
  }) => {
    test.setTimeout(90_000);
    // Watched every frame: when the loading screen first shows, when the title first stands
    // uncovered (no loading screen shown, or only one fading out), when the app's sea came,
    // and whether anything covered the title again after.
    await page.addInitScript(() => {
      const times: HomeTimes = {};
      (window as unknown as { homeTimes: HomeTimes }).homeTimes = times;
      const shown = (element: Element) => {
        const style = getComputedStyle(element);
        return style.visibility !== "hidden" && Number(style.opacity) > 0.9;
      };
      const watch = () => {
        const now = performance.now();
        const covering = [...document.querySelectorAll(".page-loading:not(.is-fading)")].some(
          shown,
        );
        if (times.loading === undefined && covering) times.loading = now;
        if (times.uncovered === undefined && document.querySelector("h1") && !covering) {
          times.uncovered = now;
        }
        if (times.uncovered !== undefined && covering) times.coveredAgain = now;
        if (times.app === undefined && document.querySelector(".home-sea__bottles")) {
          times.app = now;
        }
        requestAnimationFrame(watch);
      };
      requestAnimationFrame(watch);
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 400,
      downloadThroughput: 50_000,
      uploadThroughput: 50_000,
    });
    await page.goto("/en", { waitUntil: "commit" });
    const timesOf = () =>
      page.evaluate(() => (window as unknown as { homeTimes: HomeTimes }).homeTimes);
    await expect.poll(async () => (await timesOf()).app, { timeout: 60_000 }).toBeDefined();
    const times = await timesOf();
    // The overlay's time (0.8 s, then its fade), and the words are there, long before the app.
    expect(times.loading).toBeDefined();
    expect((times.uncovered ?? Infinity) - (times.loading ?? 0)).toBeLessThan(2000);
    expect(times.app ?? 0).toBeGreaterThan((times.uncovered ?? Infinity) + 1000);
    // And the app, when it comes, does not cover them again.
    expect(times.coveredAgain).toBeUndefined();
    await cdp.detach();
    expect(consoleErrors).toEqual([]);
  });

  test("floats 8 bottles; a clicked one drifts away and is removed", async ({
    page,
    consoleErrors,
  }) => {
    // The page's timers (the overlay, the drift) run on a clock the test moves.
    await stoppedClock(page);
    await page.goto("/en");
    const bottles = page.getByRole("button", { name: BOTTLE_NAME });
    await expect(bottles).toHaveCount(8);
    await runClockUntil(page, page.getByText("Loading message bottles…"), "hidden");

    const first = page.getByRole("button", { name: "Floating bottle 1", exact: true });
    await first.click();
    // The message inside opens in a dialog (its opening runs on the page's timers); the page
    // behind it is back once it is closed.
    await runClockUntil(page, page.getByRole("dialog"));
    await page.keyboard.press("Escape");
    // It drifts first and is only removed 6 s later.
    await expect(first).toBeDisabled();
    await page.clock.runFor(5000);
    await expect(bottles).toHaveCount(8);
    await page.clock.runFor(1000);
    await expect(first).toHaveCount(0);
    await expect(bottles).toHaveCount(7);
    expect(consoleErrors).toEqual([]);
  });

  test("the sea's endless movements are on HTML boxes, which the browser moves off the main thread", async ({
    page,
  }) => {
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await page.goto("/en");
    await seaDrawn(page);
    // A moving <svg> is drawn again on the main thread every frame for as long as the page
    // is open; an HTML box around it is moved by the compositor.
    const endless = await page.evaluate(() =>
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getTiming().iterations === Infinity)
        .map((animation) => {
          const target = (animation.effect as KeyframeEffect | null)?.target;
          return {
            name: (animation as CSSAnimation).animationName,
            svg: target instanceof SVGElement,
          };
        }),
    );
    expect(endless.map((animation) => animation.name)).toContain("wave-band-scroll");
    expect(endless.filter((animation) => animation.svg)).toEqual([]);
  });

  test("shows the tip after 3 s and closes it", async ({ page }) => {
    await stoppedClock(page);
    await page.goto("/en");
    const tip = page.getByText(TIP);
    await seaDrawn(page);
    await page.clock.runFor(2500);
    await expect(tip).toBeHidden();
    await page.clock.runFor(600);
    await expect(tip).toBeVisible();
    await page.getByRole("button", { name: "Close", exact: true }).click();
    await expect(tip).toBeHidden();
  });

  test("on a touch screen the tip says Tap, in both languages", async ({ browser, baseURL }) => {
    const phone = await browser.newContext({
      baseURL,
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    const page = await phone.newPage();
    await page.clock.install();
    for (const [path, tap, click] of [
      ["/en", "Tip: Tap a floating bottle to view the message inside!", TIP],
      ["/zh", "小提示：輕觸漂流中的瓶子，看看裡面裝了什麼訊息！", "小提示：點一下"],
    ] as const) {
      await page.goto(path);
      await seaDrawn(page);
      await page.clock.runFor(3500);
      await expect(page.getByText(tap)).toBeVisible();
      await expect(page.getByText(click)).toHaveCount(0);
    }
    await phone.close();
  });

  test("the tip hides by itself after 8 s", async ({ page }) => {
    await stoppedClock(page);
    await page.goto("/en");
    const tip = page.getByText(TIP);
    await seaDrawn(page);
    await page.clock.runFor(3100);
    await expect(tip).toBeVisible();
    await page.clock.runFor(4800);
    await expect(tip).toBeVisible();
    await page.clock.runFor(200);
    await expect(tip).toBeHidden();
  });

  test("Write a Message goes to /en/create", async ({ page }) => {
    await page.goto("/en");
    await page.getByRole("link", { name: "Write a Message" }).click();
    await expect(page).toHaveURL(/\/en\/create$/);
  });

  test("Find a Bottle goes to /en/discover", async ({ page }) => {
    await page.goto("/en");
    await page.getByRole("link", { name: "Find a Bottle" }).click();
    await expect(page).toHaveURL(/\/en\/discover$/);
  });

  test("links to the FAQ and Public Bottles", async ({ page }) => {
    await page.goto("/en");
    const main = page.getByRole("main");
    await expect(main.getByRole("link", { name: "FAQ", exact: true })).toHaveAttribute(
      "href",
      "/en/faq",
    );
    await expect(main.getByRole("link", { name: "Public Bottles" })).toHaveAttribute(
      "href",
      "/en/public-bottles",
    );
    for (const title of [
      "Send",
      "Receive",
      "Spread Warmth",
      "About",
      "How It Works",
      "Our Mission",
    ])
      await expect(main.getByRole("heading", { name: title, exact: true })).toBeVisible();
  });

  test("/zh shows the Traditional Chinese page", async ({ page, consoleErrors }) => {
    await page.goto("/zh", { waitUntil: "commit" });
    await expect(page.getByText("正在載入瓶中信…")).toBeVisible();
    await expect(page.getByRole("link", { name: "寫一封信" })).toHaveAttribute(
      "href",
      "/zh/create",
    );
    await expect(page.getByRole("link", { name: "尋找瓶子" })).toHaveAttribute(
      "href",
      "/zh/discover",
    );
    await expect(page.getByRole("button", { name: /^漂流瓶 \d+$/ })).toHaveCount(8);
    await expect(
      page.getByText("小提示：點一下漂流中的瓶子，看看裡面裝了什麼訊息！"),
    ).toBeVisible();
    await page.getByRole("button", { name: "關閉", exact: true }).click();
    await page.getByRole("link", { name: "尋找瓶子" }).click();
    await expect(page).toHaveURL(/\/zh\/discover$/);
    expect(consoleErrors).toEqual([]);
  });
});

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test.describe(`a floating bottle at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("opens a random public bottle's card in the bottle dialog, and still drifts away", async ({
      page,
      request,
      baseURL,
      consoleErrors,
    }) => {
      await throwBottle(request, baseURL, `Afloat ${unique()}`, { isPublic: true });
      const seen = publicMessagesSeen(page);
      // The drift's timer runs on a clock the test moves: the bottle is still drifting while
      // the dialog is checked, however slow the machine.
      await stoppedClock(page);
      await page.goto("/en");
      await seaDrawn(page);
      await runClockUntil(page, page.getByText("Loading message bottles…"), "hidden");
      const bottle = page.getByRole("button", { name: "Floating bottle 3", exact: true });
      await bottle.click();

      const dialog = page.getByRole("dialog", { name: /^Bottle from / });
      await runClockUntil(page, dialog);
      await expect(dialog).toBeInViewport({ ratio: 0.9 });
      const card = dialog.getByRole("article");
      await expect(card.getByRole("button", { name: /^Like this bottle/ })).toBeVisible();
      await expect(card.getByRole("button", { name: "Report this bottle" })).toBeVisible();
      const shown = (await card.locator(".bottle-card__message").textContent()) ?? "";
      expect(await seen).toContain(shown);
      // The same dialog as on the Public Bottles page; the bottle drifts off meanwhile (the
      // dialog hides the page from the accessibility tree, so this looks at the markup).
      await expect(dialog).toHaveClass(/bottle-modal/);
      await expect(page.locator(".home-bottle.is-drifting")).toHaveCount(1);
      await page.keyboard.press("Escape");
      // Closing hands focus back on the page's next tick.
      await page.clock.runFor(300);
      await expect(dialog).toBeHidden();
      // Focus is back in the sea, on a bottle that is still afloat.
      await expect(page.locator(".home-bottle:focus:not(:disabled)")).toHaveCount(1);
      await page.clock.runFor(6000);
      await expect(bottle).toHaveCount(0);
      expect(consoleErrors).toEqual([]);
    });
  });
}

test("a floating bottle's reader who signs in to like it finds its dialog open again", async ({
  page,
  request,
  baseURL,
  consoleErrors,
}) => {
  await throwBottle(request, baseURL, `Afloat until liked ${unique()}`, { isPublic: true });
  const username = await createAccount(request, baseURL);
  await page.goto("/en");
  await page.getByRole("button", { name: "Floating bottle 2", exact: true }).click();
  let dialog = page.getByRole("dialog", { name: /^Bottle from / });
  const shown = (await dialog.locator(".bottle-card__message").textContent()) ?? "";
  expect(shown).not.toBe("");
  await dialog.getByRole("button", { name: /^Like this bottle/ }).click();
  await page.getByRole("dialog", { name: "Sign in to continue" }).getByRole("link").click();
  await signInWithForm(page, username);
  await expect(page).toHaveURL(`${baseURL}/en`);
  // The same bottle, open again over the sea; liking it now goes through.
  dialog = page.getByRole("dialog", { name: /^Bottle from / });
  await expect(dialog.locator(".bottle-card__message")).toHaveText(shown);
  const liked = page.waitForResponse((r) => r.url().includes("bottles.toggleLike"));
  await dialog.getByRole("button", { name: /^Like this bottle/ }).click();
  expect((await liked).status()).toBe(200);
  await expect(dialog.getByRole("button", { name: /^Like this bottle/ })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  expect(consoleErrors).toEqual([]);
});

test.describe("with no public bottles", () => {
  let empty: E2eServer;
  test.beforeAll(async () => {
    empty = await startE2eServer();
  });
  test.afterAll(async () => {
    await empty.stop();
  });

  test("a floating bottle says the sea is empty and offers Write a Message", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto(`${empty.url}/en`);
    await page.getByRole("button", { name: "Floating bottle 1", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "The sea is empty" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("No one has shared a public bottle yet.");
    await dialog.getByRole("link", { name: "Write a Message" }).click();
    await expect(page).toHaveURL(/\/en\/create$/);
    await expect(dialog).toBeHidden();
    expect(consoleErrors).toEqual([]);
  });

  test("in Chinese on a phone, too", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${empty.url}/zh`);
    await page.getByRole("button", { name: "漂流瓶 2", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "海上空空如也" });
    await expect(dialog).toBeInViewport();
    await expect(dialog.getByRole("link", { name: "寫一封信" })).toHaveAttribute(
      "href",
      "/zh/create",
    );
  });
});
