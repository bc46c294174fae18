import { expect, test } from "./fixtures";

test.describe("FAQ", () => {
  test("six questions, one open at a time, each can close again", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/en/faq");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Frequently Asked Questions");

    const triggers = page.locator(".faq__trigger");
    // Answer panels only (the page has other regions, such as the toast area).
    const answers = page.locator(".faq__list").getByRole("region");
    await expect(triggers).toHaveCount(6);
    for (const trigger of await triggers.all()) {
      await expect(trigger).toHaveAttribute("aria-expanded", "false");
    }

    const drift = page.getByRole("button", { name: "How long does a bottle drift?" });
    const replies = page.getByRole("button", { name: "Can I reply to a bottle I found?" });

    await drift.click();
    await expect(drift).toHaveAttribute("aria-expanded", "true");
    const driftAnswer = page.getByRole("region", { name: "How long does a bottle drift?" });
    await expect(driftAnswer).toContainText("168 hours");

    // Opening another closes the first.
    await replies.click();
    await expect(replies).toHaveAttribute("aria-expanded", "true");
    await expect(drift).toHaveAttribute("aria-expanded", "false");
    await expect(driftAnswer).toBeHidden();
    await expect(answers).toHaveCount(1);

    // The open one closes again.
    await replies.click();
    await expect(replies).toHaveAttribute("aria-expanded", "false");
    await expect(answers).toHaveCount(0);

    // Keyboard: focus a question and press Enter.
    await page.getByRole("button", { name: "Which languages are supported?" }).focus();
    await page.keyboard.press("Enter");
    const languages = page.getByRole("region", { name: "Which languages are supported?" });
    await expect(languages).toContainText("Traditional Chinese");
    // Honest about translation: what the menu offers depends on the server and the browser.
    await expect(languages).toContainText("depends on how this site is set up and on your browser");
    await expect(languages).not.toContainText("every bottle you find can be translated");

    expect(consoleErrors).toEqual([]);
  });

  test("Return to Home goes to the English home", async ({ page }) => {
    await page.goto("/en/faq");
    await page.getByRole("link", { name: "Return to Home" }).click();
    await expect(page).toHaveURL(/\/en$/);
  });

  test("/zh/faq is in Traditional Chinese", async ({ page, consoleErrors }) => {
    await page.goto("/zh/faq");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("常見問題");
    await expect(page.locator(".faq__trigger")).toHaveCount(6);
    const languages = page.getByRole("button", { name: "支援哪些語言？" });
    await languages.click();
    const answer = page.getByRole("region", { name: "支援哪些語言？" });
    await expect(answer).toContainText("繁體中文");
    await expect(answer).toContainText("取決於本網站的設定和你的瀏覽器");
    await expect(page.getByRole("link", { name: "返回首頁" })).toHaveAttribute("href", "/zh");
    expect(consoleErrors).toEqual([]);
  });
});

test.describe("legal pages", () => {
  test("/en/privacy shows today's date as last updated", async ({ page, consoleErrors }) => {
    await page.goto("/en/privacy");
    const today = await page.evaluate(() =>
      new Intl.DateTimeFormat("en", { dateStyle: "long" }).format(new Date()),
    );
    await expect(page.getByText(`Last updated: ${today}`)).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: /Children's privacy/ })).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test("/en/terms names United States law", async ({ page, consoleErrors }) => {
    await page.goto("/en/terms");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Terms of Service");
    await expect(page.locator("#governing-law")).toContainText("United States");
    expect(consoleErrors).toEqual([]);
  });
});
