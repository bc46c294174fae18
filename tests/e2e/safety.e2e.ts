import type { Browser, BrowserContext, Page } from "@playwright/test";
import { scan } from "./axe";
import { expect, ONE_INSTANCE, test } from "./fixtures";
import {
  flashed,
  makeOperator,
  openPublicBottle,
  otherAddress,
  signUp,
  throwBottle,
  unique,
  watchForFlashes,
} from "./helpers";
import { startE2eServer } from "./server";

// The safety screens a visitor or operator meets without entering the chat pool: the chat's
// safety gate, the bottles' age question and the moderation page. (Block and End & report need
// a chat, so they live in chat.e2e.ts, whose tests take turns in the one pool.)
// axe's script is put into these pages: this file's contexts bypass the site's CSP, only here.
test.use({ bypassCSP: true });

const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

/** What the chat page's safety gate and its refusal say, per language. */
const GATE = {
  en: {
    title: "Before your first chat",
    contact: /^Never share contact details: no phone number, e-mail address, link/,
    anyMoment: "You can end a chat, block someone or report a message at any moment.",
    partnerSees: /^Your partner sees only your country and its flag: .*Unknown$/,
    question: "Random chat is for adults. Please confirm your age.",
    adult: "I am 18 or older",
    under18: "I am under 18",
    find: "Find Someone to Chat With",
    youAppearAs: "You appear as",
    refusedTitle: "Random chat is for adults",
    refusedBody:
      "Random chat is only open to people who are 18 or older, so it stays closed for you.",
    write: "Write a Message",
    findBottle: "Find a Bottle",
  },
  zh: {
    title: "第一次聊天之前",
    contact: /^請勿分享任何聯絡方式：電話號碼、電子郵件地址、連結/,
    anyMoment: "你隨時都可以結束聊天、封鎖對方或檢舉訊息。",
    partnerSees: /^對方只會看到你的國家和國旗：.*未知$/,
    question: "隨機聊天只開放給滿 18 歲的人，請確認你的年齡。",
    adult: "我已滿 18 歲",
    under18: "我未滿 18 歲",
    find: "找人聊天",
    youAppearAs: "對方會看到你來自",
    refusedTitle: "隨機聊天要滿 18 歲才能使用",
    refusedBody: "隨機聊天只開放給 18 歲以上的人，所以目前不會為你開啟。",
    write: "寫一封信",
    findBottle: "尋找瓶子",
  },
} as const;

/** Chromium logs every 4xx answer as a console error; a refusal the page handles is expected. */
const unexpected = (errors: string[]) =>
  errors.filter((text) => !/Failed to load resource.*status of 4\d\d/.test(text));

/** A visitor of their own (own cookie) behind `address`, collecting the page's console errors. */
async function visitor(
  browser: Browser,
  baseURL: string | undefined,
  address: string,
  viewport: { width: number; height: number },
): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
  const context = await browser.newContext({
    baseURL,
    viewport,
    bypassCSP: true,
    extraHTTPHeaders: { "X-Forwarded-For": address },
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, context, errors };
}

/**
 * Waits for the answer to one tRPC call over HTTP (most chat calls go over the socket instead) and
 * returns its status and first result.
 */
async function answerOf(page: Page, path: string, act: () => Promise<void>) {
  const response = page.waitForResponse((r) => r.url().includes(`/trpc/${path}`));
  await act();
  const answered = await response;
  const body = (await answered.json()) as Array<{
    result?: { data: unknown };
    error?: { data?: { appCode?: string } };
  }>;
  return { status: answered.status(), body: body[0] };
}

/** The same call from the page's own cookie jar, as a script (or another tab) would make it. */
async function post(page: Page, baseURL: string | undefined, path: string, data: unknown) {
  const response = await page.request.post(`/trpc/${path}`, {
    headers: { Origin: baseURL ?? "" },
    data,
  });
  return { status: response.status(), text: await response.text() };
}

