import { spawn } from "node:child_process";
import type {
  APIRequestContext,
  Browser,
  Locator,
  Page,
  Request,
  Response,
} from "@playwright/test";
import { expect } from "./fixtures";

// The discover page's phases: searching 2 s, the bottle rising 2 s, opening 1 s.
const SEARCH_MS = 2000;
const RISE_MS = 2000;
const OPEN_MS = 1000;

/** The name of a public bottle's button: where it came from and its likes. */
export const PUBLIC_BOTTLE_NAME = /^Bottle from .+, \d+ likes?$/;

/** Digits only: random letters can spell a word the moderation lists refuse. */
export function unique(): string {
  // In groups of four: a run of 9 digits or more reads as a phone number, which bottles refuse.
  const digits = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  return digits.match(/.{1,4}/g)?.join("_") ?? digits;
}

/**
 * Answers the bottles' age question (13 or older) for the request context's visitor, straight
 * to the server, as the create page's gate would.
 */
export async function olderThan13(
  request: APIRequestContext,
  baseURL: string | undefined,
): Promise<void> {
  const answered = await request.post("/trpc/bottles.confirmAge", {
    headers: { Origin: baseURL ?? "" },
    data: { atLeast13: true },
  });
  expect(answered.status(), await answered.text()).toBe(200);
}

/**
 * What one of a page's own tRPC calls was answered with: the web batches its calls (their names
 * in the path, their results in a list in the same order), or sends one alone.
 */
