import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

test.describe("header", () => {
  test("links lead to their pages and the current one is highlighted", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/en");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Home" })).toHaveAttribute("aria-current", "page");
    for (const [name, path] of [
      ["Create", "/en/create"],
      ["Discover", "/en/discover"],
      ["My bottles", "/en/my-bottles"],
      ["Random Chat", "/en/random-chat"],
      ["About", "/en/about"],
      ["FAQ", "/en/faq"],
      ["Home", "/en"],
    ] as const) {
      await nav.getByRole("link", { name, exact: true }).click();
      await expect(page).toHaveURL(path);
      await expect(nav.getByRole("link", { name, exact: true })).toHaveAttribute(
        "aria-current",
        "page",
      );
      await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
    }
    expect(consoleErrors).toEqual([]);
  });

  test("is transparent at the top and dimmed once the page scrolls past 10 px", async ({
    page,
  }) => {
    await page.goto("/en/privacy");
    const header = page.locator("header.site-header");
    await expect(header).not.toHaveClass(/is-scrolled/);
    await page.evaluate(() => window.scrollTo(0, 11));
    await expect(header).toHaveClass(/is-scrolled/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(header).not.toHaveClass(/is-scrolled/);
  });
});

test.describe("mobile menu", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the Menu toggle opens the links and the menu closes when the path changes", async ({
    page,
  }) => {
    await page.goto("/en");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    const toggle = page.getByRole("button", { name: "Menu" });
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    const menu = page.getByRole("navigation", { name: "Menu" });
    await expect(menu.getByRole("link")).toHaveCount(7);
    // Tab goes round the toggle and the links; the page under the menu is out of reach.
    await toggle.focus();
    const links = menu.getByRole("link");
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Tab");
      await expect(links.nth(i)).toBeFocused();
    }
    await page.keyboard.press("Tab");
    await expect(toggle).toBeFocused();
    await page.keyboard.press("Shift+Tab");
    await expect(links.nth(6)).toBeFocused();
    await expect(page.locator("#main")).toHaveAttribute("inert", "");
    // Followed with the keyboard, the link goes with the menu: the new page's heading takes
    // the focus, not the page's body.
    await menu.getByRole("link", { name: "FAQ" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL("/en/faq");
    await expect(menu).toBeHidden();
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
    await expect(page.locator("#main")).not.toHaveAttribute("inert", "");
    // The heading holds the reading position: Tab goes on into the page.
    await page.keyboard.press("Tab");
    await expect(page.locator("#main :focus")).toHaveCount(1);
  });

  test("Escape closes the menu and hands focus back to its toggle", async ({ page }) => {
    await page.goto("/zh/faq");
    const toggle = page.getByRole("button", { name: "選單" });
    await toggle.click();
    const menu = page.getByRole("navigation", { name: "選單" });
    await expect(menu).toBeVisible();
    // From inside the menu too: focus on one of its links.
    await menu.getByRole("link", { name: "首頁" }).focus();
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(toggle).toBeFocused();
    await expect(page).toHaveURL("/zh/faq");
  });
});

