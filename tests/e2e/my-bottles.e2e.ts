import type { APIRequestContext, Browser, Locator } from "@playwright/test";
import { scan } from "./axe";
import { expect, ONE_INSTANCE, RENDER, test } from "./fixtures";
import {
  animationsSettled,
  answerOf,
  discoverBottle,
  expectSettled,
  olderThan13,
  signUp,
  unique,
} from "./helpers";

// The page is scanned with axe, whose inline script the site's Content-Security-Policy refuses.
test.use({ bypassCSP: true });

/** The words the pages say, per language. */
const WORDS = {
  en: {
    title: "My bottles",
    message: "Your message",
    isPublic: "Make it public",
    throw: "Throw into the Ocean",
    drifting: "Your bottle is drifting",
    follow: "Follow it in My bottles",
    found: /^Your bottle was found (\d+) times?/,
    see: "See My bottles",
    finds: /Found (\d+) times/,
    likes: (n: number) => `${n} like${n === 1 ? "" : "s"}`,
    inOcean: "In the ocean until",
    public: "Public",
    shores: "Washed ashore in",
    us: /United States, \d+ finds?/,
    tw: /Taiwan, \d+ finds?/,
    like: /^Like this bottle/,
    sink: "Sink it",
    sinkTitle: "Sink this bottle?",
    sunk: "Sunk",
    sunkToast: "Your bottle has sunk",
    empty: "You have not thrown a bottle yet",
    write: "Write a Message",
    menu: "Menu",
  },
  zh: {
    title: "我的瓶子",
    message: "你的訊息",
    isPublic: "設為公開",
    throw: "丟進大海",
    drifting: "你的瓶子正在漂流",
    follow: "到「我的瓶子」追蹤它",
    found: /^你的瓶子被撿到了 (\d+) 次/,
    see: "查看我的瓶子",
    finds: /被撿到 (\d+) 次/,
    likes: (n: number) => `${n} 個讚`,
    inOcean: "在海上漂流，",
    public: "公開",
    shores: "漂上的海岸",
    us: /美國，\d+ 次/,
    tw: /台灣，\d+ 次/,
    like: /^為這個瓶子按讚/,
    sink: "讓它沉沒",
    sinkTitle: "要讓這個瓶子沉入海底嗎？",
    sunk: "已沉入海底",
    sunkToast: "你的瓶子已沉入海底",
    empty: "你還沒有丟過瓶子",
    write: "寫一封信",
    menu: "選單",
  },
} as const;
type Language = keyof typeof WORDS;

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

/** Random groups of an address range, so every test's visitors have their own rate limits. */
const group = () => Math.floor(Math.random() * 0xffff).toString(16);
/** Addresses the bundled country database places in the United States and in Taiwan. */
const IN_US = () => `2001:4860:${group()}:${group()}::1`;
const IN_TW = () => `2001:b000:${group()}:${group()}::1`;

/**
 * The number a text holds where `pattern` (with one group) matches. Other tests' visitors search
 * the same ocean and may find a bottle too, so counts of finds are at least, not exactly, ours.
 */
async function countIn(locator: Locator, pattern: RegExp): Promise<number> {
  await expect(locator).toContainText(pattern);
  const match = pattern.exec((await locator.textContent()) ?? "");
  return Number(match?.[1]);
}

/** A visitor of their own (own cookie) behind `address`. */
async function visitorAt(browser: Browser, baseURL: string | undefined, address: string) {
  const context = await browser.newContext({
    baseURL,
    extraHTTPHeaders: { "X-Forwarded-For": address },
  });
  return context.newPage();
}