for (const size of WIDTHS) {
  for (const language of ["en", "zh"] as const) {
    const words = GATE[language];
    // Across instances (CLUSTER=1) once: the other three differ in words and layout only.
    const across = language === "en" && size === WIDTHS[0];
    test(
      `the chat's safety gate in /${language} at ${size.width} px: 18 or older opens the start, under 18 is refused for good`,
      across ? {} : ONE_INSTANCE,
      async ({ browser, baseURL }) => {
        const viewport = { width: size.width, height: size.height };
        const adult = await visitor(browser, baseURL, otherAddress(), viewport);
        let page = adult.page;
        // No start button before the server has said where the visitor stands, not for a moment.
        await watchForFlashes(page, [{ selector: "button", text: words.find }]);
        await page.goto(`/${language}/random-chat`);

        // The notice, then the question; no start button until it is answered.
        const gate = page.getByRole("heading", { level: 3, name: words.title });
        await expect(gate).toBeVisible();
        await expect(page.getByText(words.contact)).toBeVisible();
        await expect(page.getByText(words.anyMoment)).toBeVisible();
        await expect(page.locator(".chat-gate__rules li").nth(2)).toHaveText(words.partnerSees);
        const question = page.getByRole("group", { name: words.question });
        await expect(question).toBeVisible();
        await expect(page.getByRole("button", { name: words.find })).toHaveCount(0);
        expect(await flashed(page)).toEqual([]);
        for (const answer of [words.adult, words.under18]) {
          await expect(question.getByRole("button", { name: answer })).toBeEnabled();
        }
        const violations = await scan(page, `safety gate /${language} at ${size.width} px`);

        // 18 or older: once the server has recorded it, the start card takes the gate's place;
        // a reload asks the server again.
        await question.getByRole("button", { name: words.adult }).click();
        const find = page.getByRole("button", { name: words.find });
        await expect(find).toBeEnabled();
        await expect(find).toBeFocused();
        await expect(page.getByText(words.youAppearAs)).toBeVisible();
        await expect(gate).toHaveCount(0);
        await page.reload();
        await expect(find).toBeEnabled();
        await expect(gate).toHaveCount(0);
        expect(adult.errors).toEqual([]);
        await adult.context.close();

        // Under 18, from another address: the kind refusal, and ways to the bottles instead.
        const address = otherAddress();
        const young = await visitor(browser, baseURL, address, viewport);
        page = young.page;
        await watchForFlashes(page, [
          { selector: "button", text: words.find },
          { selector: "h3", text: words.title },
        ]);
        await page.goto(`/${language}/random-chat`);
        await page.getByRole("button", { name: words.under18 }).click();
        const refusal = page.getByRole("status").filter({ hasText: words.refusedTitle });
        const checkRefused = async () => {
          await expect(
            page.getByRole("heading", { level: 3, name: words.refusedTitle }),
          ).toBeVisible();
          await expect(refusal).toContainText(words.refusedBody);
          await expect(refusal.getByRole("link", { name: words.write })).toHaveAttribute(
            "href",
            `/${language}/create`,
          );
          await expect(refusal.getByRole("link", { name: words.findBottle })).toHaveAttribute(
            "href",
            `/${language}/discover`,
          );
          await expect(page.getByRole("button", { name: words.find })).toHaveCount(0);
          await expect(page.getByRole("button", { name: words.adult })).toHaveCount(0);
        };
        await checkRefused();
        // The refusal takes the focus of the button that is gone, its title in view and clear of
        // the fixed header.
        await expect(refusal).toBeFocused();
        const header = await page.getByRole("banner").boundingBox();
        const title = await page
          .getByRole("heading", { level: 3, name: words.refusedTitle })
          .boundingBox();
        expect(title?.y ?? -1).toBeGreaterThanOrEqual((header?.y ?? 0) + (header?.height ?? 0));
        expect((title?.y ?? 0) + (title?.height ?? 0)).toBeLessThanOrEqual(size.height);
        violations.push(...(await scan(page, `chat refusal /${language} at ${size.width} px`)));

        // Answering again (as a script could) changes nothing, chat stays closed, and a reload
        // (which asks the server) still shows the refusal.
        const again = await post(page, baseURL, "chat.confirmAge", { adult: true });
        expect(again.status).toBe(200);
        expect(again.text).toContain('"age":"refused"');
        const start = await post(page, baseURL, "chat.start", {});
        expect(start.status).toBe(403);
        expect(start.text).toContain("AGE_REFUSED");
        await page.reload();
        await checkRefused();
        // Refused, the visitor sees only the refusal: neither the start button nor the question
        // flashed before it.
        expect(await flashed(page)).toEqual([]);
        expect(unexpected(young.errors)).toEqual([]);
        await young.context.close();

        // The refusal is that visitor's, not the address's (schools and phones share one); once
        // per language is enough.
        if (size.width === 1280) {
          const classmate = await visitor(browser, baseURL, address, viewport);
          await classmate.page.goto(`/${language}/random-chat`);
          await expect(
            classmate.page.getByRole("heading", { level: 3, name: words.title }),
          ).toBeVisible();
          await expect(classmate.page.getByRole("button", { name: words.adult })).toBeEnabled();
          await classmate.context.close();
        }

        expect(violations).toEqual([]);
      },
    );
  }
}

