import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";

/**
 * axe-core's own bundle, served to the page under test from a cacheable address of this worker's:
 * Chromium then keeps the compiled script, and every scan after a context's first starts in
 * ~40 ms instead of the ~220 ms of compiling 0.5 MB of inline script again. The page's
 * Content-Security-Policy refuses scripts from elsewhere: a test that scans runs with
 * `bypassCSP: true`.
 */
let axeUrl: Promise<string> | undefined;

function serveAxe(): Promise<string> {
  axeUrl ??= new Promise((resolve, reject) => {
    const source = readFileSync(
      createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
      "utf8",
    );
    const server = createServer((_request, response) => {
      response.writeHead(200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=31536000, immutable",
      });
      response.end(source);
    });
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      // The worker exits when its tests are done, whatever this server is doing.
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/axe.min.js`);
    });
  });
  return axeUrl;
}

export interface Violation {
  page: string;
  rule: string;
  help: string;
  nodes: string[];
}

/**
 * Runs axe over the page as it is now (WCAG 2.x A and AA, and axe's best practices), or over the
 * part `within` selects: what is still in reach when the rest is inert under an open menu.
 */
export async function scan(page: Page, label: string, within?: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) {
    await page.addScriptTag({ url: await serveAxe() });
  }
  const found = await page.evaluate(async (within) => {
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } })
      .axe;
    const result = (await axe.run(within ?? document, { resultTypes: ["violations"] })) as {
      violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }>;
    };
    return result.violations.map((v) => ({
      rule: v.id,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.map(String).join(" ")),
    }));
  }, within);
  return found.map((v) => ({ page: label, ...v }));
}
