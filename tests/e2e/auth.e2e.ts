import type { APIRequestContext, Page } from "@playwright/test";
import { expect, ONE_INSTANCE, test } from "./fixtures";
import {
  ACCOUNT_PASSWORD,
  createAccount as createAccountElsewhere,
  signInWithForm,
  signUpWithForm,
} from "./helpers";

let counter = 0;

/** A username no other run or test has used. */
function uniqueName(): string {
  counter += 1;
  return `e2e_${Date.now().toString(36)}_${process.pid.toString(36)}_${counter}`;
}

/**
 * The browser logs every refused request as a console error; a wrong password (401) and a
 * throttled attempt (429) are expected answers in these tests, anything else is not.
 */
function unexpected(errors: string[]): string[] {
  return errors.filter(
    (text) =>
      !/Failed to load resource: the server responded with a status of (401|429)/.test(text),
  );
}

/** Makes an account outside the browser (its own cookie jar), as another visit would. */
const createAccount = (request: APIRequestContext, baseURL: string | undefined) =>
  createAccountElsewhere(request, baseURL, uniqueName());

const header = (page: Page) => page.getByRole("banner");
const toastWith = (page: Page, text: string) =>
  page.locator("[data-sonner-toast]").filter({ hasText: text });

test.describe("accounts", () => {
  test("create an account, see it in the header, sign out and sign in again", async ({
    page,
    consoleErrors,
  }) => {
    const username = uniqueName();
    await page.goto("/en/faq");
    const signInLink = header(page).getByRole("link", { name: "Sign in" });
    await expect(signInLink).toHaveAttribute("href", "/auth?redirect=%2Fen%2Ffaq");
    await signInLink.click();
    await expect(page).toHaveURL(/\/auth\?redirect=%2Fen%2Ffaq$/);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();

    await signUpWithForm(page, username);
    // Back where the visitor was, signed in.
    await expect(page).toHaveURL(/\/en\/faq$/);
    await expect(toastWith(page, `Welcome aboard, ${username}!`)).toBeVisible();
    const menu = header(page).getByRole("button", { name: `Account: ${username}` });
    await expect(menu).toBeVisible();
    await expect(menu).toContainText(username);
    await expect(header(page).getByRole("link", { name: "Sign in" })).toHaveCount(0);

    // Sign out from the header menu: home, with a toast.
    await menu.click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/en$/);
    await expect(toastWith(page, "You have signed out.")).toBeVisible();
    await expect(header(page).getByRole("link", { name: "Sign in" })).toBeVisible();

    // Sign in again: from the home page, back to it.
    await header(page).getByRole("link", { name: "Sign in" }).click();
    await signInWithForm(page, username.toUpperCase());
    await expect(page).toHaveURL(/\/en$/);
    await expect(header(page).getByRole("button", { name: `Account: ${username}` })).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test(
    "a wrong password shows the error, keeps the username and clears the password",
    ONE_INSTANCE,
    async ({ page, request, baseURL, consoleErrors }) => {
      const username = await createAccount(request, baseURL);
      await page.goto("/auth");
      await signInWithForm(page, username, "not-my-password");
      const alert = page.getByRole("alert").filter({ hasText: "Wrong username or password." });
      await expect(alert).toBeVisible();
      const panel = page.getByRole("tabpanel", { name: "Sign in" });
      await expect(panel.getByLabel("Username", { exact: true })).toHaveValue(username);
      const password = panel.getByLabel("Password", { exact: true });
      await expect(password).toHaveValue("");
      await expect(password).toBeFocused();
      await expect(password).toHaveAccessibleDescription("Wrong username or password.");
      await expect(page).toHaveURL(/\/auth$/);

      // The right one then works.
      await password.fill(ACCOUNT_PASSWORD);
      await panel.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(/\/en$/);
      expect(unexpected(consoleErrors)).toEqual([]);
    },
  );

  test(
    "the redirect parameter returns to the page that asked",
    ONE_INSTANCE,
    async ({ page, request, baseURL }) => {
      const username = await createAccount(request, baseURL);
      await page.goto("/auth?redirect=/en/faq");
      await signInWithForm(page, username);
      // The whole address: a pattern ending in /en/faq would also match /auth?redirect=/en/faq.
      await expect(page).toHaveURL(`${baseURL}/en/faq`);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(
        header(page).getByRole("button", { name: `Account: ${username}` }),
      ).toBeVisible();
    },
  );

  test(
    "a redirect to another site is ignored",
    ONE_INSTANCE,
    async ({ page, request, baseURL }) => {
      const username = await createAccount(request, baseURL);
      await page.goto("/auth?redirect=//evil.example/steal");
      await signInWithForm(page, username);
      await expect(page).toHaveURL(`${baseURL}/en`);
    },
  );

  test(
    "sign-up checks the fields in the browser and the taken name on the server",
    ONE_INSTANCE,
    async ({ page, request, baseURL }) => {
      let mutations = 0;
      page.on("request", (r) => {
        if (r.url().includes("auth.signUp")) mutations += 1;
      });
      await page.goto("/auth");
      await page.getByRole("tab", { name: "Create account" }).click();
      const panel = page.getByRole("tabpanel", { name: "Create account" });
      const username = panel.getByLabel("Username", { exact: true });
      const password = panel.getByLabel("Password", { exact: true });
      const confirm = panel.getByLabel("Confirm password", { exact: true });
      await username.fill("no spaces");
      await password.fill("no spaces");
      await confirm.fill("something else");
      await panel.getByRole("button", { name: "Create account" }).click();
      await expect(username).toHaveAttribute("aria-invalid", "true");
      await expect(username).toHaveAccessibleDescription(/Use only letters, digits, _ - and \./);
      await expect(username).toBeFocused();
      await expect(password).toHaveAccessibleDescription(/Your password cannot be your username\./);
      await expect(confirm).toHaveAccessibleDescription("The passwords do not match.");
      expect(mutations).toBe(0);
      // What was typed stays.
      await expect(username).toHaveValue("no spaces");
      await expect(confirm).toHaveValue("something else");

      // A name already taken, in another case.
      const taken = await createAccount(request, baseURL);
      await username.fill(taken.toUpperCase());
      await password.fill(ACCOUNT_PASSWORD);
      await confirm.fill(ACCOUNT_PASSWORD);
      await panel.getByRole("button", { name: "Create account" }).click();
      await expect(username).toHaveAccessibleDescription(
        /That username is taken\. Please choose another one\./,
      );
      await expect(username).toBeFocused();
      await expect(password).toHaveValue(ACCOUNT_PASSWORD);

      // Switching tabs keeps what was typed in each.
      await page.getByRole("tab", { name: "Sign in" }).click();
      await page.getByRole("tab", { name: "Create account" }).click();
      await expect(username).toHaveValue(taken.toUpperCase());
    },
  );

  test("too many wrong passwords: try again in minutes", async ({
    page,
    baseURL,
    consoleErrors,
  }) => {
    // Several password hashes and checks (argon2id) in one test.
    test.slow();
    const username = uniqueName();
    // Ten failures fill the window; they come from this test's own address. They are spaced
    // under the address's budget of 5 password hashes a second (that budget answers 429 on its
    // own), so each one is a wrong password, not a throttled one.
    for (let i = 0; i < 10; i += 1) {
      if (i > 0) await page.waitForTimeout(250);
      const response = await page.request.post("/trpc/auth.signIn", {
        headers: { Origin: baseURL ?? "" },
        data: { username, password: `wrong-${i}-password` },
      });
      expect(response.status()).toBe(401);
    }
    await page.goto("/auth");
    await signInWithForm(page, username, "one-more-guess");
    await expect(page.getByRole("alert")).toHaveText("Too many attempts. Try again in 15 minutes.");
    // Not known to be wrong, so the password stays.
    await expect(
      page.getByRole("tabpanel", { name: "Sign in" }).getByLabel("Password", { exact: true }),
    ).toHaveValue("one-more-guess");
    expect(unexpected(consoleErrors)).toEqual([]);
  });

  test(
    "zh-TW when that is the stored language, errors included",
    ONE_INSTANCE,
    async ({ page, request, baseURL, consoleErrors }) => {
      const username = await createAccount(request, baseURL);
      await page.addInitScript(() => localStorage.setItem("preferred-language", "zh-TW"));
      await page.goto("/auth");
      await expect(page.locator("html")).toHaveAttribute("lang", "zh-TW");
      await expect(page.getByRole("heading", { level: 1, name: "登入" })).toBeVisible();
      await expect(page.getByRole("tab", { name: "註冊帳號" })).toBeVisible();
      const panel = page.getByRole("tabpanel", { name: "登入" });
      await panel.getByLabel("使用者名稱", { exact: true }).fill(username);
      await panel.getByLabel("密碼", { exact: true }).fill("wrong-password");
      await panel.getByRole("button", { name: "登入" }).click();
      await expect(page.getByRole("alert")).toHaveText("使用者名稱或密碼錯誤。");
      await expect(panel.getByLabel("使用者名稱", { exact: true })).toHaveValue(username);

      await panel.getByLabel("密碼", { exact: true }).fill(ACCOUNT_PASSWORD);
      await panel.getByRole("button", { name: "登入" }).click();
      // Home in the stored language.
      await expect(page).toHaveURL(/\/zh$/);
      await expect(toastWith(page, `歡迎回來，${username}！`)).toBeVisible();
      await expect(header(page).getByRole("button", { name: `帳號：${username}` })).toBeVisible();
      expect(unexpected(consoleErrors)).toEqual([]);
    },
  );

  test(
    "the language switcher on /auth changes the language in place",
    ONE_INSTANCE,
    async ({ page }) => {
      await page.goto("/auth?redirect=/en/faq");
      await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
      await page.getByRole("button", { name: "Language: English" }).click();
      await page.getByRole("menuitem", { name: "繁體中文" }).click();
      await expect(page).toHaveURL(/\/auth\?redirect=/);
      await expect(page.getByRole("heading", { level: 1, name: "登入" })).toBeVisible();
      await expect(page.getByRole("tabpanel", { name: "登入" }).getByLabel("密碼")).toBeVisible();
    },
  );

  test("change password: the new one works, the old one no longer does", async ({
    page,
    consoleErrors,
  }) => {
    // Several password hashes and checks (argon2id) in one test.
    test.slow();
    const username = uniqueName();
    const next = "new-tide-password";
    await page.goto("/auth");
    await signUpWithForm(page, username);
    await expect(page).toHaveURL(/\/en$/);

    await page.goto("/auth");
    await expect(page.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
    await expect(page.locator("main")).toContainText(username);
    const current = page.getByLabel("Current password", { exact: true });
    const fresh = page.getByLabel("New password", { exact: true });
    const confirm = page.getByLabel("Confirm new password", { exact: true });
    const submit = page.getByRole("button", { name: "Change password" });

    // A wrong current password.
    await current.fill("not-the-password");
    await fresh.fill(next);
    await confirm.fill(next);
    await submit.click();
    await expect(current).toHaveAccessibleDescription("That password is not correct.");
    await expect(current).toHaveValue("");
    await expect(current).toBeFocused();
    await expect(fresh).toHaveValue(next);

    await current.fill(ACCOUNT_PASSWORD);
    await submit.click();
    await expect(toastWith(page, "Password changed")).toBeVisible();
    await expect(current).toHaveValue("");
    await expect(fresh).toHaveValue("");

    // Sign out, then only the new password opens the account.
    await page.getByRole("main").getByRole("button", { name: "Sign out", exact: true }).click();
    await expect(page).toHaveURL(/\/en$/);
    await page.goto("/auth");
    await signInWithForm(page, username, ACCOUNT_PASSWORD);
    await expect(page.getByRole("alert")).toHaveText("Wrong username or password.");
    const panel = page.getByRole("tabpanel", { name: "Sign in" });
    await panel.getByLabel("Password", { exact: true }).fill(next);
    await panel.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/en$/);
    await expect(header(page).getByRole("button", { name: `Account: ${username}` })).toBeVisible();
    expect(unexpected(consoleErrors)).toEqual([]);
  });

  test("sign out of every device", async ({ page, browser, baseURL }) => {
    // Several password hashes and checks (argon2id) in one test.
    test.slow();
    const username = uniqueName();
    await page.goto("/auth");
    await signUpWithForm(page, username);
    await expect(page).toHaveURL(/\/en$/);

    // A second device, signed in too.
    const other = await browser.newContext({
      baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": "2001:db8:ffff:1::1" },
    });
    const otherPage = await other.newPage();
    await otherPage.goto("/auth");
    await signInWithForm(otherPage, username);
    await expect(otherPage).toHaveURL(/\/en$/);

    await page.goto("/auth");
    await page.getByRole("button", { name: "Sign out of all devices" }).click();
    await expect(page).toHaveURL(/\/en$/);
    await expect(toastWith(page, "You have signed out of all devices.")).toBeVisible();
    await expect(header(page).getByRole("link", { name: "Sign in" })).toBeVisible();

    // The other device's tab, when it comes back into view, shows the session gone, no reload.
    const asked = otherPage.waitForResponse((r) => r.url().includes("auth.me"));
    await otherPage.evaluate(() =>
      document.dispatchEvent(new Event("visibilitychange", { bubbles: true })),
    );
    expect((await asked).status()).toBe(200);
    await expect(header(otherPage).getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect(
      header(otherPage).getByRole("button", { name: `Account: ${username}` }),
    ).toHaveCount(0);
    await other.close();
  });

  test("delete account asks for the password and a confirmation, then signs out", async ({
    page,
    consoleErrors,
  }) => {
    // Several password hashes and checks (argon2id) in one test.
    test.slow();
    const username = uniqueName();
    await page.goto("/auth");
    await signUpWithForm(page, username);
    await expect(page).toHaveURL(/\/en$/);
    await page.goto("/auth");

    await page.getByRole("button", { name: "Delete account…" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete your account?" });
    await expect(dialog).toBeVisible();
    const password = dialog.getByLabel("Password", { exact: true });
    await expect(password).toBeFocused();

    // Cancel keeps everything.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await page.getByRole("button", { name: "Delete account…" }).click();

    await password.fill("not-the-password");
    await dialog.getByRole("button", { name: "Delete my account" }).click();
    await expect(password).toHaveAccessibleDescription("That password is not correct.");
    await expect(dialog).toBeVisible();

    await password.fill(ACCOUNT_PASSWORD);
    await dialog.getByRole("button", { name: "Delete my account" }).click();
    await expect(page).toHaveURL(/\/en$/);
    await expect(toastWith(page, "Your account was deleted.")).toBeVisible();
    await expect(header(page).getByRole("link", { name: "Sign in" })).toBeVisible();

    // The account is gone.
    await page.goto("/auth");
    await signInWithForm(page, username);
    await expect(page.getByRole("alert")).toHaveText("Wrong username or password.");
    expect(unexpected(consoleErrors)).toEqual([]);
  });

  test(
    "phones get an icon-only account control with an accessible name",
    ONE_INSTANCE,
    async ({ page, request, baseURL }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto("/en/faq");
      const link = header(page).getByRole("link", { name: "Sign in" });
      await expect(link).toBeVisible();
      const box = await link.boundingBox();
      expect(box?.width ?? 0).toBeLessThan(60);

      const username = await createAccount(request, baseURL);
      await link.click();
      await signInWithForm(page, username);
      await expect(page).toHaveURL(/\/en\/faq$/);
      const trigger = header(page).getByRole("button", { name: `Account: ${username}` });
      await expect(trigger).toBeVisible();
      expect((await trigger.boundingBox())?.width ?? 0).toBeLessThan(60);
      await trigger.click();
      await page.getByRole("menuitem", { name: "Account" }).click();
      await expect(page).toHaveURL(/\/auth$/);
      await expect(page.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
    },
  );
});