test(
  "where no WebSocket gets through, the safety gate is still answered and Find says it cannot connect",
  ONE_INSTANCE,
  async ({ browser, baseURL }) => {
    const words = GATE.zh;
    const { page, context } = await visitor(browser, baseURL, otherAddress(), WIDTHS[0]);
    // As behind a proxy that drops WebSockets: every chat socket the page opens is closed at once.
    let sockets = 0;
    await page.routeWebSocket(/\/trpc/, (ws) => {
      sockets += 1;
      void ws.close({ code: 1011, reason: "no WebSockets here" });
    });
    // The start's wait for the socket is moved on by the page's clock, not waited out.
    await page.clock.install();
    await page.goto("/zh/random-chat");
    const answered = await answerOf(page, "chat.confirmAge", () =>
      page.getByRole("button", { name: words.adult }).click(),
    );
    expect(answered.status).toBe(200);
    expect(answered.body?.result?.data).toEqual({ age: "confirmed" });
    const find = page.getByRole("button", { name: words.find });
    await expect(find).toBeEnabled();

    // The start tries the socket (with its backoff), then says so, and offers the start again.
    await find.click();
    const toast = page.locator("[data-sonner-toast]").filter({ hasText: "連線錯誤" });
    // A second at a time: the page sets each retry's timer only when the last try has failed,
    // which on a busy machine may come after one long move of the clock has passed it by.
    await expect(async () => {
      await page.clock.runFor(1000);
      await expect(toast).toBeVisible({ timeout: 100 });
    }).toPass({ timeout: 30_000 });
    await expect(toast).toContainText("請稍後再試。");
    await expect(find).toBeEnabled();
    expect(sockets).toBeGreaterThan(0);

    // The answer was kept: a reload shows the start card, not the question.
    await page.reload();
    await expect(find).toBeEnabled();
    await expect(page.getByRole("heading", { level: 3, name: words.title })).toHaveCount(0);
    await context.close();
  },
);

/** What the create page's age question says, per language. */
const BOTTLE_AGE = {
  en: {
    message: "Your message",
    throw: "Throw into the Ocean",
    question: "One question first",
    body: "Bottles are written and read by strangers, so Tidings is for people who are 13 or older. How old are you?",
    atLeast13: "I am 13 or older",
    under13: "I am under 13",
    refusedTitle: "Bottles are for people 13 and older",
    refusedBody:
      "Thank you for answering honestly. You cannot throw bottles for now, and what you wrote stays here.",
  },
  zh: {
    message: "你的訊息",
    throw: "丟進大海",
    question: "先問一個問題",
    body: "瓶中信由陌生人書寫和閱讀，所以 Tidings 只開放給 13 歲以上的人。請問你幾歲？",
    atLeast13: "我已滿 13 歲",
    under13: "我未滿 13 歲",
    refusedTitle: "瓶中信只開放給 13 歲以上的人",
    refusedBody: "謝謝你誠實回答。你目前無法丟出瓶子，你寫下的內容會留在這裡。",
  },
} as const;

/** Counts the bottles.throw calls the page makes. */
function countThrows(page: Page): { count: number } {
  const seen = { count: 0 };
  page.on("request", (request) => {
    if (request.url().includes("bottles.throw")) seen.count += 1;
  });
  return seen;
}

