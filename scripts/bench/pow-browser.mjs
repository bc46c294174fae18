// Time to solve a proof-of-work challenge in headless Chromium (Debian's), through the site's
// own worker, at a given POW_COST, with and without CPU throttling (CDP). Runs under Node
// (Playwright does not run under Bun): `node scripts/bench/pow-browser.mjs <url> [runs] [cost...]`
// against a site started with POW on and TRUST_PROXY=true; prints one JSON line per (cost, throttle).
import { chromium } from "@playwright/test";

const [url, runsArg, ...costs] = process.argv.slice(2);
if (!url) throw new Error("usage: node scripts/bench/pow-browser.mjs <site url> [runs]");
const runs = Number(runsArg ?? 20);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/lib/chromium/chromium-headless-shell",
});
const page = await browser.newPage();
await page.goto(`${url}/en/contact`);
const cdp = await page.context().newCDPSession(page);
const workerUrl = await page.evaluate(async () => {
  const scripts = performance.getEntriesByType("resource").map((e) => e.name);
  return scripts.find((name) => name.includes("pow-worker")) ?? null;
});
const found =
  workerUrl ??
  (await page.evaluate(async () => {
    // The worker is named in the contact page's chunk: read it from the chunks loaded.
    for (const entry of performance.getEntriesByType("resource")) {
      if (!entry.name.endsWith(".js")) continue;
      const text = await (await fetch(entry.name)).text();
      const match = /\/pow-worker-[a-z0-9]+\.js/.exec(text);
      if (match) return match[0];
    }
    return null;
  }));
if (!found) throw new Error("no pow worker named in the page's scripts");
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
for (const rate of [1, 4]) {
  await cdp.send("Emulation.setCPUThrottlingRate", { rate });
  const times = await page.evaluate(
    async ({ worker, runs, url }) => {
      const out = [];
      for (let i = 0; i < runs; i++) {
        // A visitor of its own each time (no cookie, another address), as many visitors are.
        const address = `2001:db8:${i.toString(16)}:${Math.floor(Math.random() * 65535).toString(16)}::1`;
        const response = await fetch(`${url}/trpc/pow.challenge`, {
          method: "POST",
          credentials: "omit",
          headers: { "content-type": "application/json", "x-forwarded-for": address },
          body: JSON.stringify({ action: "contact" }),
        });
        const { challenge } = (await response.json()).result.data;
        const started = performance.now();
        await new Promise((resolve, reject) => {
          const w = new Worker(worker, { type: "module" });
          w.onmessage = (event) => {
            w.terminate();
            event.data.solution ? resolve(event.data.solution) : reject(event.data.error);
          };
          w.postMessage(challenge);
        });
        out.push(performance.now() - started);
      }
      return out;
    },
    { worker: found, runs, url },
  );
  times.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      throttle: rate,
      runs,
      medianMs: Math.round(quantile(times, 0.5)),
      p95Ms: Math.round(quantile(times, 0.95)),
    }),
  );
}
await browser.close();
void costs;
