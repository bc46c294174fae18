import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/** Counts the contact.send calls the page makes. */
function countSends(page: Page): { count: number } {
  const seen = { count: 0 };
  page.on("request", (request) => {
    if (request.url().includes("contact.send")) seen.count += 1;
  });
  return seen;
}

test.describe("contact page", () => {
  test("an empty submit shows the required errors and sends nothing", async ({
    page,
    consoleErrors,
  }) => {
    const sends = countSends(page);
    await page.goto("/en/contact");
    await page.getByRole("button", { name: "Send Message" }).click();

    for (const label of ["Name", "Email", "Message"]) {
      const field = page.getByLabel(label, { exact: true });
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await expect(field).toHaveAccessibleDescription(/Please fill in this field\./);
    }
    await expect(page.getByText("Please fill in this field.")).toHaveCount(3);
    await expect(page.getByLabel("Name", { exact: true })).toBeFocused();
    expect(sends.count).toBe(0);
    expect(consoleErrors).toEqual([]);
  });

  test("a bad e-mail shows the e-mail error and keeps what was typed", async ({ page }) => {
    const sends = countSends(page);
    await page.goto("/en/contact");
    await page.getByLabel("Name", { exact: true }).fill("Sam");
    await page.getByLabel("Email", { exact: true }).fill("sam@");
    await page.getByLabel("Message", { exact: true }).fill("Hello there");
    await expect(page.getByText("11 / 5000")).toBeVisible();
    await page.getByRole("button", { name: "Send Message" }).click();

    const email = page.getByLabel("Email", { exact: true });
    await expect(email).toHaveAttribute("aria-invalid", "true");
    await expect(email).toBeFocused();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(page.getByLabel("Name", { exact: true })).not.toHaveAttribute("aria-invalid");
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Sam");
    await expect(email).toHaveValue("sam@");
    await expect(page.getByLabel("Message", { exact: true })).toHaveValue("Hello there");
    expect(sends.count).toBe(0);

    // Correcting the field clears its error.
    await email.fill("sam@example.com");
    await expect(email).not.toHaveAttribute("aria-invalid");
  });

  test("a good message shows Sending…, then Message Sent, and clears the fields", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/en/contact");
    const name = page.getByLabel("Name", { exact: true });
    const email = page.getByLabel("Email", { exact: true });
    const message = page.getByLabel("Message", { exact: true });
    await name.fill("Sam");
    await email.fill("sam@example.com");
    await message.fill("Hello from the browser test.");
    // A reload (a phone's pull to refresh) keeps the message, and only the message.
    await page.reload();
    await expect(message).toHaveValue("Hello from the browser test.");
    await expect(name).toHaveValue("");
    await expect(email).toHaveValue("");
    await name.fill("Sam");
    await email.fill("sam@example.com");

    // The send is held on its way until the sending state has been seen: on a busy machine the
    // answer could otherwise come (and the form clear) between two of the checks.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/contact\.send/, async (route) => {
      await held;
      await route.continue();
    });
    const response = page.waitForResponse((r) => r.url().includes("contact.send"));
    await page.getByRole("button", { name: "Send Message" }).click();
    const sending = page.getByRole("button", { name: "Sending…" });
    await expect(sending).toBeVisible();
    await expect(sending).toBeDisabled();
    for (const field of [name, email, message]) await expect(field).toBeDisabled();
    release();
    expect((await response).status()).toBe(200);

    const notice = page.locator("form").getByRole("status");
    await expect(notice).toContainText("Message Sent");
    await expect(notice).toContainText("Thank you for your message. We'll get back to you soon!");
    await expect(page.locator("[data-sonner-toast]")).toContainText("Message Sent");
    await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();
    for (const field of [name, email, message]) {
      await expect(field).toBeEnabled();
      await expect(field).toHaveValue("");
    }
    await expect(page.getByText("0 / 5000")).toBeVisible();
    // Sent, it is kept no more.
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Contact Us" })).toBeVisible();
    await expect(message).toHaveValue("");
    expect(consoleErrors).toEqual([]);
  });

  test("offers the e-mail address as another way to write", async ({ page }) => {
    await page.goto("/en/contact");
    await expect(page.getByText("Or write to us at")).toBeVisible();
    await expect(
      page.locator("main").getByRole("link", { name: "hello@tidings.example.org" }),
    ).toHaveAttribute("href", "mailto:hello@tidings.example.org");
  });

  test("/zh/contact is in Chinese, errors included", async ({ page, consoleErrors }) => {
    await page.goto("/zh/contact");
    await expect(page.getByRole("heading", { level: 1, name: "聯絡我們" })).toBeVisible();
    await expect(page.getByLabel("姓名", { exact: true })).toBeVisible();
    await expect(page.getByLabel("電子郵件", { exact: true })).toBeVisible();
    await expect(page.getByLabel("訊息", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "送出訊息" }).click();
    await expect(page.getByText("請填寫此欄位。")).toHaveCount(3);
    expect(consoleErrors).toEqual([]);
  });
});

test.describe("about page", () => {
  const headings = [
    "About Tidings",
    "Our community",
    "What we offer",
    "Our story",
    "Our core values",
    "How it works",
    "Voices from the shore",
    "Get in touch",
    "Looking ahead",
    "Ready to send your first bottle?",
  ];

  test("/en/about shows every section", async ({ page, consoleErrors }) => {
    await page.goto("/en/about");
    const content = page.locator('main [lang="en"]');
    for (const name of headings) {
      await expect(content.getByRole("heading", { name, exact: true })).toBeVisible();
    }
    for (const offer of ["Virtual bottles", "Anonymous connections", "Global discovery"]) {
      await expect(content.getByRole("heading", { name: offer })).toBeVisible();
    }
    await expect(content.getByRole("heading", { name: "Random chat", exact: true })).toBeVisible();
    await expect(content).toContainText("over 50 countries");
    await expect(content).toContainText("2025");
    await expect(content).toContainText("5% of its revenue will go to ocean cleanup");
    await expect(content).toContainText(
      "translated when this site's server or your own browser can",
    );
    await expect(content.locator("ol > li")).toHaveCount(4);
    await expect(content.locator("blockquote")).toHaveCount(2);
    await expect(content.getByRole("link", { name: "Contact us" })).toHaveAttribute(
      "href",
      "/en/contact",
    );
    await expect(content.getByRole("link", { name: "hello@tidings.example.org" })).toBeVisible();
    await expect(content.getByRole("link", { name: "Write a Message" })).toHaveAttribute(
      "href",
      "/en/create",
    );
    expect(consoleErrors).toEqual([]);
  });

  test("/zh/about shows the same English text, marked lang=en, in a Chinese shell", async ({
    page,
    consoleErrors,
  }) => {
    await page.goto("/zh/about");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-TW");
    const content = page.locator('main [lang="en"]');
    for (const name of headings) {
      await expect(content.getByRole("heading", { name, exact: true })).toBeVisible();
    }
    await expect(page.locator("footer")).toContainText("隱私權");
    await expect(content.getByRole("link", { name: "Write a Message" })).toHaveAttribute(
      "href",
      "/en/create",
    );
    expect(consoleErrors).toEqual([]);
  });
});