test.describe("the bottles' age question", () => {
  test("/en at 1280 px: asked once, before the first throw; 13 or older throws, and is not asked again", async ({
    page,
    consoleErrors,
  }) => {
    const words = BOTTLE_AGE.en;
    const throws = countThrows(page);
    await page.goto("/en/create");
    const message = page.getByLabel(words.message, { exact: true });
    const first = `A first bottle ${unique()}`;
    await message.fill(first);
    await page.getByRole("button", { name: words.throw }).click();

    const question = page.getByRole("dialog", { name: words.question });
    await expect(question).toBeVisible();
    await expect(question).toHaveAccessibleDescription(words.body);
    // The likely answer takes the focus; nothing is sent before it is given.
    await expect(question.getByRole("button", { name: words.atLeast13 })).toBeFocused();
    expect(throws.count).toBe(0);
    const violations = await scan(page, "bottle age question /en at 1280 px");
    expect(violations).toEqual([]);

    const thrown = page.waitForResponse((r) => r.url().includes("bottles.throw"));
    const answered = await answerOf(page, "bottles.confirmAge", () =>
      question.getByRole("button", { name: words.atLeast13 }).click(),
    );
    expect(answered.body?.result?.data).toEqual({ age: "confirmed" });
    await expect(question).toBeHidden();
    expect((await thrown).status()).toBe(200);
    await expect(page.getByTestId("throw-scene")).toBeVisible();

    // A second bottle, on a fresh page: no question, straight into the sea.
    await page.goto("/en/create");
    await message.fill(`A second bottle ${unique()}`);
    const second = page.waitForResponse((r) => r.url().includes("bottles.throw"));
    await page.getByRole("button", { name: words.throw }).click();
    expect((await second).status()).toBe(200);
    await expect(page.getByTestId("throw-scene")).toBeVisible();
    await expect(question).toHaveCount(0);
    expect(throws.count).toBe(2);
    expect(consoleErrors).toEqual([]);
  });

  test("/zh at 390 px: under 13 is answered kindly above the form, the words stay, and it holds", async ({
    page,
    baseURL,
    consoleErrors,
  }) => {
    const words = BOTTLE_AGE.zh;
    await page.setViewportSize({ width: 390, height: 844 });
    const throws = countThrows(page);
    await page.goto("/zh/create");
    const message = page.getByLabel(words.message, { exact: true });
    const text = `給遠方的你 ${unique()}`;
    await message.fill(text);
    await page.getByRole("button", { name: words.throw }).click();
    const question = page.getByRole("dialog", { name: words.question });
    await expect(question).toHaveAccessibleDescription(words.body);
    for (const answer of [words.atLeast13, words.under13]) {
      await expect(question.getByRole("button", { name: answer })).toBeInViewport();
    }
    const violations = await scan(page, "bottle age question /zh at 390 px");

    const answered = await answerOf(page, "bottles.confirmAge", () =>
      question.getByRole("button", { name: words.under13 }).click(),
    );
    expect(answered.body?.result?.data).toEqual({ age: "refused" });
    await expect(question).toBeHidden();
    const refusal = page.getByRole("status").filter({ hasText: words.refusedTitle });
    await expect(refusal).toContainText(words.refusedBody);
    // Above the form, far from the button on a phone: it takes the focus and comes into view.
    await expect(refusal).toBeFocused();
    await expect(refusal).toBeInViewport();
    await expect(message).toHaveValue(text);
    expect(throws.count).toBe(0);
    violations.push(...(await scan(page, "bottle age refusal /zh at 390 px")));
    expect(violations).toEqual([]);

    // Throwing again: no question, no call, the refusal stays.
    await page.getByRole("button", { name: words.throw }).click();
    await expect(question).toHaveCount(0);
    await expect(refusal).toBeVisible();
    expect(throws.count).toBe(0);

    // A reload asks the server: still refused. Answering again changes nothing, and a throw
    // made around the page is refused too.
    await page.reload();
    await expect(refusal).toContainText(words.refusedBody);
    const again = await post(page, baseURL, "bottles.confirmAge", { atLeast13: true });
    expect(again.text).toContain('"age":"refused"');
    const around = await post(page, baseURL, "bottles.throw", {
      message: `Around the page ${unique()}`,
      driftHours: 0,
      isPublic: false,
      expiryDays: 7,
      timeZone: "Asia/Taipei",
      locale: "zh-TW",
    });
    expect(around.status).toBe(403);
    expect(around.text).toContain("AGE_REFUSED");
    await page.reload();
    await expect(refusal).toContainText(words.refusedBody);
    expect(unexpected(consoleErrors)).toEqual([]);
  });
});

/** The public list as a visitor reads it: the ids of the bottles in it. */
async function publicIds(page: Page): Promise<number[]> {
  const response = await page.request.get("/trpc/bottles.publicList");
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { result: { data: { bottles: Array<{ id: number }> } } };
  return body.result.data.bottles.map((bottle) => bottle.id);
}

