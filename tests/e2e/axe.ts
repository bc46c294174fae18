import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "@playwright/test";

// axe-core's own bundle, put into the page under test. The page's Content-Security-Policy
// refuses inline scripts: a test that scans runs with `bypassCSP: true`.
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

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
    await page.addScriptTag({ content: axeSource });
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