export async function answerOf<T>(response: Response, path: string): Promise<T> {
  const calls = decodeURIComponent(new URL(response.url()).pathname)
    .replace(/^\/trpc\//, "")
    .split(",");
  const body = (await response.json()) as TrpcAnswer<T> | TrpcAnswer<T>[];
  const answer = Array.isArray(body) ? body[calls.indexOf(path)] : body;
  if (!answer) throw new Error(`no answer to ${path} in ${response.url()}`);
  return answer.result.data;
}
type TrpcAnswer<T> = { result: { data: T } };

/** Throws a bottle as a visitor of its own (the API context has its own cookies). */
export async function throwBottle(
  request: APIRequestContext,
  baseURL: string | undefined,
  message: string,
  options: { isPublic: boolean; locale?: "en" | "zh-TW" },
): Promise<number> {
  // The server asks what the create page asks first: 13 or older.
  await olderThan13(request, baseURL);
  const response = await request.post("/trpc/bottles.throw", {
    headers: { Origin: baseURL ?? "" },
    data: {
      message,
      driftHours: 0,
      isPublic: options.isPublic,
      expiryDays: 7,
      timeZone: "Asia/Taipei",
      locale: options.locale ?? "en",
    },
  });
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { result: { data: { id: number } } };
  return body.result.data.id;
}

/** The password of the accounts these tests make. */
export const ACCOUNT_PASSWORD = "a long sea-green password";

/**
 * Creates an account from `request`'s cookie jar (the page's, to be signed in; the test's own,
 * to leave the page signed out). Answers its username.
 */
export async function createAccount(
  request: APIRequestContext,
  baseURL: string | undefined,
  username = `reader-${unique()}`,
): Promise<string> {
  const response = await request.post("/trpc/auth.signUp", {
    headers: { Origin: baseURL ?? "" },
    data: { username, password: ACCOUNT_PASSWORD },
  });
  expect(response.status(), await response.text()).toBe(200);
  return username;
}

/** Creates an account; the page's browser context keeps the session cookie. */
export function signUp(page: Page, baseURL: string | undefined): Promise<string> {
  return createAccount(page.request, baseURL);
}

/** What the sign-in page's two forms say, per language. */
const ACCOUNT_FORM = {
  en: {
    signIn: "Sign in",
    signUp: "Create account",
    username: "Username",
    password: "Password",
    confirm: "Confirm password",
  },
  zh: {
    signIn: "登入",
    signUp: "註冊帳號",
    username: "使用者名稱",
    password: "密碼",
    confirm: "確認密碼",
  },
} as const;

/** Fills in and sends the sign-in page's "Sign in" form, as a visitor would. */
export async function signInWithForm(
  page: Page,
  username: string,
  password: string = ACCOUNT_PASSWORD,
  language: "en" | "zh" = "en",
): Promise<void> {
  const words = ACCOUNT_FORM[language];
  const panel = page.getByRole("tabpanel", { name: words.signIn });
  await panel.getByLabel(words.username, { exact: true }).fill(username);
  await panel.getByLabel(words.password, { exact: true }).fill(password);
  await panel.getByRole("button", { name: words.signIn }).click();
}

/** Opens the sign-in page's "Create account" form, fills it in and sends it. */
export async function signUpWithForm(
  page: Page,
  username: string,
  password: string = ACCOUNT_PASSWORD,
  language: "en" | "zh" = "en",
): Promise<void> {
  const words = ACCOUNT_FORM[language];
  await page.getByRole("tab", { name: words.signUp }).click();
  const panel = page.getByRole("tabpanel", { name: words.signUp });
  await panel.getByLabel(words.username, { exact: true }).fill(username);
  await panel.getByLabel(words.password, { exact: true }).fill(password);
  await panel.getByLabel(words.confirm, { exact: true }).fill(password);
  await panel.getByRole("button", { name: words.signUp }).click();
}

/**
 * Makes an existing account an operator the only way there is: the CLI, `tidings operator add
 * <username>` (here `bun src/server/main.ts`, the same program), against the e2e site's
 * database (or the one `siteEnv` names), while the site runs.
 */
export async function makeOperator(
  username: string,
  siteEnv?: Record<string, string>,
): Promise<void> {
  const adminEnv =
    siteEnv ??
    (JSON.parse(process.env.TIDINGS_ADMIN_ENV ?? "null") as Record<string, string> | null);
  if (!adminEnv) throw new Error("TIDINGS_ADMIN_ENV is not set; global-setup did not run");
  const cli = spawn("bun", ["src/server/main.ts", "operator", "add", username], {
    env: { ...process.env, ...adminEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  cli.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  cli.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => cli.on("exit", resolve));
  expect(code, output).toBe(0);
  expect(output).toContain(`${username} is an operator`);
}

/**
 * Opens the public bottle that holds `message` (newest first, so usually the first one) and
 * returns its dialog. The e2e database is shared, so other tests' bottles may float there too.
 */
export async function openPublicBottle(
  page: Page,
  message: string,
  bottleName: RegExp = PUBLIC_BOTTLE_NAME,
): Promise<Locator> {
  const bottles = page.getByRole("button", { name: bottleName });
  await expect(bottles.first()).toBeVisible();
  const dialog = page.getByRole("dialog");
  const count = await bottles.count();
  for (let i = 0; i < count; i++) {
    await bottles.nth(i).click();
    await expect(dialog).toBeVisible();
    if ((await dialog.getByText(message, { exact: true }).count()) > 0) return dialog;
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  }
  throw new Error(`no public bottle holds ${message}`);
}

/** The words the discover page says in each phase, per language. */
const PHASE_TEXT = {
  en: { searching: "Searching for bottles…", rising: "A bottle appears!" },
  zh: { searching: "正在尋找瓶子…", rising: "有瓶子浮上來了！" },
} as const;

/** Runs the page's installed clock through one search, checking each phase as it comes. */
export async function searchThroughPhases(page: Page, language: "en" | "zh" = "en"): Promise<void> {
  const text = PHASE_TEXT[language];
  await expect(page.getByText(text.searching)).toBeVisible();
  await page.clock.runFor(SEARCH_MS);
  await expect(page.getByText(text.rising)).toBeVisible();
  await page.clock.runFor(RISE_MS);
  await page.clock.runFor(OPEN_MS);
}

/**
 * Searches the discover page (its clock installed, already on the page) until the card holding
 * `message` comes up; other tests' bottles float in the same ocean.
 */
export async function discoverBottle(
  page: Page,
  message: string,
  language: "en" | "zh" = "en",
): Promise<Locator> {
  const card = page.getByRole("article");
  const another = page.getByRole("button", {
    name: language === "en" ? "Find another bottle" : "再找一個瓶子",
  });
  await searchThroughPhases(page, language);
  for (let attempt = 0; ; attempt++) {
    await expect(card).toBeVisible();
    await expect(another).toBeVisible();
    if ((await card.getByText(message, { exact: true }).count()) > 0) return card;
    expect(attempt, "the thrown bottle never came up").toBeLessThan(40);
    await another.click();
    await searchThroughPhases(page, language);
  }
}

/** A documentation address of its own, so a second visitor is someone else somewhere else. */
export function otherAddress(): string {
  const group = () => Math.floor(Math.random() * 0xffff).toString(16);
  return `2001:db8:${group()}:${group()}::2`;
}

/** A second visitor: a fresh browser context (own cookie) behind another address. */
export async function stranger(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({
    baseURL,
    extraHTTPHeaders: { "X-Forwarded-For": otherAddress() },
  });
  return context.newPage();
}

/**
 * Installs the page's clock stopped: its timers (the overlay, the tip, a drift) fire only when
 * the test moves it with page.clock.runFor, however slow the machine.
 */
export async function stoppedClock(page: Page): Promise<void> {
  const now = Date.now();
  await page.clock.install({ time: now });
  await page.clock.pauseAt(now + 1000);
}

/**
 * With the clock stopped, moves it in steps until the locator shows (or, with "hidden", is
 * gone): what the server answered reaches the page on a timer, and a page sets its timers only
 * once it has mounted, which may be after the load that page.goto waited for.
 */
export async function runClockUntil(
  page: Page,
  locator: Locator,
  state: "visible" | "hidden" = "visible",
): Promise<void> {
  await expect(async () => {
    await page.clock.runFor(state === "visible" ? 50 : 200);
    if (state === "visible") await expect(locator).toBeVisible({ timeout: 250 });
    else await expect(locator).toBeHidden({ timeout: 250 });
  }).toPass({ timeout: 20_000 });
}

/**
 * Waits until the animations that will end have ended (a dialog rising, a toast fading), so a
 * scan sees final colours. Endless or paused ones (the sea) are not waited for, nor is one that
 * is cancelled meanwhile: its promise rejects, and it is over too.
 */
export async function animationsSettled(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter(
          (a) =>
            a.playState === "running" &&
            a.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY,
        )
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

const inFlight = new WeakMap<Page, Set<Request>>();

/** Counts the page's requests in flight from now on, for `requestsDone`. */
export function trackRequests(page: Page): void {
  const requests = new Set<Request>();
  page.on("request", (request) => requests.add(request));
  page.on("requestfinished", (request) => requests.delete(request));
  page.on("requestfailed", (request) => requests.delete(request));
  inFlight.set(page, requests);
}

/**
 * Resolves when every request the page has made is answered: a wait on events, where Playwright's
 * "networkidle" waits out 500 ms of quiet at every call. A request the page starts is reported
 * before the answer to a later evaluation in it, so two frames' round trip closes the gap (the
 * page's frames must run: not under a clock paused with page.clock).
 */
export async function requestsDone(page: Page): Promise<void> {
  const requests = inFlight.get(page);
  if (!requests) throw new Error("trackRequests(page) was not called before the page loaded");
  const none = () => expect.poll(() => requests.size, { intervals: [10] }).toBe(0);
  await none();
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await none();
}

/**
 * Checks a state once the page has settled: it must show now and still show a moment later
 * (a state that flips back after a server's answer fails here).
 */
export async function expectSettled(check: () => Promise<void>): Promise<void> {
  await check();
  await new Promise((resolve) => setTimeout(resolve, 400));
  await check();
}

/**
 * Puts a stand-in for the browser's on-device translator into the page (Chrome's Translator
 * and LanguageDetector globals): Japanese is ready, French needs a download, nothing else.
 * Its translations read "〔ja〕text"; each is recorded in `window.deviceTranslations`.
 */
export async function standInDeviceTranslator(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const done: string[] = [];
    const scope = window as unknown as Record<string, unknown>;
    scope.deviceTranslations = done;
    const detector = {
      detect: async (text: string) => [
        { detectedLanguage: /[\u4e00-\u9fff]/.test(text) ? "zh-Hant" : "en", confidence: 0.97 },
      ],
    };
    Object.defineProperty(window, "LanguageDetector", {
      configurable: true,
      value: { availability: async () => "available", create: async () => detector },
    });
    type Pair = { sourceLanguage: string; targetLanguage: string };
    Object.defineProperty(window, "Translator", {
      configurable: true,
      value: {
        availability: async ({ targetLanguage }: Pair) =>
          targetLanguage === "ja"
            ? "available"
            : targetLanguage === "fr"
              ? "downloadable"
              : "unavailable",
        create: async ({ sourceLanguage, targetLanguage }: Pair) => ({
          translate: async (text: string) => {
            done.push(`${sourceLanguage}>${targetLanguage}`);
            return `〔${targetLanguage}〕${text}`;
          },
        }),
      },
    });
  });
}

/** What the stand-in translator has translated so far, as "source>target". */
export function deviceTranslations(page: Page): Promise<string[]> {
  return page.evaluate(
    () => (window as unknown as { deviceTranslations: string[] }).deviceTranslations,
  );
}

/** Something that must not show, even for a moment: an element (CSS selector) holding a text. */
export interface Watched {
  selector: string;
  text: string;
}

/**
 * Watches every page `page` loads, from its first script on, for the `watched` elements: any
 * that appears even for a moment is recorded (a MutationObserver runs before the browser
 * paints), so a control or a page that flashes before the right one is caught.
 */
export async function watchForFlashes(page: Page, watched: readonly Watched[]): Promise<void> {
  await page.addInitScript((all: readonly Watched[]) => {
    const seen = new Set<string>();
    (window as unknown as { flashed: Set<string> }).flashed = seen;
    const check = () => {
      for (const { selector, text } of all) {
        for (const element of document.querySelectorAll(selector)) {
          if (element.textContent?.includes(text)) seen.add(text);
        }
      }
    };
    new MutationObserver(check).observe(document, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  }, watched);
}

/** Which of the watched texts this page has shown since it loaded. */
export function flashed(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(window as unknown as { flashed: Set<string> }).flashed]);
}