test("the moderation page: reports in the queue, child safety on top; hide and dismiss take them out, and it lasts", async ({
  page,
  browser,
  request,
  baseURL,
  consoleErrors,
}) => {
  // A reader and an operator, each with an account, a dozen actions each waiting for the
  // server, two page loads after them and two scans: two minutes on a busy machine.
  test.setTimeout(120_000);
  // Three public bottles from one writer; a signed-in reader reports them.
  const texts = {
    hide: `Cheap watches here ${unique()}`,
    dismiss: `A quiet evening by the harbour ${unique()}`,
    urgent: `Meet me after school ${unique()}`,
  };
  // The one reported from the page is thrown last, so it floats first in the public list.
  const dismiss = await throwBottle(request, baseURL, texts.dismiss, { isPublic: true });
  const urgentId = await throwBottle(request, baseURL, texts.urgent, { isPublic: true });
  const hideId = await throwBottle(request, baseURL, texts.hide, { isPublic: true });
  const ids = { hide: hideId, dismiss, urgent: urgentId };
  await signUp(page, baseURL);
  // One report the way a reader makes it, from the bottle's dialog.
  await page.goto("/en/public-bottles");
  const dialog = await openPublicBottle(page, texts.hide);
  await dialog.getByRole("button", { name: "Report this bottle" }).click();
  const reportDialog = page.getByRole("dialog", { name: "Report this bottle" });
  await reportDialog.getByRole("radio", { name: "Spam", exact: true }).click();
  const sent = await answerOf(page, "bottles.report", () =>
    reportDialog.getByRole("button", { name: "Submit report" }).click(),
  );
  expect(sent.status).toBe(200);
  // Two more straight to the server; a child-safety report hides its bottle at once.
  for (const [bottleId, reason] of [
    [ids.dismiss, "other"],
    [ids.urgent, "childSafety"],
  ] as const) {
    const report = await post(page, baseURL, "bottles.report", { bottleId, reason });
    expect(report.status, report.text).toBe(200);
  }
  const listed = await publicIds(page);
  expect(listed).toContain(ids.hide);
  expect(listed).not.toContain(ids.urgent);

  // The operator: an account made an operator with the CLI, on another device and address.
  const operator = await browser.newContext({
    baseURL,
    bypassCSP: true,
    extraHTTPHeaders: { "X-Forwarded-For": otherAddress() },
  });
  const desk = await operator.newPage();
  const username = await signUp(desk, baseURL);
  await makeOperator(username);
  await desk.goto("/en");
  await desk.getByRole("button", { name: `Account: ${username}` }).click();
  await desk.getByRole("menuitem", { name: "Moderation" }).click();
  await expect(desk).toHaveURL(`${baseURL}/en/moderation`);
  await expect(desk.getByRole("heading", { level: 1, name: "Moderation" })).toBeVisible();
  // This site has no translator configured: the page says what visitors get and where the
  // operator reads how to add one.
  const translation = desk.getByRole("region", { name: "Translation: Chinese script only" });
  await expect(translation).toContainText("only Traditional ⇄ Simplified Chinese");
  await expect(translation).toContainText("README.md, section “Translation”.");

  const card = (id: number) => desk.getByRole("article", { name: `Bottle ${id}`, exact: true });
  const hideCard = card(ids.hide);
  await expect(hideCard).toContainText(texts.hide);
  await expect(hideCard).toContainText("Spam × 1");
  await expect(hideCard).toContainText("1 reporter");
  await expect(hideCard).toContainText("Word lists: nothing found");
  await expect(card(ids.dismiss)).toContainText("Other × 1");
  // Child safety: on top of the whole queue, marked, and already out of the ocean.
  const urgent = card(ids.urgent);
  await expect(urgent).toContainText("Child safety × 1");
  await expect(urgent).toContainText("Hidden from the ocean");
  await expect(desk.getByRole("article").first()).toHaveAccessibleName(`Bottle ${ids.urgent}`);
  await expect(urgent.getByRole("button", { name: "Put back" })).toBeVisible();

  // The queue at 1280 px here; the page at 390 px, in Chinese, further down.
  expect(await scan(desk, "moderation page with its queue at 1280 px")).toEqual([]);

  // Hide: the server answers, the card leaves the queue, and the bottle leaves the ocean.
  const hidden = await answerOf(desk, "moderation.hide", () =>
    hideCard.getByRole("button", { name: "Hide", exact: true }).click(),
  );
  expect(hidden.status).toBe(200);
  await expect(hideCard).toHaveCount(0);
  // Said in words, not the queue's internal key; the row of what was done takes the focus
  // the Hide button had.
  await expect(
    desk.locator("[data-sonner-toast]").filter({ hasText: `Bottle ${ids.hide} hidden` }),
  ).toBeVisible();
  await expect(desk.locator("[data-sonner-toast]").filter({ hasText: "bottle:" })).toHaveCount(0);
  // Dismiss: the reports close, the bottle stays where it was.
  for (const id of [ids.dismiss, ids.urgent]) {
    const dismissed = await answerOf(desk, "moderation.dismiss", () =>
      card(id).getByRole("button", { name: "Dismiss" }).click(),
    );
    expect(dismissed.status).toBe(200);
    await expect(card(id)).toHaveCount(0);
  }
  const actions = desk.getByRole("region", { name: "Recent actions" });
  // A row by its subject's cell: "Bottle 4" and "Bottle 41" are told apart by the cell's name,
  // where the row's bare text runs "Bottle 4" into its detail ("1 report closed").
  const rows = (id: number) =>
    actions
      .getByRole("row")
      .filter({ has: desk.getByRole("cell", { name: new RegExp(`^Bottle ${id}(?!\\d)`) }) });
  await expect(rows(ids.urgent).first()).toBeFocused();
  await expect(actions).not.toContainText("bottle:");
  const settled = async () => {
    for (const id of Object.values(ids)) await expect(card(id)).toHaveCount(0);
    await expect(rows(ids.hide)).toContainText("Hid");
    await expect(rows(ids.hide)).toContainText(username);
    await expect(rows(ids.hide).getByRole("button", { name: "Put back" })).toBeVisible();
    await expect(rows(ids.dismiss)).toContainText("Dismissed");
    await expect(rows(ids.dismiss)).toContainText("1 report closed");
    await expect(rows(ids.urgent)).toContainText("Dismissed");
    // The command that made this account an operator, named by the account.
    await expect(
      actions
        .getByRole("row")
        .filter({ hasText: `Account ${username}` })
        .first(),
    ).toContainText("Made operator");
  };
  await settled();
  await desk.reload();
  await expect(desk.getByRole("heading", { level: 1, name: "Moderation" })).toBeVisible();
  await settled();
  const after = await publicIds(page);
  expect(after).not.toContain(ids.hide);
  expect(after).toContain(ids.dismiss);
  expect(after).not.toContain(ids.urgent);

  // Undo from the recent actions: the hidden bottle is put back in the ocean; its reports stay
  // closed, and nothing is left to undo on it.
  const putBack = await answerOf(desk, "moderation.unhide", () =>
    rows(ids.hide).getByRole("button", { name: "Put back" }).click(),
  );
  expect(putBack.status).toBe(200);
  await expect(rows(ids.hide)).toHaveCount(2);
  await expect(rows(ids.hide).first()).toContainText("Put back");
  await expect(rows(ids.hide).getByRole("button")).toHaveCount(0);
  await expect(card(ids.hide)).toHaveCount(0);
  expect(await publicIds(page)).toContain(ids.hide);

  // Loaded again, on a phone and in Chinese: the undo stands, what came of an action is said
  // in Chinese, and each recent action stands as a card within the screen (nothing of it off to
  // the side), still read as a table's row of named columns.
  await desk.setViewportSize({ width: 390, height: 844 });
  await desk.goto("/zh/moderation");
  const zhActions = desk.getByRole("region", { name: "最近的處理" });
  const zhRows = (id: number) =>
    zhActions.getByRole("row").filter({ hasText: new RegExp(`瓶子 ${id}(?!\\d)`) });
  await expect(zhRows(ids.hide)).toHaveCount(2);
  await expect(desk.getByRole("region", { name: "翻譯：僅限中文繁簡轉換" })).toContainText(
    "README.md 的「Translation」一節。",
  );
  await expect(zhRows(ids.hide).first()).toContainText("放回大海");
  await expect(zhRows(ids.hide).getByRole("button")).toHaveCount(0);
  await expect(zhRows(ids.dismiss)).toContainText("駁回");
  await expect(zhRows(ids.dismiss)).toContainText("關閉了 1 則檢舉");
  await expect(zhRows(ids.dismiss)).not.toContainText("reports");
  await expect(
    zhActions
      .getByRole("row")
      .filter({ hasText: `帳號 ${username}` })
      .first(),
  ).toContainText("設為管理員");
  for (const column of ["時間", "處理者", "動作", "對象"]) {
    await expect(zhActions.getByRole("columnheader", { name: column })).toHaveCount(1);
  }
  await expect(zhRows(ids.dismiss).getByRole("cell", { name: /^瓶子 \d+/ })).toHaveCount(1);
  expect(await scan(desk, "moderation page in Chinese at 390 px")).toEqual([]);
  const sideways = await desk.evaluate(() => {
    const table = document.querySelector(".mod-table");
    const cells = [...document.querySelectorAll(".mod-table td")].map(
      (cell) => cell.getBoundingClientRect().right,
    );
    return {
      page: document.documentElement.scrollWidth,
      screen: window.innerWidth,
      table: table?.scrollWidth ?? Number.POSITIVE_INFINITY,
      box: table?.parentElement?.clientWidth ?? 0,
      rightmost: Math.max(...cells),
    };
  });
  expect(sideways.page).toBeLessThanOrEqual(sideways.screen);
  expect(sideways.table).toBeLessThanOrEqual(sideways.box);
  expect(sideways.rightmost).toBeLessThanOrEqual(sideways.screen);
  await operator.close();

  // Not an operator: the reader gets the forbidden page, and no menu item leads there.
  await page.goto("/en/moderation");
  await expect(
    page.getByRole("heading", { level: 1, name: "This page is not for you" }),
  ).toBeVisible();
  await expect(page.getByText(texts.hide)).toHaveCount(0);
  expect(unexpected(consoleErrors)).toEqual([]);
});

