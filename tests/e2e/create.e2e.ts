import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { olderThan13 } from "./helpers";

/** Counts the bottles.throw calls the page makes. */
function countThrows(page: Page): { count: number } {
  const seen = { count: 0 };
  page.on("request", (request) => {
    if (request.url().includes("bottles.throw")) seen.count += 1;
  });
  return seen;
}

/**
 * Answers the question the first throw asks (13 or older, spec: the privacy page's age), as a
 * visitor would; the question's own screens are tested in safety.e2e.ts.
 */
async function answerOldEnough(page: Page): Promise<void> {
  const question = page.getByRole("dialog", { name: "One question first" });
  await question.getByRole("button", { name: "I am 13 or older" }).click();
  await expect(question).toBeHidden();
}

/** Chromium logs every 4xx answer as a console error; a refusal the page handles is expected. */
function unexpected(errors: string[]): string[] {
  return errors.filter((text) => !/Failed to load resource.*status of 4\d\d/.test(text));
}

test.describe("create page", () => {
  test("shows the writer's country, Unknown 🏴 for a documentation address", async ({
    page,
    consoleErrors,
  }) => {
    const lookups: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("geo.me")) lookups.push(request.url());
    });
    await page.goto("/en/create");
    await expect(page.getByRole("heading", { level: 1, name: "Write a Message" })).toBeVisible();
    await expect(page.getByTestId("writer-country")).toHaveText("Unknown");
    await expect(page.locator(".create__flag")).toHaveText("🏴");
    await expect(page.getByText("Readers only see your country")).toBeVisible();
    // Unknown is asked once more after 2 s, and only once.
    await expect.poll(() => lookups.length, { timeout: 10_000 }).toBe(2);
    await page.waitForTimeout(2500);
    expect(lookups).toHaveLength(2);
    expect(consoleErrors).toEqual([]);
  });

  test("an empty or blank message shows the toast and sends nothing", async ({
    page,
    consoleErrors,
  }) => {
    const throws = countThrows(page);
    await page.goto("/en/create");
    const throwButton = page.getByRole("button", { name: "Throw into the Ocean" });
    await throwButton.click();
    const toast = page.locator("[data-sonner-toast]");
    await expect(toast).toContainText("Please enter a message");
    await expect(toast).toContainText("The bottle can't be empty!");

    const message = page.getByLabel("Your message", { exact: true });
    await expect(message).toHaveAttribute("aria-invalid", "true");
    await expect(message).toBeFocused();

    await message.fill("  \n\t  ");
    await expect(message).not.toHaveAttribute("aria-invalid");
    await throwButton.click();
    await expect(message).toHaveAttribute("aria-invalid", "true");
    await expect(toast).toContainText("Please enter a message");
    await expect(message).toHaveValue("  \n\t  ");
    expect(throws.count).toBe(0);
    expect(consoleErrors).toEqual([]);
  });

  test("the counter follows the text", async ({ page }) => {
    await page.goto("/en/create");
    await expect(page.getByText("0 / 1000")).toBeVisible();
    const message = page.getByLabel("Your message", { exact: true });
    await message.fill("Hello, sea");
    await expect(page.getByText("10 / 1000")).toBeVisible();
    await expect(message).toHaveAccessibleDescription(/10 of 1000 characters used/);
    await message.press("Backspace");
    await expect(page.getByText("9 / 1000")).toBeVisible();
  });

  test("the drift slider starts at Visible immediately and moves with the keyboard", async ({
    page,
  }) => {
    await page.goto("/en/create");
    const slider = page.getByRole("slider", { name: "Drift time" });
    await expect(slider).toHaveAttribute("aria-valuenow", "0");
    await expect(slider).toHaveAttribute("aria-valuemin", "0");
    await expect(slider).toHaveAttribute("aria-valuemax", "168");
    await expect(slider).toHaveAttribute("aria-valuetext", "Visible immediately");
    await expect(page.locator(".create__value")).toHaveText("Visible immediately");

    await slider.focus();
    await page.keyboard.press("ArrowRight");
    await expect(slider).toHaveAttribute("aria-valuenow", "1");
    await expect(slider).toHaveAttribute("aria-valuetext", "Drifts for 1 hour");
    await page.keyboard.press("ArrowRight");
    await expect(slider).toHaveAttribute("aria-valuetext", "Drifts for 2 hours");
    await expect(page.getByText(/Surfaces around/)).toBeVisible();

    await page.keyboard.press("End");
    await expect(slider).toHaveAttribute("aria-valuenow", "168");
    await expect(slider).toHaveAttribute("aria-valuetext", "Drifts for 168 hours (≈ 7 days)");
    await page.keyboard.press("Home");
    await expect(slider).toHaveAttribute("aria-valuetext", "Visible immediately");
  });

  test("expiry defaults to 7 days, and a drift past the expiry is refused", async ({ page }) => {
    const throws = countThrows(page);
    await page.goto("/en/create");
    await expect(page.getByRole("radio", { name: "7 days" })).toBeChecked();
    for (const name of ["1 day", "3 days", "5 days"]) {
      await expect(page.getByRole("radio", { name })).not.toBeChecked();
    }
    await expect(page.getByText(/Expires .*11:59/)).toBeVisible();

    await page.getByLabel("Your message", { exact: true }).fill("Slow boat to nowhere");
    await page.getByRole("radio", { name: "1 day" }).click();
    const slider = page.getByRole("slider", { name: "Drift time" });
    await slider.focus();
    await page.keyboard.press("End");
    const refusal = "This bottle would expire before it surfaces.";
    await expect(page.getByText(refusal)).toBeVisible();
    await expect(slider).toHaveAttribute("aria-invalid", "true");

    await page.getByRole("button", { name: "Throw into the Ocean" }).click();
    await expect(slider).toBeFocused();
    expect(throws.count).toBe(0);

    await page.getByRole("radio", { name: "7 days" }).click();
    await expect(page.getByText(refusal)).toHaveCount(0);
    await expect(slider).not.toHaveAttribute("aria-invalid");
  });

  test("a good bottle disables the form, plays the throw, then lands on /en/discover", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/en/create");
    const message = page.getByLabel("Your message", { exact: true });
    const text = "Hello from the browser test. Have a lovely day!";
    await message.fill(text);
    // A reload (a phone's pull to refresh) keeps what is being written.
    await page.reload();
    await expect(message).toHaveValue(text);
    await page.getByLabel("Make it public").check();
    await expect(page.getByRole("checkbox", { name: "Make it public" })).toBeChecked();

    const response = page.waitForResponse((r) => r.url().includes("bottles.throw"));
    await page.getByRole("button", { name: "Throw into the Ocean" }).click();
    await answerOldEnough(page);
    await expect(page.getByRole("button", { name: "Throwing…" })).toBeDisabled();
    await expect(message).toBeDisabled();
    expect((await response).status()).toBe(200);

    const scene = page.getByTestId("throw-scene");
    await expect(scene).toBeVisible();
    await expect(scene).toContainText("Your bottle is on its way");
    await expect(page.locator("[data-sonner-toast]")).toHaveCount(0);
    // The toast waits for the 3 s animation, and the move to discover 500 ms more.
    await expect(page.locator("[data-sonner-toast]")).toContainText("Your bottle is drifting");
    await expect(page).toHaveURL(/\/en\/discover$/);
    // Thrown, it is not kept: the next bottle starts from an empty box.
    await page.goto("/en/create");
    await expect(message).toBeEnabled();
    await expect(message).toHaveValue("");
    expect(consoleErrors).toEqual([]);
  });

  test("in /zh, what is being written is there again after a wrong tap in the menu; cleared, it is gone", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/zh/create");
    const message = page.getByLabel("你的訊息", { exact: true });
    const text = "寫到一半的信，不小心點到別的頁面。";
    await message.fill(text);
    const nav = page.getByRole("navigation").first();
    await nav.getByRole("link", { name: "探索" }).click();
    await expect(page).toHaveURL(/\/zh\/discover$/);
    await nav.getByRole("link", { name: "寫信" }).click();
    await expect(message).toHaveValue(text);
    await expect(page.getByText(`${text.length} / 1000`)).toBeVisible();
    await message.fill("");
    await page.reload();
    await expect(message).toHaveValue("");
    expect(consoleErrors).toEqual([]);
  });

  test("offline, a throw waits under a notice that says so; back online it is thrown, nothing typed lost", async ({
    page,
    context,
    baseURL,
    consoleErrors,
  }) => {
    await olderThan13(page.request, baseURL);
    const throws = countThrows(page);
    await page.goto("/en/create");
    const message = page.getByLabel("Your message", { exact: true });
    const text = "Written on a train, sent from a tunnel. Hello to whoever finds it.";
    await message.fill(text);
    const notice = page.getByRole("status").filter({ hasText: "You are offline" });
    await expect(notice).toHaveCount(0);

    await context.setOffline(true);
    await expect(notice).toHaveText("You are offline. Waiting for your connection to come back…");
    await page.getByRole("button", { name: "Throw into the Ocean" }).click();
    await expect(page.getByRole("button", { name: "Throwing…" })).toBeDisabled();
    await expect(message).toHaveValue(text);
    // The call waits for the connection instead of failing: nothing sent, no error shown.
    expect(throws.count).toBe(0);
    await expect(page.locator("[data-sonner-toast]")).toHaveCount(0);

    const response = page.waitForResponse((r) => r.url().includes("bottles.throw"));
    await context.setOffline(false);
    await expect(notice).toHaveCount(0);
    expect((await response).status()).toBe(200);
    await expect(page.getByTestId("throw-scene")).toContainText("Your bottle is on its way");
    await expect(page).toHaveURL(/\/en\/discover$/);
    expect(throws.count).toBe(1);
    expect(consoleErrors).toEqual([]);
  });

  test("on a phone in /zh, the offline notice sits under the header and goes when the connection is back", async ({
    page,
    context,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/zh/create");
    // The app's own form (the server draws the heading before the app's scripts have come).
    await expect(page.getByRole("button", { name: "丟進大海" })).toBeVisible();
    await context.setOffline(true);
    const notice = page.getByRole("status").filter({ hasText: "你目前離線" });
    await expect(notice).toHaveText("你目前離線，正在等待網路恢復連線…");
    const header = await page.locator(".site-header").boundingBox();
    const box = await notice.boundingBox();
    expect(box && header && box.y >= header.y + header.height).toBe(true);
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await context.setOffline(false);
    await expect(notice).toHaveCount(0);
  });

  test("a profane message is rejected and the text is kept", async ({ page, consoleErrors }) => {
    await page.goto("/en/create");
    const message = page.getByLabel("Your message", { exact: true });
    await message.fill("you are a fucking idiot");
    await page.getByRole("button", { name: "Throw into the Ocean" }).click();
    await answerOldEnough(page);

    const toast = page.locator("[data-sonner-toast]");
    await expect(toast).toContainText("Content rejected");
    await expect(toast).toContainText(
      "Your message contains inappropriate content. Please revise and try again.",
    );
    await expect(message).toBeEnabled();
    await expect(message).toHaveValue("you are a fucking idiot");
    await expect(message).toHaveAttribute("aria-invalid", "true");
    await expect(message).toBeFocused();
    await expect(page.getByRole("button", { name: "Throw into the Ocean" })).toBeEnabled();
    await expect(page).toHaveURL(/\/en\/create$/);
    expect(unexpected(consoleErrors)).toEqual([]);
  });

  test("/zh/create is in Chinese", async ({ page, consoleErrors }) => {
    await page.goto("/zh/create");
    await expect(page.getByRole("heading", { level: 1, name: "寫一封信" })).toBeVisible();
    await expect(page.getByLabel("你的訊息", { exact: true })).toBeVisible();
    await expect(page.getByRole("slider", { name: "漂流時間" })).toHaveAttribute(
      "aria-valuetext",
      "立即可見",
    );
    await expect(page.getByRole("radio", { name: "7 天" })).toBeChecked();
    await expect(page.getByRole("checkbox", { name: "設為公開" })).toBeVisible();
    await expect(page.getByTestId("writer-country")).toHaveText("未知");
    await page.getByRole("button", { name: "丟進大海" }).click();
    await expect(page.locator("[data-sonner-toast]")).toContainText("請輸入訊息");
    await expect(page.locator("[data-sonner-toast]")).toContainText("瓶子不能是空的！");
    expect(consoleErrors).toEqual([]);
  });
});
