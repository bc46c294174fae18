import { expect, test } from "./fixtures";

const BOTTLE_NAME = /^Floating bottle \d+$/;
const TIP = "Tip: Click on a floating bottle to view the message inside!";

test.describe("home page", () => {
  test("shows the loading overlay, then lets it fade away", async ({ page, consoleErrors }) => {
    await page.goto("/en", { waitUntil: "commit" });
    const overlay = page.getByText("Loading message bottles...");
    await expect(overlay).toBeVisible();
    await expect(overlay).toBeHidden({ timeout: 3_000 });
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test("floats 8 bottles; a clicked one drifts away and is removed", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/en");
    const bottles = page.getByRole("button", { name: BOTTLE_NAME });
    await expect(bottles).toHaveCount(8);
    await expect(page.getByText("Loading message bottles...")).toBeHidden();

    const first = page.getByRole("button", { name: "Floating bottle 1", exact: true });
    await first.click();
    // It drifts first and is only removed 6 s later.
    await expect(first).toBeDisabled();
    await expect(bottles).toHaveCount(8);
    await expect(first).toHaveCount(0, { timeout: 7_500 });
    await expect(bottles).toHaveCount(7);
    expect(consoleErrors).toEqual([]);
  });

  test("shows the tip after 3 s and closes it", async ({ page }) => {
    await page.goto("/en");
    const tip = page.getByText(TIP);
    const shownFrom = Date.now();
    await expect(tip).toBeHidden();
    await expect(tip).toBeVisible({ timeout: 5_000 });
    // Roughly 3 s after the page opened (the page started a little before goto returned).
    expect(Date.now() - shownFrom).toBeGreaterThan(1_500);
    await page.getByRole("button", { name: "Close", exact: true }).click();
    await expect(tip).toBeHidden();
  });

  test("the tip hides by itself after 8 s", async ({ page }) => {
    test.setTimeout(20_000);
    await page.goto("/en");
    const tip = page.getByText(TIP);
    await expect(tip).toBeVisible({ timeout: 5_000 });
    await expect(tip).toBeHidden({ timeout: 7_000 });
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
    await expect(page.getByText("正在載入瓶中信...")).toBeVisible();
    await expect(page.getByRole("link", { name: "寫一封信" })).toHaveAttribute(
      "href",
      "/zh/create",
    );
    await expect(page.getByRole("link", { name: "尋找瓶子" })).toHaveAttribute(
      "href",
      "/zh/discover",
    );
    await expect(page.getByRole("button", { name: /^漂流瓶 \d+$/ })).toHaveCount(8);
    await expect(page.getByText("小提示：點一下漂流中的瓶子，看看裡面裝了什麼訊息！")).toBeVisible({
      timeout: 5_000,
    });
    await page.getByRole("button", { name: "關閉", exact: true }).click();
    await page.getByRole("link", { name: "尋找瓶子" }).click();
    await expect(page).toHaveURL(/\/zh\/discover$/);
    expect(consoleErrors).toEqual([]);
  });
});