test.describe("language switcher", () => {
  test("moves to the same page in the other language and remembers the choice", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/en/faq");
    // Named by what it shows, too (WCAG 2.5.3).
    await page.getByRole("button", { name: "Language: English", exact: true }).click();
    await page.getByRole("menuitem", { name: "繁體中文" }).click();
    await expect(page).toHaveURL("/zh/faq");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-TW");
    await expect(
      page.getByRole("navigation", { name: "主選單" }).getByRole("link", { name: "首頁" }),
    ).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("preferred-language"))).toBe("zh-TW");

    await page.getByRole("button", { name: "語言：繁體中文", exact: true }).click();
    await page.getByRole("menuitem", { name: "English" }).click();
    await expect(page).toHaveURL("/en/faq");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    expect(await page.evaluate(() => localStorage.getItem("preferred-language"))).toBe("en");
    expect(consoleErrors).toEqual([]);
  });

  test("home switches to the bare prefix and the keyboard can drive it", async ({ page }) => {
    await page.goto("/zh");
    await page.getByRole("button", { name: "語言：繁體中文", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("menuitem", { name: "English" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL("/en");
  });
});

test.describe("footer", () => {
  test("links to the static pages and names the website, e-mail and year", async ({ page }) => {
    await page.goto("/en");
    const footer = page.locator("footer");
    for (const name of ["About", "Privacy", "Terms", "Contact", "FAQ"]) {
      await expect(footer.getByRole("link", { name, exact: true })).toBeVisible();
    }
    await expect(footer.getByRole("link", { name: "hello@tidings.example.org" })).toHaveAttribute(
      "href",
      "mailto:hello@tidings.example.org",
    );
    await expect(
      footer.getByRole("link", { name: "tidings.example.org", exact: true }),
    ).toBeVisible();
    await expect(footer).toContainText(`© ${new Date().getFullYear()} Tidings`);
  });
});

test.describe("not-found page", () => {
  test("a path without a prefix shows 404, suggests the prefixed path and logs the path", async ({
    page,
  }) => {
    const logged: string[] = [];
    page.on("console", (m) => logged.push(m.text()));
    const response = await page.goto("/some/lost/page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Oops! Page not found" })).toBeVisible();
    await expect(page.getByText("404", { exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "/en/some/lost/page" })).toBeVisible();
    expect(logged.some((line) => line.includes("/some/lost/page"))).toBe(true);
    await page.getByRole("link", { name: "Return to Home" }).click();
    await expect(page).toHaveURL("/en");
  });

  test("a prefixed missing page speaks its language and offers no suggestion", async ({ page }) => {
    await page.goto("/zh/faq");
    await page.goto("/zh/nowhere");
    await expect(page.getByRole("heading", { name: "糟糕！找不到頁面" })).toBeVisible();
    await expect(page.getByRole("link", { name: /^\/zh\// })).toHaveCount(0);
    await page.getByRole("button", { name: "返回上一頁" }).click();
    await expect(page).toHaveURL("/zh/faq");
  });

  test("inside the app, a link to an unprefixed page is redirected like the server does", async ({
    page,
  }) => {
    await page.goto("/en");
    await page.evaluate(() => {
      history.pushState({}, "", "/faq");
      dispatchEvent(new PopStateEvent("popstate"));
    });
    await expect(page).toHaveURL("/en/faq");
  });
});

/**
 * The app's scripts held back, as a slow connection holds them, until the returned function
 * lets them through.
 */
async function holdAppScripts(page: Page): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/chunk-[^/]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

test.describe("before the app's script has run", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("a slow connection shows the page's heading and a loading line in its language, then the page", async ({
    page,
  }) => {
    const release = await holdAppScripts(page);
    await page.goto("/zh/create", { waitUntil: "commit" });
    // What the page is for, from the server, while its scripts are on their way.
    await expect(page.getByRole("status").filter({ hasText: "載入中…" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1, name: "寫一封信" })).toBeVisible();
    await expect(page.getByText("把心事裝進瓶子，讓潮水帶給遠方的陌生人。")).toBeVisible();
    // Nothing to press yet: the form comes with the app.
    await expect(page.getByRole("button")).toHaveCount(0);
    release();
    await expect(page.getByRole("button", { name: "丟進大海" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1, name: "寫一封信" })).toHaveCount(1);
    await expect(page.locator(".page-loading")).toHaveCount(0);
  });

  test("the home page shows its overlay for its time, then its title and two links that work before the app", async ({
    page,
  }) => {
    const release = await holdAppScripts(page);
    await page.goto("/en", { waitUntil: "commit" });
    const overlay = page.getByRole("status").filter({ hasText: "Loading message bottles…" });
    await expect(overlay).toBeVisible();
    // The overlay leaves by itself, with the app still on its way.
    await expect(overlay).toBeHidden();
    await expect(
      page.getByRole("heading", { level: 1, name: "Messages carried by the tide" }),
    ).toBeVisible();
    const write = page.getByRole("link", { name: "Write a Message" });
    await expect(write).toHaveAttribute("href", "/en/create");
    await expect(page.getByRole("link", { name: "Find a Bottle" })).toHaveAttribute(
      "href",
      "/en/discover",
    );
    // The app draws the same in the same place, then the sea's bottles.
    const before = await write.boundingBox();
    release();
    await expect(page.getByRole("button", { name: /Floating bottle 1/ })).toBeVisible();
    expect(await write.boundingBox()).toEqual(before);
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
  });

  test("without script, the page says why nothing more comes, in its language", async ({
    browser,
    baseURL,
  }) => {
    const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      // Inside <noscript>, which Playwright's text and role queries leave out.
      const notice = page.locator(".page-noscript");
      await page.goto("/zh/create");
      await expect(notice).toBeVisible();
      await expect(notice).toHaveText(
        "Tidings 需要 JavaScript 才能運作。請在瀏覽器設定中開啟 JavaScript，然後重新載入此頁面。",
      );
      // No "loading" that never ends beside it.
      await expect(page.getByRole("status")).toBeHidden();
      await page.goto("/en");
      await expect(notice).toHaveText(/^Tidings needs JavaScript to run\./);
      await expect(page.getByRole("status")).toBeHidden();
    } finally {
      await context.close();
    }
  });
});

test.describe("a page whose script has not come yet", () => {
  test("followed offline, the link waits under the offline notice, then shows the page", async ({
    page,
    context,
  }) => {
    await page.goto("/zh");
    // The app's own header (the server draws the home's title, not its menus).
    await expect(page.getByRole("navigation", { name: "主選單" })).toBeVisible();
    // Marks this document: a reload of the site (the router's answer to a missing script,
    // which offline puts the browser's error page in its place) would lose it.
    await page.evaluate(() => {
      (window as { sameDocument?: boolean }).sameDocument = true;
    });
    await context.setOffline(true);
    await expect(page.getByRole("status").filter({ hasText: "你目前離線" })).toBeVisible();
    await page
      .getByRole("navigation", { name: "主選單" })
      .getByRole("link", { name: "常見問題" })
      .click();
    await expect(page).toHaveURL("/zh/faq");
    await expect(
      page
        .locator("main")
        .getByRole("status")
        .filter({ hasText: /^載入中…$/ }),
    ).toBeVisible();
    await context.setOffline(false);
    await expect(page.getByRole("heading", { level: 1, name: "常見問題" })).toBeVisible();
    expect(await page.evaluate(() => (window as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
  });

  test("one that cannot be fetched says so in the page's language, and Reload brings it", async ({
    page,
    context,
  }) => {
    await page.goto("/en");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    const loaded = new Set(
      await page.evaluate(() =>
        performance.getEntriesByType("resource").map((entry) => new URL(entry.name).pathname),
      ),
    );
    // Every script the home page has not used is gone (a build replaced meanwhile, a proxy
    // that fails): the one reload the router tries fails the same way.
    const gone = (url: URL) =>
      /^\/chunk-[^/]+\.js$/.test(url.pathname) && !loaded.has(url.pathname);
    await context.route(gone, (route) => route.fulfill({ status: 404, body: "gone" }));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "FAQ" }).click();
    await expect(page).toHaveURL("/en/faq");
    await expect(
      page.getByRole("heading", { level: 1, name: "This page could not be shown" }),
    ).toBeVisible();
    await expect(page.locator("main")).toContainText("Reloading the page usually helps.");
    await expect(page.getByRole("link", { name: "Return to Home" })).toBeVisible();
    await context.unroute(gone);
    await page.getByRole("button", { name: "Reload" }).click();
    await expect(
      page.getByRole("heading", { level: 1, name: "Frequently Asked Questions" }),
    ).toBeVisible();
  });
});
