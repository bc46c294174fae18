import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { otherAddress, signInWithForm } from "./helpers";

/**
 * A browser whose settings block every site's cookies ("Don't allow sites to save data"), as a
 * visitor sets it: the full Chromium with a profile saying so. Debian's headless shell, which
 * the other tests use, reads no profile settings.
 */
async function cookielessBrowser(
  baseURL: string | undefined,
  launchArgs: readonly string[] | undefined,
): Promise<{ context: BrowserContext; page: Page; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "tidings-cookieless-"));
  await mkdir(join(profile, "Default"));
  await writeFile(
    join(profile, "Default", "Preferences"),
    JSON.stringify({ profile: { default_content_setting_values: { cookies: 2 } } }),
  );
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    args: [...(launchArgs ?? [])],
    baseURL,
    reducedMotion: "reduce",
    extraHTTPHeaders: { "X-Forwarded-For": otherAddress() },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The calls to the API whose names match, as the page made them. */
function callsTo(page: Page, names: RegExp): string[] {
  const calls: string[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith("/trpc/") && names.test(path)) calls.push(path);
  });
  return calls;
}

test.describe("a browser that blocks cookies", () => {
  let browser: Awaited<ReturnType<typeof cookielessBrowser>>;
  test.beforeEach(async ({ baseURL }, testInfo) => {
    browser = await cookielessBrowser(baseURL, testInfo.project.use.launchOptions?.args);
    // The premise: the visitor cookie the server sets is not kept (Chromium still says
    // navigator.cookieEnabled).
    await browser.page.goto("/en/faq");
    await expect(browser.page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await browser.context.cookies()).toEqual([]);
  });
  test.afterEach(async () => {
    await browser.close();
  });

  test("is told before writing that a throw needs them, and keeps what it wrote", async () => {
    const { page } = browser;
    const sent = callsTo(page, /confirmAge|throw/);
    await page.goto("/en/create");
    const notice = page.getByRole("status").filter({ hasText: "blocking this site's cookies" });
    await expect(notice).toContainText("Throwing a bottle needs them");
    const box = page.getByLabel("Your message");
    await box.fill("Written where cookies are blocked");
    await page.getByRole("button", { name: "Throw into the Ocean" }).click();
    // Refused here, with the way out, instead of an age question the server would forget and a
    // "Sending failed" after it.
    await expect(
      page.locator("[data-sonner-toast]").filter({ hasText: "Allow cookies for this site" }),
    ).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(box).toHaveValue("Written where cookies are blocked");
    await expect(page.getByRole("button", { name: "Throw into the Ocean" })).toBeEnabled();
    expect(sent).toEqual([]);
  });

  test("sees why the chat cannot start, in Chinese, and no start or age question", async () => {
    const { page } = browser;
    const me = page.waitForResponse((response) => response.url().includes("chat.me"));
    await page.goto("/zh/random-chat");
    await me;
    const card = page.locator(".chat-start");
    await expect(card.getByRole("status")).toContainText("你的瀏覽器封鎖了本站的 Cookie");
    await expect(card).toContainText("聊天需要 Cookie");
    await expect(card.getByRole("button", { name: "重新載入" })).toBeVisible();
    // Settled: after the server's answer about this visitor, still neither control.
    await expect(card.getByRole("button", { name: "找人聊天" })).toHaveCount(0);
    await expect(card.getByRole("button", { name: /18/ })).toHaveCount(0);
    await card.getByRole("button", { name: "重新載入" }).click();
    await expect(card).toContainText("聊天需要 Cookie");
    await expect(card.getByRole("button", { name: "找人聊天" })).toHaveCount(0);
  });

  test("is told why signing in cannot work, and no account call is made", async () => {
    const { page } = browser;
    const sent = callsTo(page, /signIn|signUp/);
    await page.goto("/en/auth");
    await expect(
      page.getByRole("status").filter({ hasText: "Signing in needs them" }),
    ).toBeVisible();
    await signInWithForm(page, "cookieless");
    await expect(page.getByRole("alert")).toHaveText(
      "Your browser is blocking this site's cookies, and signing in needs them. Allow cookies for this site, then try again.",
    );
    await expect(page.getByLabel("Username").first()).toHaveValue("cookieless");
    expect(sent).toEqual([]);
  });

  test("My bottles says why it cannot show any, not that there are none", async () => {
    const { page } = browser;
    await page.goto("/zh/my-bottles");
    await expect(
      page.getByRole("status").filter({ hasText: "本站靠 Cookie 認出你丟出的瓶子" }),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "重新載入" })).toBeVisible();
    await expect(page.getByRole("link", { name: "寫一封信" })).toHaveCount(0);
  });
});

test("a browser that keeps cookies sees none of this", async ({ page }) => {
  for (const path of ["/en/create", "/en/auth", "/en/my-bottles", "/en/random-chat"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText("blocking this site's cookies")).toHaveCount(0);
  }
  // The chat's first question, where the notice would be.
  await expect(page.getByRole("button", { name: "I am 18 or older" })).toBeVisible();
  // The test cookie is gone once read.
  expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain(
    "tidings-cookie-check",
  );
});
