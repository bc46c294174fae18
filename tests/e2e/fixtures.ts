import { test as base, expect } from "@playwright/test";
import { type E2eSite, startSite } from "./server";

/**
 * Playwright's test, pointed at the server global-setup started, failing on console errors.
 *
 * It also declares `ownSite`, a site of the worker's own, started only when a test asks for it
 * (testOnOwnSite). Declared here rather than in testOnOwnSite, the two share their worker
 * fixtures, so Playwright runs their tests in the same workers: no workers stopped and started
 * again (each a process, a browser and a site) to go from one kind to the other, and the chat
 * files' tests spread among the others' instead of coming last.
 */
export const test = base.extend<{ consoleErrors: string[] }, { ownSite: E2eSite }>({
  ownSite: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture names from this pattern.
    async ({}, use) => {
      const site = await startSite();
      await use(site);
      await site.stop();
    },
    { scope: "worker" },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture names from this pattern.
  baseURL: async ({}, use) => {
    const url = process.env.TIDINGS_URL;
    if (!url) throw new Error("TIDINGS_URL is not set; global-setup did not run");
    await use(url);
  },
  // Each test is its own visitor behind its own address (the server trusts the proxy header in
  // tests), so per-address rate limits of one test never spill into another.
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use) => {
    const group = () => Math.floor(Math.random() * 0xffff).toString(16);
    const address = `2001:db8:${group()}:${group()}::1`;
    await use({ ...extraHTTPHeaders, "X-Forwarded-For": address });
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

/**
 * Marks a test of what a page draws (layout, words, axe) in a file whose other tests are flows
 * across instances: under CLUSTER=1 it is left out, having run on one instance already.
 */
export const RENDER = { tag: "@render" };

/**
 * Marks a test in such a file whose answer one instance gives alone (what the browser does by
 * itself, a call that reads nothing another instance wrote) or a variant of a flow that another
 * variant runs across instances: under CLUSTER=1 it is left out, having run in the first run.
 */
export const ONE_INSTANCE = { tag: "@one-instance" };

/**
 * The same test on a site this worker started for itself (its address is the tests' baseURL):
 * for tests that enter the one chat pool, so tests in other workers, each on a site of their
 * own, run at the same time without pairing strangers across tests.
 */
export const testOnOwnSite = test.extend({
  baseURL: async ({ ownSite }, use) => {
    await use(ownSite.url);
  },
});

export { expect };
