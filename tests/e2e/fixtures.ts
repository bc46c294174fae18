import { test as base, expect } from "@playwright/test";

/** Playwright's test, pointed at the server global-setup started, failing on console errors. */
export const test = base.extend<{ consoleErrors: string[] }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture names from this pattern.
  baseURL: async ({}, use) => {
    const url = process.env.TIDINGS_URL;
    if (!url) throw new Error("TIDINGS_URL is not set; global-setup did not run");
    await use(url);
  },
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    await use(errors);
  },
});

export { expect };
