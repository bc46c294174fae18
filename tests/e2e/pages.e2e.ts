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

test("the pages break none of the site's Content-Security-Policy", async ({ page }) => {
  // What Lighthouse's best practices read: the browser's own issues, among them each time the
  // policy refused something (even where the page's script caught the refusal).
  const refusals: string[] = [];
  const cdp = await page.context().newCDPSession(page);
  cdp.on("Audits.issueAdded", ({ issue }) => {
    if (issue.code === "ContentSecurityPolicyIssue") refusals.push(JSON.stringify(issue.details));
  });
  await cdp.send("Audits.enable");
  const pages = [
    "",
    "/random-chat",
    "/discover",
    "/create",
    "/public-bottles",
    "/contact",
    "/auth",
  ];
  for (const prefix of ["/en", "/zh"]) {
    for (const path of pages) {
      await page.goto(`${prefix}${path}`);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      // The page's own calls answered: its lazily loaded parts have run.
      await page.waitForLoadState("networkidle");
      expect(refusals, `${prefix}${path}`).toEqual([]);
    }
  }
});