test("off switches: the operator rests chat and bottles from the moderation page; resting pages offer only what is on", async ({
  browser,
}) => {
  // Three pages and a chat on a site of its own, with the operator's page beside them.
  test.setTimeout(120_000);
  // A site of its own: switching parts off on the shared one would rest them for every test.
  const site = await startE2eServer({ CHAT_ENABLED: "false" });
  try {
    const contextOf = () =>
      browser.newContext({
        baseURL: site.url,
        bypassCSP: true,
        extraHTTPHeaders: { "X-Forwarded-For": otherAddress() },
      });
    const visit = await contextOf();
    const page = await visit.newPage();
    // What must never show for a moment: the chat's real page while it rests, a bottle rising
    // from an empty ocean, a resting page where the part is on.
    await watchForFlashes(page, [
      { selector: "button", text: "Find Someone to Chat With" },
      { selector: "h3", text: "Before your first chat" },
      { selector: "p", text: "A bottle appears!" },
      { selector: "h1", text: "The ocean is resting" },
    ]);

    // A new site's ocean is empty: the search ends in "no bottles", no bottle rises first.
    await page.clock.install();
    await page.goto("/en/discover");
    await expect(page.getByText("Searching for bottles…")).toBeVisible();
    await page.clock.runFor(2000);
    const empty = page.getByText("No bottles found in the ocean. Be the first to write one!");
    await expect(empty).toBeVisible();
    await page.clock.runFor(5000);
    await expect(empty).toBeVisible();
    expect(await flashed(page)).toEqual([]);

    const card = page.getByRole("region", { name: "Random chat is resting" });
    const writeInstead = card.getByRole("link", { name: "Write a Message" });
    // Chat off from the settings: a calm page, not an error, with a way to the bottles; the
    // real page is not drawn first.
    await page.goto("/en/random-chat");
    await expect(
      page.getByRole("heading", { level: 1, name: "Random chat is resting" }),
    ).toBeVisible();
    await expect(card).toContainText("Nothing is wrong on your side");
    await expect(card.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/en");
    await expect(writeInstead).toHaveAttribute("href", "/en/create");
    expect(await flashed(page)).toEqual([]);
    expect(await scan(page, "chat resting page")).toEqual([]);

    const desk = await (await contextOf()).newPage();
    const username = await signUp(desk, site.url);
    await makeOperator(username, { DATA_DIR: site.dataDir });
    await desk.goto("/en/moderation");
    const chatSwitch = desk.getByRole("switch", { name: "Random chat" });
    const bottlesSwitch = desk.getByRole("switch", { name: "Bottles", exact: true });
    const publicSwitch = desk.getByRole("switch", { name: "Public bottles" });
    await expect(chatSwitch).toHaveAttribute("aria-checked", "false");
    await expect(bottlesSwitch).toHaveAttribute("aria-checked", "true");
    await expect(desk.getByText("No open reports. The sea is calm.")).toBeVisible();

    // Bottles off: the server answers, the switch says so, and after a reload still does.
    const off = await answerOf(desk, "moderation.setFeature", () => bottlesSwitch.click());
    expect(off.status).toBe(200);
    await expect(bottlesSwitch).toHaveAttribute("aria-checked", "false");
    await expect(bottlesSwitch).toContainText("Resting");
    await desk.reload();
    await expect(bottlesSwitch).toHaveAttribute("aria-checked", "false");
    const row = desk
      .getByRole("region", { name: "Recent actions" })
      .getByRole("row")
      .filter({ hasText: "Switched off" })
      .filter({ hasText: "Bottles" });
    await expect(row).toHaveCount(1);

    // The chat's resting page no longer sends anyone to the resting bottles, and the bottles'
    // no longer to the resting chat: only home is left.
    await page.reload();
    await expect(card).toBeVisible();
    await expect(writeInstead).toHaveCount(0);
    await page.goto("/en/create");
    const ocean = page.getByRole("region", { name: "The ocean is resting" });
    await expect(ocean.getByRole("link", { name: "Return to Home" })).toBeVisible();
    await expect(ocean.getByRole("link", { name: "Random Chat" })).toHaveCount(0);

    // Chat on again: the bottles' resting page offers it.
    const on = await answerOf(desk, "moderation.setFeature", () => chatSwitch.click());
    expect(on.status).toBe(200);
    await expect(chatSwitch).toHaveAttribute("aria-checked", "true");
    await page.reload();
    await expect(ocean.getByRole("link", { name: "Random Chat" })).toHaveAttribute(
      "href",
      "/en/random-chat",
    );
    await answerOf(desk, "moderation.setFeature", () => bottlesSwitch.click());
    await expect(bottlesSwitch).toHaveAttribute("aria-checked", "true");

    // Chat switched off while visitors search and chat, in both languages: each is told at
    // once (within the 5 s every instance reads the switches), and nobody waits on.
    const adult = async (language: "en" | "zh") => {
      const one = await (await contextOf()).newPage();
      const answer = await one.request.post("/trpc/chat.confirmAge", {
        data: { adult: true },
        headers: { origin: site.url },
      });
      expect(answer.status()).toBe(200);
      await watchForFlashes(one, [
        { selector: "h1", text: "Random chat is resting" },
        { selector: "h1", text: "隨機聊天正在休息" },
      ]);
      await one.goto(`/${language}/random-chat`);
      return one;
    };
    const [a, b, searcher] = [await adult("en"), await adult("zh"), await adult("en")];
    await a.getByRole("button", { name: "Find Someone to Chat With" }).click();
    await expect(a.getByText("Looking for someone to chat with…")).toBeVisible();
    await b.getByRole("button", { name: "找人聊天" }).click();
    await expect(b.getByRole("region", { name: /^你的聊天對象來自/ })).toBeVisible();
    await searcher.getByRole("button", { name: "Find Someone to Chat With" }).click();
    await expect(searcher.getByText("Looking for someone to chat with…")).toBeVisible();
    // The chat page was drawn as itself: no resting page flashed first.
    for (const one of [a, b, searcher]) expect(await flashed(one)).toEqual([]);

    const restingOff = await answerOf(desk, "moderation.setFeature", () => chatSwitch.click());
    expect(restingOff.status).toBe(200);
    // Switches are polled every 5 s; the bound leaves room for a busy machine.
    const told = { timeout: 12_000 };
    for (const one of [a, searcher]) {
      await expect(
        one.getByRole("heading", { level: 1, name: "Random chat is resting" }),
      ).toBeVisible(told);
    }
    await expect(b.getByRole("heading", { level: 1, name: "隨機聊天正在休息" })).toBeVisible(told);
    await expect(searcher.getByText("Looking for someone to chat with…")).toHaveCount(0);
    const health = await (await fetch(`${site.url}/healthz`)).json();
    expect(health).toMatchObject({ waiting: 0, chats: 0 });
    await searcher.reload();
    await expect(
      searcher.getByRole("heading", { level: 1, name: "Random chat is resting" }),
    ).toBeVisible();

    // The public collection off: a bottle on the home page says it rests, not that it failed.
    await answerOf(desk, "moderation.setFeature", () => publicSwitch.click());
    await expect(publicSwitch).toHaveAttribute("aria-checked", "false");
    await page.goto("/en");
    await page.clock.runFor(1500);
    await page.locator(".home-bottle").first().click();
    const bottle = page.getByRole("dialog", { name: "The public bottles are resting" });
    await expect(bottle).toContainText("Nothing is wrong on your side");
    await expect(bottle.getByRole("alert")).toHaveCount(0);
  } finally {
    await site.stop();
  }
});