/** What a tRPC query answers (its input in the path), asked as the request context's visitor. */
async function query<T>(request: APIRequestContext, path: string): Promise<T> {
  const response = await request.get(`/trpc/${path}`);
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** A visitor from somewhere finds the bottle on the discover page (and likes it, if asked). */
async function findIt(
  browser: Browser,
  baseURL: string | undefined,
  language: Language,
  address: string,
  message: string,
  like = false,
): Promise<void> {
  const finder = await visitorAt(browser, baseURL, address);
  if (like) await signUp(finder, baseURL);
  await finder.clock.install();
  await finder.goto(`/${language}/discover`);
  const card = await discoverBottle(finder, message, language);
  if (like) {
    const answered = finder.waitForResponse((r) => r.url().includes("bottles.toggleLike"));
    await card.getByRole("button", { name: WORDS[language].like }).click();
    expect((await answered).status()).toBe(200);
  }
  await finder.context().close();
}

for (const viewport of VIEWPORTS) {
  for (const language of ["en", "zh"] as const) {
    const w = WORDS[language];

    test.describe(`my bottles at ${viewport.name} width in /${language}`, () => {
      test.use({ viewport: { width: viewport.width, height: viewport.height } });

      // The long flow once per language, each at one width (the other width's layout is
      // checked below and in the page scans): Chinese on a phone, English on a desktop.
      const fullFlow = viewport.width < 768 === (language === "zh");
      // Across instances (CLUSTER=1) once: the Chinese run differs from the English in words.
      if (fullFlow)
        test(
          "a writer throws, two visitors from two countries find it, the writer comes back to one toast and the counts, then sinks it",
          language === "zh" ? ONE_INSTANCE : {},
          async ({ page, browser, baseURL, consoleErrors }) => {
            test.setTimeout(120_000);
            const message =
              language === "en"
                ? `Where did you wash ashore? ${unique()}`
                : `你漂到哪裡了？${unique()}`;

            // Thrown from the create page (the age question answered first), public, drift 0.
            await olderThan13(page.request, baseURL);
            await page.goto(`/${language}/create`);
            await page.getByLabel(w.message, { exact: true }).fill(message);
            await page.getByRole("checkbox", { name: w.isPublic }).check();
            const thrown = page.waitForResponse((r) => r.url().includes("bottles.throw"));
            await page.getByRole("button", { name: w.throw }).click();
            expect((await thrown).status()).toBe(200);
            const throwToast = page.locator("[data-sonner-toast]").filter({ hasText: w.drifting });
            await expect(throwToast).toBeVisible();
            await expect(throwToast.getByRole("link", { name: w.follow })).toHaveAttribute(
              "href",
              `/${language}/my-bottles`,
            );
            // The browser now keeps the time from which finds are news.
            await expect
              .poll(() => page.evaluate(() => localStorage.getItem("my-bottles-seen")))
              .toMatch(/^\d+$/);

            // Found from the United States, and from Taiwan by a visitor who also likes it.
            await findIt(browser, baseURL, language, IN_US(), message);
            await findIt(browser, baseURL, language, IN_TW(), message, true);

            // Finds are written a moment after discover, by whichever instance served it: the
            // writer comes back once the server counts both.
            const since = await page.evaluate(() =>
              Number(localStorage.getItem("my-bottles-seen")),
            );
            await expect
              .poll(async () => {
                const input = encodeURIComponent(JSON.stringify({ since }));
                return (
                  await query<{ finds: number }>(page.request, `bottles.findsSince?input=${input}`)
                ).finds;
              })
              .toBeGreaterThanOrEqual(2);

            // The writer comes back: one toast, with the finds, linking to My bottles.
            const noticed = page.waitForResponse((r) => r.url().includes("bottles.findsSince"));
            await page.goto(`/${language}`);
            expect((await noticed).status()).toBe(200);
            const toasts = page.locator("[data-sonner-toast]");
            await expect(toasts).toHaveCount(1);
            const foundInToast = await countIn(toasts, w.found);
            expect(foundInToast).toBeGreaterThanOrEqual(2);

            await toasts.getByRole("link", { name: w.see }).click();
            await expect(page).toHaveURL(`/${language}/my-bottles`);
            // Followed, the toast has said its piece and leaves; the page's heading has the focus
            // the link had.
            await expect(page.getByRole("heading", { level: 1, name: w.title })).toBeFocused();
            await expect(toasts).toHaveCount(0);

            const card = page.getByRole("article").filter({ hasText: message });
            await expect(card).toHaveCount(1);
            // Nothing lies over the bottle's Sink button.
            const sinkButton = card.getByRole("button", { name: w.sink });
            await sinkButton.scrollIntoViewIfNeeded();
            expect(
              await sinkButton.evaluate((button) => {
                const box = button.getBoundingClientRect();
                const top = document.elementFromPoint(
                  box.x + box.width / 2,
                  box.y + box.height / 2,
                );
                return top !== null && button.contains(top);
              }),
            ).toBe(true);
            await expect(card).toContainText(w.inOcean);
            await expect(card.getByText(w.public, { exact: true })).toBeVisible();
            const finds = await countIn(card, w.finds);
            expect(finds).toBeGreaterThanOrEqual(foundInToast);
            await expect(card).toContainText(w.likes(1));
            // A flag for each country; visitors with no known country (other tests') have none.
            const shores = card.getByRole("list", { name: w.shores });
            await expect(shores.getByRole("listitem")).toHaveCount(2);
            await expect(shores).toContainText(w.us);
            await expect(shores).toContainText(w.tw);
            expect(await scan(page, `/${language}/my-bottles`)).toEqual([]);

            // Once: the next visit says nothing of the finds it told. The bottle floats in the
            // ocean the other workers' tests discover from, so one of them may find it meanwhile:
            // then the toast counts that find alone.
            const again = page.waitForResponse((r) => r.url().includes("bottles.findsSince"));
            await page.goto(`/${language}`);
            const answer = await again;
            expect(answer.status()).toBe(200);
            const { finds: newFinds } = await answerOf<{ finds: number }>(
              answer,
              "bottles.findsSince",
            );
            if (newFinds === 0) await expectSettled(() => expect(toasts).toHaveCount(0));
            else expect(await countIn(toasts, w.found)).toBe(newFinds);
            await page.goto(`/${language}/my-bottles`);

            // Before sinking it floats in the public collection.
            const publicMessages = async () =>
              (
                await query<{ bottles: { message: string }[] }>(page.request, "bottles.publicList")
              ).bottles.map((b) => b.message);
            expect(await publicMessages()).toContain(message);

            // Sink it, confirmed in the dialog; the card says so once the server has answered.
            await card.getByRole("button", { name: w.sink }).click();
            const dialog = page.getByRole("dialog", { name: w.sinkTitle });
            await expect(dialog).toBeVisible();
            await expect(dialog).toContainText(message);
            // Scanned once it has finished rising and fading in (half-faded colours would fail).
            await animationsSettled(page);
            expect(await scan(page, `/${language}/my-bottles with the sink dialog`)).toEqual([]);
            const sunk = page.waitForResponse((r) => r.url().includes("bottles.sink"));
            await dialog.getByRole("button", { name: w.sink }).click();
            expect((await sunk).status()).toBe(200);
            await expect(dialog).toBeHidden();
            await expect(card).toContainText(w.sunk);
            await expect(card.getByRole("button", { name: w.sink })).toHaveCount(0);
            await expect(
              page.locator("[data-sonner-toast]").filter({ hasText: w.sunkToast }),
            ).toBeVisible();

            // Still sunk after a reload, with its finds and likes kept.
            await page.reload();
            await expect(card).toContainText(w.sunk);
            expect(await countIn(card, w.finds)).toBeGreaterThanOrEqual(finds);
            await expect(card.getByRole("button", { name: w.sink })).toHaveCount(0);

            // Gone from the ocean: not in the public collection, never discovered again.
            expect(await publicMessages()).not.toContain(message);
            const reader = await visitorAt(browser, baseURL, IN_US());
            for (let i = 0; i < 30; i++) {
              const { bottle } = await query<{ bottle: { message: string } | null }>(
                reader.request,
                "bottles.discover",
              );
              expect(bottle?.message).not.toBe(message);
            }
            await reader.context().close();
            expect(consoleErrors).toEqual([]);
          },
        );

      test(
        "a visitor who never threw a bottle sees the empty state and is asked nothing",
        ONE_INSTANCE,
        async ({ page, consoleErrors }) => {
          const asked: string[] = [];
          page.on("request", (r) => {
            if (r.url().includes("bottles.findsSince")) asked.push(r.url());
          });
          await page.goto(`/${language}/my-bottles`);
          await expect(page).toHaveTitle(`${w.title} · Tidings`);
          await expect(page.getByRole("heading", { level: 2, name: w.empty })).toBeVisible();
          await expect(page.getByRole("main").getByRole("link", { name: w.write })).toHaveAttribute(
            "href",
            `/${language}/create`,
          );
          expect(await scan(page, `/${language}/my-bottles, empty`)).toEqual([]);
          await page.goto(`/${language}`);
          await page.waitForLoadState("networkidle");
          expect(asked).toEqual([]);
          expect(consoleErrors).toEqual([]);
        },
      );

      test("the header links to My bottles", RENDER, async ({ page }) => {
        await page.goto(`/${language}`);
        if (viewport.width < 768) await page.getByRole("button", { name: w.menu }).click();
        const nav = page.locator(viewport.width < 768 ? ".mobile-nav" : ".site-nav");
        await nav.getByRole("link", { name: w.title, exact: true }).click();
        await expect(page).toHaveURL(`/${language}/my-bottles`);
        // The phone's menu closed on the way: it is opened again to see the link marked.
        if (viewport.width < 768) await page.getByRole("button", { name: w.menu }).click();
        await expect(nav.getByRole("link", { name: w.title, exact: true })).toHaveAttribute(
          "aria-current",
          "page",
        );
      });
    });
  }
}

test(
  "the header's seven links and its tools fit side by side from 768 px up",
  RENDER,
  async ({ page, baseURL }) => {
    await page.goto("/en");
    // The widest trigger: a signed-in account with a long name.
    const response = await page.request.post("/trpc/auth.signUp", {
      headers: { Origin: baseURL ?? "" },
      data: { username: `Wide_${unique()}`.slice(0, 32), password: "a long sea-green password" },
    });
    expect(response.status(), await response.text()).toBe(200);
    for (const width of [768, 880, 960, 1100, 1150, 1280]) {
      await page.setViewportSize({ width, height: 700 });
      for (const language of ["en", "zh"] as const) {
        await page.goto(`/${language}/my-bottles`);
        await expect(page.locator(".account-trigger")).toBeVisible();
        const [brand, nav, tools] = await Promise.all(
          [".site-header .brand", ".site-nav", ".site-header__tools"].map((selector) =>
            page.locator(selector).boundingBox(),
          ),
        );
        if (!brand || !nav || !tools) throw new Error("the header is not drawn");
        const where = `/${language} at ${width} px`;
        expect(nav.x, where).toBeGreaterThanOrEqual(brand.x + brand.width);
        expect(tools.x, where).toBeGreaterThanOrEqual(nav.x + nav.width);
        expect(tools.x + tools.width, where).toBeLessThanOrEqual(width);
      }
    }
  },
);

test("a bottle thrown while signed in on another device is listed here; signed out meanwhile, sinking it is refused in words", async ({
  page,
  browser,
  baseURL,
  consoleErrors,
}) => {
  const account = {
    username: `writer_${unique()}`.slice(0, 32),
    password: "a long sea-green password",
  };
  const message = `Thrown on my other device ${unique()}`;
  // The other device: signed up there, the bottle thrown there.
  const other = await visitorAt(browser, baseURL, IN_TW());
  for (const [path, data] of [
    ["auth.signUp", account],
    ["bottles.confirmAge", { atLeast13: true }],
    [
      "bottles.throw",
      {
        message,
        // Drifting: it stays out of the other tests' ocean.
        driftHours: 24,
        isPublic: false,
        expiryDays: 7,
        timeZone: "Asia/Taipei",
        locale: "en",
      },
    ],
  ] as const) {
    const response = await other.request.post(`/trpc/${path}`, {
      data,
      headers: { Origin: baseURL ?? "" },
    });
    expect(response.status(), await response.text()).toBe(200);
  }
  await other.context().close();

  // This device signs in to the same account and sees it.
  const signedIn = await page.request.post("/trpc/auth.signIn", {
    data: account,
    headers: { Origin: baseURL ?? "" },
  });
  expect(signedIn.status(), await signedIn.text()).toBe(200);
  await page.goto("/en/my-bottles");
  const card = page.getByRole("article").filter({ hasText: message });
  await expect(card).toContainText("Drifting until");
  await expect(card).toContainText("Not found yet");

  // Signed out in the meantime (another tab): the bottle is no longer this visitor's to sink.
  const signedOut = await page.request.post("/trpc/auth.signOut", {
    headers: { Origin: baseURL ?? "", "content-type": "application/json" },
  });
  expect(signedOut.status()).toBe(200);
  await card.getByRole("button", { name: "Sink it" }).click();
  const dialog = page.getByRole("dialog", { name: "Sink this bottle?" });
  const refused = page.waitForResponse((r) => r.url().includes("bottles.sink"));
  await dialog.getByRole("button", { name: "Sink it" }).click();
  expect((await refused).status()).toBe(404);
  await expect(dialog.getByRole("alert")).toContainText("The bottle could not be sunk");
  await expect(dialog.getByRole("alert")).toContainText("This bottle is not yours, or it is gone.");
  await expect(dialog.getByRole("button", { name: "Sink it" })).toBeEnabled();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  // The list was asked for again: signed out, this browser threw nothing.
  await expect(card).toHaveCount(0);
  await expect(
    page.getByRole("heading", { level: 2, name: "You have not thrown a bottle yet" }),
  ).toBeVisible();
  // Chromium logs the refused call's 404 itself; nothing else went wrong.
  expect(consoleErrors.filter((text) => !/status of 404/.test(text))).toEqual([]);
});

test("the privacy page says what a find counts, in both languages", RENDER, async ({ page }) => {
  await page.goto("/en/privacy");
  await expect(
    page.getByText(/^Finds: when a visitor finds a bottle we count it once/),
  ).toBeVisible();
  await expect(page.getByText(/no finder is ever identified\.$/)).toBeVisible();
  await page.goto("/zh/privacy");
  await expect(page.getByText(/^撿到紀錄：有訪客撿到瓶子時，每位訪客只計算一次/)).toBeVisible();
  await expect(page.getByText(/我們絕不會透露是誰撿到的。$/)).toBeVisible();
});

test("twenty bottles a page, newest first; the next twenty come on request", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const account = {
    username: `pager_${unique()}`.slice(0, 32),
    password: "a long sea-green password",
  };
  const post = async (request: APIRequestContext, path: string, data: object) => {
    const response = await request.post(`/trpc/${path}`, {
      data,
      headers: { Origin: baseURL ?? "" },
    });
    expect(response.status(), await response.text()).toBe(200);
  };
  // 21 bottles from one account, thrown on five devices (each device's throws are limited),
  // drifting for a day so they crowd no other test's ocean.
  const messages: string[] = [];
  for (let device = 0; device < 5; device++) {
    const other = await visitorAt(browser, baseURL, `2001:db8:${group()}:${group()}::5`);
    await post(other.request, device === 0 ? "auth.signUp" : "auth.signIn", account);
    await post(other.request, "bottles.confirmAge", { atLeast13: true });
    for (let i = 0; i < (device < 4 ? 5 : 1); i++) {
      const message = `Bottle ${messages.length + 1} of the pile ${unique()}`;
      messages.push(message);
      await post(other.request, "bottles.throw", {
        message,
        driftHours: 24,
        isPublic: false,
        expiryDays: 7,
        timeZone: "Asia/Taipei",
        locale: "en",
      });
    }
    await other.context().close();
  }

  await post(page.request, "auth.signIn", account);
  await page.goto("/en/my-bottles");
  const list = page.getByRole("list", { name: "Your bottles, newest first" });
  const cards = list.getByRole("article");
  await expect(cards).toHaveCount(20);
  await expect(cards.first()).toContainText(messages[20] ?? "");
  await expect(cards.last()).toContainText(messages[1] ?? "");
  const more = page.getByRole("button", { name: "Show older bottles" });
  const answered = page.waitForResponse((r) => r.url().includes("bottles.mine"));
  await more.click();
  expect((await answered).status()).toBe(200);
  await expect(cards).toHaveCount(21);
  await expect(cards.last()).toContainText(messages[0] ?? "");
  await expect(more).toHaveCount(0);
});
