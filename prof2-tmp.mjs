import { chromium } from "playwright";
const b = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium-headless-shell", args: ["--no-sandbox","--disable-gpu"] });
const path = process.argv[2];
const agg = new Map(); const incl = new Map();
for (let run = 0; run < 3; run++) {
const ctx = await b.newContext({ viewport: { width: 412, height: 823 } });
const page = await ctx.newPage();
const cdp = await ctx.newCDPSession(page);
await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
await cdp.send("Profiler.start");
await page.goto("http://localhost:3997" + path);
await page.waitForTimeout(3000);
const { profile } = await cdp.send("Profiler.stop");
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map(); for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i + 1] || 0;
  const n = byId.get(id); const f = n.callFrame;
  const key = `${f.functionName || "(anon)"} ${f.url.split("/").pop()}:${f.lineNumber}`;
  agg.set(key, (agg.get(key) || 0) + dt);
  // inclusive by function name (once per stack)
  const seen = new Set(); let cur = id;
  while (cur) { const c = byId.get(cur).callFrame; const k = `${c.functionName || "(anon)"} ${c.url.split("/").pop()}`; if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) || 0) + dt); } cur = parent.get(cur); }
});
await ctx.close();
}
console.log("SELF");
for (const [k, v] of [...agg.entries()].filter(([k]) => !k.startsWith("(")).sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(Math.round(v / 3000), k);
console.log("INCLUSIVE");
for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(Math.round(v / 3000), k);
await b.close();
