import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import {
  answerOf,
  discoverBottle,
  expectSettled,
  openPublicBottle,
  signUp,
  throwBottle,
  unique,
} from "./helpers";

/** Clicks the heart and waits for the server's answer to that click. */
async function toggleLike(page: Page, like: Locator): Promise<{ liked: boolean; count: number }> {
  const answer = page.waitForResponse((r) => r.url().includes("bottles.toggleLike"));
  await like.click();
  const response = await answer;
  expect(response.status()).toBe(200);
  return answerOf(response, "bottles.toggleLike");
}

/** The heart shows `count` likes and is pressed or not, and stays so once the page settles. */
async function expectLike(like: Locator, name: string, pressed: boolean): Promise<void> {
  await expectSettled(async () => {
    await expect(like).toHaveAccessibleName(name);
    await expect(like).toHaveAttribute("aria-pressed", String(pressed));
  });
}

test.describe("likes", () => {
  test("on Discover, a like and an unlike show once the server has answered, and last", async ({
    page,
    request,
    baseURL,
    consoleErrors,
  }) => {
    test.setTimeout(60_000);
    // In Chinese: fewer of the shared ocean's bottles are in the reader's language.
    const message = `按讚測試 ${unique()}`;
    await throwBottle(request, baseURL, message, { isPublic: true, locale: "zh-TW" });
    await signUp(page, baseURL);
    await page.clock.install();
    await page.goto("/zh/discover");
    const card = await discoverBottle(page, message, "zh");

    const like = card.getByRole("button", { name: /^為這個瓶子按讚/ });
    await expectLike(like, "為這個瓶子按讚，目前 0 個讚", false);
    expect(await toggleLike(page, like)).toEqual({ liked: true, count: 1 });
    await expectLike(like, "為這個瓶子按讚，目前 1 個讚", true);

    expect(await toggleLike(page, like)).toEqual({ liked: false, count: 0 });
    await expectLike(like, "為這個瓶子按讚，目前 0 個讚", false);

    expect(await toggleLike(page, like)).toEqual({ liked: true, count: 1 });
    await expectLike(like, "為這個瓶子按讚，目前 1 個讚", true);

    // The like is kept: after a reload the bottle (public too) shows it in the pop-up.
    await page.reload();
    await page.goto("/zh/public-bottles");
    const dialog = await openPublicBottle(page, message, /^來自.+的瓶子，\d+ 個讚$/);
    await expectLike(
      dialog.getByRole("button", { name: /^為這個瓶子按讚/ }),
      "為這個瓶子按讚，目前 1 個讚",
      true,
    );
    expect(consoleErrors).toEqual([]);
  });

  test("in the Public Bottles pop-up, like and unlike last, across a reload", async ({
    page,
    request,
    baseURL,
    consoleErrors,
  }) => {
    const message = `Like in the pop-up ${unique()}`;
    await throwBottle(request, baseURL, message, { isPublic: true });
    await signUp(page, baseURL);
    await page.goto("/en/public-bottles");

    let dialog = await openPublicBottle(page, message);
    let like = dialog.getByRole("button", { name: /^Like this bottle/ });
    await expectLike(like, "Like this bottle, 0 likes", false);
    expect(await toggleLike(page, like)).toEqual({ liked: true, count: 1 });
    await expectLike(like, "Like this bottle, 1 like", true);
    expect(await toggleLike(page, like)).toEqual({ liked: false, count: 0 });
    await expectLike(like, "Like this bottle, 0 likes", false);
    expect(await toggleLike(page, like)).toEqual({ liked: true, count: 1 });
    await expectLike(like, "Like this bottle, 1 like", true);

    await page.reload();
    dialog = await openPublicBottle(page, message);
    like = dialog.getByRole("button", { name: /^Like this bottle/ });
    await expectLike(like, "Like this bottle, 1 like", true);
    expect(await toggleLike(page, like)).toEqual({ liked: false, count: 0 });
    await expectLike(like, "Like this bottle, 0 likes", false);

    await page.reload();
    dialog = await openPublicBottle(page, message);
    await expectLike(
      dialog.getByRole("button", { name: /^Like this bottle/ }),
      "Like this bottle, 0 likes",
      false,
    );
    expect(consoleErrors).toEqual([]);
  });
});
