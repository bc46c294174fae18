import { chromium } from "@playwright/test";
const [base, out] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
let n = 0;
const ip = () => `2001:db8:${(++n).toString(16)}:${Math.floor(Math.random() * 65535).toString(16)}::1`;
const words = { en: { find: "Find Someone to Chat With", msg: "Message", end: "End chat", next: "Next", cancel: "Cancel", create: "Create account" },
  zh: { find: "找人聊天", msg: "訊息", end: "結束聊天", next: "下一位", cancel: "取消", create: "註冊帳號" } };
for (const [lang, width] of [["en", 1280], ["zh", 390], ["zh", 1280]]) {
  const w = words[lang];
  const mk = async (adult = true) => {
    const c = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 800 }, baseURL: base, extraHTTPHeaders: { "X-Forwarded-For": ip() } });
    const p = await c.newPage(); p.setDefaultTimeout(90000);
    if (adult) await p.request.post("/trpc/chat.confirmAge", { data: { adult: true }, headers: { origin: base } });
    return p;
  };
  const shot = (p, name) => p.screenshot({ path: `${out}/${name}-${lang}-${width}.png` });
  const a = await mk(), b = await mk();
  await a.goto(`/${lang}/auth`); await a.getByRole("tab", { name: w.create }).click(); await a.waitForTimeout(300); await shot(a, "auth-create");
  const young = await mk(false); await young.goto(`/${lang}/random-chat`); await young.locator(".chat-gate").waitFor(); await shot(young, "gate");
  await a.goto(`/${lang}/random-chat`); await b.goto(`/${lang}/random-chat`);
  await a.getByRole("button", { name: w.find }).click(); await a.locator(".chat-search").waitFor();
  await b.getByRole("button", { name: w.find }).click(); await a.locator(".chat-panel").waitFor();
  await b.getByRole("textbox", { name: w.msg, exact: true }).fill(lang === "en" ? "Hello from far away" : "我住在台北，這裡的天氣很好");
  await b.keyboard.press("Enter"); await a.locator(".chat-msg--partner").waitFor();
  await a.waitForTimeout(3500);
  await a.locator(".chat-msg--partner").getByRole("button", { name: lang === "en" ? "Translate this message" : "翻譯這則訊息" }).click();
  await a.getByRole("menu").getByRole("menuitem").first().waitFor(); await a.waitForTimeout(600); await shot(a, "chat-translate");
  await a.keyboard.press("Escape");
  await b.getByRole("button", { name: w.end }).click();
  await a.locator(".chat-msg--system").waitFor(); await a.waitForTimeout(400); await shot(a, "chat-ended");
  await a.getByRole("button", { name: w.next, exact: true }).click(); await a.locator(".chat-search").waitFor(); await a.waitForTimeout(300); await shot(a, "chat-rematch");
  await a.getByRole("button", { name: w.cancel }).click();
  for (const p of [a, b, young]) await p.context().close();
}
await browser.close();
