import { expect, test } from "./fixtures";

// Every page at both widths in both languages (heading, language, no sideways scroll, no
// console error) is checked with its axe scan in accessibility.e2e.ts.

test("/auth exists and speaks the stored language", async ({ page }) => {
  await page.goto("/zh");
  await page.evaluate(() => localStorage.setItem("preferred-language", "zh-TW"));
  await page.goto("/auth");
  await expect(page.getByRole("heading", { level: 1, name: "登入" })).toBeVisible();
});

test("/en/auth and /zh/auth open the sign-in page in their language; the heading names the tab", async ({
  page,
  consoleErrors,
}) => {
  for (const [path, lang, signIn, createTab] of [
    ["/en/auth", "en", "Sign in", "Create account"],
    ["/zh/auth", "zh-TW", "登入", "註冊帳號"],
  ] as const) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    await expect(page.locator("html")).toHaveAttribute("lang", lang);
    const heading = page.getByRole("heading", { level: 1 });
    await expect(heading).toHaveText(signIn);
    // The form is the header's sign-in page: the same fields, the same two tabs.
    await expect(page.getByRole("tab", { name: signIn })).toHaveAttribute("aria-selected", "true");
    await page.getByRole("tab", { name: createTab }).click();
    await expect(heading).toHaveText(createTab);
    await page.getByRole("tab", { name: signIn }).click();
    await expect(heading).toHaveText(signIn);
  }
  expect(consoleErrors).toEqual([]);
});

test("the title follows client-side navigation", async ({ page }) => {
  await page.goto("/en");
  await expect(page).toHaveTitle("Tidings · Messages in bottles");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "FAQ" }).click();
  await expect(page).toHaveTitle("FAQ · Tidings");
});
