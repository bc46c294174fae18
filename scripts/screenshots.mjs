#!/usr/bin/env node
// Screenshots of pages at phone and desktop widths, for looking at what we build.
// Usage: node scripts/screenshots.mjs <base-url> <out-dir> <path> [<path> ...]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "@playwright/test";

const [base, outDir, ...paths] = process.argv.slice(2);
if (!base || !outDir || paths.length === 0) {
  console.error("usage: node scripts/screenshots.mjs <base-url> <out-dir> <path> [<path> ...]");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
const widths = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
];
for (const size of widths) {
  const context = await browser.newContext({
    viewport: { width: size.width, height: size.height },
  });
  const page = await context.newPage();
  page.on(
    "console",
    (m) => m.type() === "error" && console.log(`console error on ${page.url()}: ${m.text()}`),
  );
  page.on("pageerror", (e) => console.log(`page error on ${page.url()}: ${e.message}`));
  for (const path of paths) {
    await page.goto(new URL(path, base).toString(), { waitUntil: "networkidle" });
    await page.waitForTimeout(Number(process.env.SETTLE_MS ?? 1200));
    const file = join(
      outDir,
      `${path.replace(/^\//, "").replace(/\//g, "_") || "root"}-${size.name}.png`,
    );
    await page.screenshot({ path: file, fullPage: process.env.FULL_PAGE !== "0" });
    console.log(file);
  }
  await context.close();
}
await browser.close();
