import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { otherAddress } from "./helpers";
import { type E2eSite, freePort, startPairBehindNginx } from "./server";

// A Redis of this file's own under two instances behind nginx (the suite's shared one serves the
// other tests meanwhile): killed as a crash would, and started again empty.
test.skip(process.env.E2E_CLUSTER !== "1", "runs on two instances and Redis (CLUSTER=1)");

const WORDS = {
  en: {
    find: "Find Someone to Chat With",
    chatting: /^Chatting with a stranger from/,
    message: "Message",
    send: "Send",
    lost: "This chat was lost. Start a new one.",
    next: "Next",
  },
  zh: {
    find: "找人聊天",
    chatting: /^你的聊天對象來自/,
    message: "訊息",
    send: "送出",
    lost: "這次聊天已中斷，請開始新的聊天。",
    next: "下一位",
  },
} as const;
type Language = keyof typeof WORDS;

let redis: ChildProcess | undefined;
let redisPort = 0;
let redisDir = "";
let site: E2eSite | undefined;

async function startRedis(): Promise<void> {
  redis = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { cwd: redisDir, stdio: "ignore" },
  );
  // Ready once it answers.
  await expect
    .poll(
      () =>
        spawnSync("redis-cli", ["-p", String(redisPort), "ping"])
          .stdout?.toString()
          .trim(),
      {
        timeout: 10_000,
      },
    )
    .toBe("PONG");
}

test.beforeAll(async () => {
  redisDir = mkdtempSync(join(tmpdir(), "tidings-e2e-redis-"));
  redisPort = await freePort();
  await startRedis();
  site = await startPairBehindNginx({ redisUrl: `redis://127.0.0.1:${redisPort}` });
});

test.afterAll(async () => {
  await site?.stop();
  redis?.kill("SIGKILL");
  rmSync(redisDir, { recursive: true, force: true });
});

async function chatPage(browser: Browser, language: Language): Promise<Page> {
  const context = await browser.newContext({
    baseURL: site?.url,
    extraHTTPHeaders: { "X-Forwarded-For": otherAddress() },
  });
  const page = await context.newPage();
  const answer = await page.request.post("/trpc/chat.confirmAge", {
    data: { adult: true },
    headers: { origin: site?.url ?? "" },
  });
  expect(answer.status()).toBe(200);
  await page.goto(`/${language}/random-chat`);
  return page;
}

const box = (page: Page, language: Language) =>
  page.getByRole("textbox", { name: WORDS[language].message, exact: true });
const panel = (page: Page, language: Language) =>
  page.getByRole("region", { name: WORDS[language].chatting });

test("Redis killed under a chat: both pages end it as lost, the typed text stays, and both can start again", async ({
  browser,
}) => {
  const a = await chatPage(browser, "en");
  const b = await chatPage(browser, "zh");
  await a.getByRole("button", { name: WORDS.en.find }).click();
  await expect(a.getByText("Looking for someone to chat with…")).toBeVisible();
  await b.getByRole("button", { name: WORDS.zh.find }).click();
  await expect(panel(a, "en")).toBeVisible();
  await expect(panel(b, "zh")).toBeVisible();
  await box(a, "en").fill("hello before the storm");
  await a.getByRole("button", { name: WORDS.en.send }).click();
  await expect(b.getByText("hello before the storm")).toBeVisible();

  redis?.kill("SIGKILL");
  await new Promise((resolve) => redis?.once("exit", resolve));
  // A visitor keeps typing through the outage.
  await box(a, "en").fill("still here?");
  await a.getByRole("button", { name: WORDS.en.send }).click();
  await startRedis();
  // Once Redis answers again, empty, each page hears its chat was lost (from the heartbeat's
  // restore, or at once from a send that finds no chat).
  await expect(a.getByText(WORDS.en.lost)).toBeVisible({ timeout: 15_000 });
  await expect(b.getByText(WORDS.zh.lost)).toBeVisible({ timeout: 15_000 });
  // What was typed through the outage is still in the box, and the messages stay on screen.
  await expect(box(a, "en")).toHaveValue("still here?");
  await expect(b.getByText("hello before the storm")).toBeVisible();
  await expect(box(b, "zh")).toBeDisabled();

  // Both start again, and meet again.
  await a.getByRole("button", { name: WORDS.en.next }).click();
  await b.getByRole("button", { name: WORDS.zh.next }).click();
  for (const [page, language] of [
    [a, "en"],
    [b, "zh"],
  ] as const) {
    await expect(page.getByText(WORDS[language].lost)).toHaveCount(0, { timeout: 15_000 });
    await expect(panel(page, language)).toBeVisible();
    await expect(box(page, language)).toBeEnabled();
  }
});
