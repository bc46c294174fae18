import { chromium, type Page } from "@playwright/test";
import { scan } from "./axe";
import { expect, ONE_INSTANCE, RENDER, testOnOwnSite as test } from "./fixtures";
import {
  deviceTranslations,
  makeOperator,
  otherAddress,
  signUp,
  standInDeviceTranslator,
  stranger,
} from "./helpers";

// Every chat test enters its site's one pool: each worker runs these on a site of its own (one
// test at a time), so tests running at once never pair their strangers across tests.

const FIND = "Find Someone to Chat With";
const PARTNER_LEFT = "Your chat partner has left the conversation.";

/** The words the chat page shows, per language. */
const WORDS = {
  en: {
    find: FIND,
    looking: "Looking for someone to chat with…",
    chatting: "Chatting with a stranger from",
    message: "Message",
  },
  zh: {
    find: "找人聊天",
    looking: "正在尋找聊天對象…",
    chatting: "你的聊天對象來自",
    message: "訊息",
  },
} as const;

/** The open chat, named by its banner: "Chatting with a stranger from …". */
const chatPanel = (page: Page, language: "en" | "zh" = "en") =>
  page.getByRole("region", { name: new RegExp(`^${WORDS[language].chatting}`) });

/** The address of the site this worker's tests run on (the Origin of calls made beside a page). */
let siteUrl = "";
test.beforeEach(({ baseURL }) => {
  siteUrl = baseURL ?? "";
});

/**
 * Opens the chat page as a stranger who has passed the safety gate (18 or older). The gate's
 * own screens are tested in safety.e2e.ts; here the answer goes straight to the server, before
 * the page asks where the visitor stands (a page already open would still show the gate).
 */
async function openAsAdult(page: Page, language: "en" | "zh" = "en"): Promise<void> {
  const response = await page.request.post("/trpc/chat.confirmAge", {
    data: { adult: true },
    headers: { origin: siteUrl },
  });
  expect(response.status(), await response.text()).toBe(200);
  await page.goto(`/${language}/random-chat`);
}

/** Presses Find (the safety gate already passed). */
async function find(page: Page, language: "en" | "zh" = "en"): Promise<void> {
  await page.getByRole("button", { name: WORDS[language].find }).click();
}

/** Both strangers open the chat and press Find, the first waiting before the second comes. */
async function pair(a: Page, b: Page, language: "en" | "zh" = "en"): Promise<void> {
  const words = WORDS[language];
  await openAsAdult(a, language);
  await openAsAdult(b, language);
  await find(a, language);
  await expect(a.getByText(words.looking)).toBeVisible();
  await find(b, language);
  for (const page of [a, b]) {
    await expect(chatPanel(page, language)).toBeVisible();
  }
}

const box = (page: Page, language: "en" | "zh" = "en") =>
  page.getByRole("textbox", { name: WORDS[language].message, exact: true });
const unique = (label: string) => `${label} ${Math.floor(Math.random() * 1e8)}`;

// First in the file: its 20 s of waiting on the server then run beside the other workers' tests
// instead of after them, at the end of the suite.
test.describe("random chat: the partner just left", () => {
  test("two strangers who just chatted meet again when they have waited 20 s with nobody else", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    await page.getByRole("button", { name: "End chat" }).click();
    await chatPanel(other).getByRole("button", { name: "Close", exact: true }).click();
    await find(page);
    await find(other);
    await expect(page.getByText("Looking for someone to chat with…")).toBeVisible();
    await expect(other.getByText("Looking for someone to chat with…")).toBeVisible();
    // Both are told why the one they just left does not come straight back, and for how long.
    for (const p of [page, other]) {
      await expect(p.getByText(/^Someone new comes first: .* wait 20 seconds/)).toBeVisible();
    }
    await page.waitForTimeout(5000);
    await expect(chatPanel(page)).toHaveCount(0);
    for (const p of [page, other]) {
      await expect(chatPanel(p)).toBeVisible({ timeout: 40_000 });
    }
    await page.getByRole("button", { name: "End chat" }).click();
    await other.context().close();
  });
});

test.describe("random chat", () => {
  // Two or three strangers, each a browser of their own, on the two cores the server shares.
  test.describe.configure({ timeout: 120_000 });
  test("two strangers are matched and chat both ways", async ({
    page,
    browser,
    baseURL,
    consoleErrors,
  }) => {
    const other = await stranger(browser, baseURL);
    await openAsAdult(page);
    await expect(page.getByRole("heading", { level: 1, name: "Random Chat" })).toBeVisible();
    await expect(page.getByText("You appear as")).toBeVisible();
    await expect(page.getByText(/shown to your chat partner when you are matched/)).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/en");
    await expect(
      page.getByText(/^(Nobody else is here right now|1 other person here|\d+ other people here)$/),
    ).toBeVisible();

    await pair(page, other);
    await expect(page.getByText("Match successful")).toBeVisible();
    await expect(other.getByText("Match successful")).toBeVisible();
    await expect(page.getByText("No messages yet")).toBeVisible();
    // The overlay leaves after 3 s.
    await expect(page.getByText("Match successful")).toBeHidden();

    const hello = unique("Hello from A");
    await box(page).fill(`  ${hello}  `);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(box(page)).toHaveValue("");
    // Own line on the right, once (the call's answer and the stream's copy share an id).
    await expect(page.locator(".chat-msg--me", { hasText: hello })).toHaveCount(1);
    const received = other.locator(".chat-msg--partner", { hasText: hello });
    await expect(received).toHaveCount(1);
    await expect(received.getByRole("button", { name: "Report this message" })).toBeVisible();
    // Nothing here translates English (no translator configured, none in this browser): no
    // translate button that would only say so.
    await expect(received.getByRole("button", { name: "Translate this message" })).toHaveCount(0);
    await expect(received.locator("time")).toBeVisible();

    const reply = unique("Reply from B");
    await box(other).fill(reply);
    await box(other).press("Enter");
    await expect(page.locator(".chat-msg--partner", { hasText: reply })).toHaveCount(1);
    await expect(other.locator(".chat-msg--me", { hasText: reply })).toHaveCount(1);
    await expect(page.getByText("No messages yet")).toBeHidden();

    await page.getByRole("button", { name: "End chat" }).click();
    await expect(page.getByRole("button", { name: FIND })).toBeVisible();
    await other.context().close();
    expect(consoleErrors).toEqual([]);
  });

  test("the partner sees 'Stranger is typing' until the message arrives", async ({
    page,
    browser,
    baseURL,
  }) => {
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    await box(page).pressSequentially("I am typ", { delay: 30 });
    await expect(other.getByText("Stranger is typing…")).toBeVisible();
    await box(page).press("Enter");
    await expect(other.locator(".chat-msg--partner", { hasText: "I am typ" })).toBeVisible();
    await expect(other.getByText("Stranger is typing…")).toBeHidden();

    // Typing, then stopping: the indicator goes after about 3 s of quiet.
    await box(page).pressSequentially("wait", { delay: 30 });
    await expect(other.getByText("Stranger is typing…")).toBeVisible();
    await expect(other.getByText("Stranger is typing…")).toBeHidden();
    await page.getByRole("button", { name: "End chat" }).click();
    await other.context().close();
  });

  test(
    "Enter sends, Shift+Enter adds a line, blank text is not sent",
    ONE_INSTANCE,
    async ({ page, browser, baseURL }) => {
      const other = await stranger(browser, baseURL);
      await pair(page, other);
      const input = box(page);
      await expect(input).toHaveAttribute("enterkeyhint", "send");
      await expect(input).toHaveAttribute("rows", "2");

      await input.focus();
      await page.keyboard.type("line one");
      await page.keyboard.press("Shift+Enter");
      await page.keyboard.type("line two");
      await expect(input).toHaveValue("line one\nline two");
      await expect(page.locator(".chat-msg--me")).toHaveCount(0);

      await page.keyboard.press("Enter");
      await expect(input).toHaveValue("");
      const sent = page.locator(".chat-msg--me .chat-msg__bubble");
      await expect(sent).toHaveCount(1);
      expect(await sent.textContent()).toBe("line one\nline two");
      await expect(other.locator(".chat-msg--partner .chat-msg__bubble")).toHaveText(
        "line one\nline two",
      );

      // Whitespace only: nothing goes out, and the send button stays off.
      await page.keyboard.type("   ");
      await expect(page.getByRole("button", { name: "Send", exact: true })).toBeDisabled();
      await page.keyboard.press("Enter");
      await expect(page.locator(".chat-msg--me")).toHaveCount(1);
      await page.getByRole("button", { name: "End chat" }).click();
      await other.context().close();
    },
  );

  test("the partner who left leaves their chat on screen: its messages are still reported, its partner blocked", async ({
    page,
    browser,
    baseURL,
    consoleErrors,
  }) => {
    // The page's timers run ahead on request: the ended chat used to close itself after 3 s.
    await page.clock.install();
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    const rude = unique("You are worthless");
    await box(other).fill(rude);
    await box(other).press("Enter");
    const line = page.locator(".chat-msg--partner", { hasText: rude });
    await expect(line).toHaveCount(1);
    await other.getByRole("button", { name: "End chat" }).click();
    await expect(other.getByRole("button", { name: FIND })).toBeVisible();

    const left = page.locator(".chat-msg--system", { hasText: PARTNER_LEFT });
    await expect(left).toBeVisible();
    await expect(page.getByText("Chat ended", { exact: true })).toBeVisible();
    await expect(box(page)).toBeDisabled();
    // Still there long after: until the visitor chooses Next, Close or to leave.
    await page.clock.runFor(10_000);
    await expect(left).toBeVisible();
    await expect(line).toBeVisible();
    await expect(page.getByRole("button", { name: FIND })).toHaveCount(0);

    // The message is reported from the ended chat; the server says what came of it.
    const report = async (reason: string) => {
      await line.getByRole("button", { name: "Report this message" }).click();
      const dialog = page.getByRole("dialog", { name: "Report this message" });
      await dialog.getByRole("radio", { name: reason }).click();
      await dialog.getByRole("button", { name: "Submit report" }).click();
      await expect(dialog).toBeHidden();
    };
    const toasts = page.locator("[data-sonner-toast]");
    const recorded = toasts.filter({ hasText: /^Reported/ });
    const again = toasts.filter({ hasText: /^Already reported/ });
    /** The one toast the report's answer brought, then closed, so the next stands alone. */
    const said = async (toast: typeof recorded, words: string) => {
      await expect(toast).toHaveCount(1);
      await expect(toast).toContainText(words);
      await toast.getByRole("button", { name: "Close notification" }).click();
      await expect(toasts).toHaveCount(0);
    };
    await report("Harassment");
    await said(recorded, "You won't be matched with them again.");
    // The same report again is not a second one, and the page says so.
    await report("Harassment");
    await said(again, "You reported this message for that reason before");
    // Another reason is a report of its own.
    await report("Scam");
    await said(recorded, "You won't be matched with them again.");

    // Block works on the ended chat too (the partner is known by their message).
    const panel = chatPanel(page);
    await expect(panel.getByRole("button", { name: "Report", exact: true })).toBeEnabled();
    await panel.getByRole("button", { name: "Block", exact: true }).click();
    await expect(toasts.filter({ hasText: "Blocked" })).toContainText(
      "You will not be matched with this stranger again.",
    );
    await expect(panel).toHaveCount(0);
    await expect(page.getByRole("button", { name: FIND })).toBeEnabled();
    await other.context().close();
    expect(consoleErrors).toEqual([]);
  });

  test("closing the tab tells the partner at once", async ({ page, browser, baseURL }) => {
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    // The socket's resume grace is 15 s; the page's beacon, or the browser closing the socket
    // as "going away" (it does so even when the page is ended before its beacon runs), tells
    // the partner sooner.
    await other.close({ runBeforeUnload: true });
    // Well before the 15 s grace, which is all a dropped network gets.
    await expect(page.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible({
      timeout: 10_000,
    });
    // The ended chat stays until the visitor closes it.
    await chatPanel(page).getByRole("button", { name: "Close", exact: true }).click();
    await expect(page.getByRole("button", { name: FIND })).toBeFocused();
    await other.context().close();
  });

  test("in a tab left in the background, the title says a partner came, then how many messages", async ({
    page,
    browser,
    baseURL,
  }) => {
    // Headless Chromium never hides a page (another tab in front, a minimized window: still
    // "visible"), so the page is told, as a browser tells it, that its tab went out of sight.
    await page.addInitScript(() => {
      let state: DocumentVisibilityState = "visible";
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
      Object.defineProperty(document, "hidden", {
        configurable: true,
        get: () => state === "hidden",
      });
      Object.assign(window, {
        setTabVisibility: (next: DocumentVisibilityState) => {
          state = next;
          document.dispatchEvent(new Event("visibilitychange"));
        },
      });
    });
    const tab = (state: DocumentVisibilityState) =>
      page.evaluate((next) => {
        (window as unknown as { setTabVisibility: (s: string) => void }).setTabVisibility(next);
      }, state);
    const other = await stranger(browser, baseURL);
    await openAsAdult(page, "zh");
    await openAsAdult(other, "zh");
    await find(page, "zh");
    await expect(page.getByText(WORDS.zh.looking)).toBeVisible();
    await tab("hidden");
    await expect(page).toHaveTitle("隨機聊天 · Tidings");
    await find(other, "zh");
    await expect(chatPanel(other, "zh")).toBeVisible();
    await expect(page).toHaveTitle("找到聊天對象了 · Tidings");
    for (const text of [unique("你好"), unique("在嗎")]) {
      await box(other, "zh").fill(text);
      await box(other, "zh").press("Enter");
      await expect(page.locator(".chat-msg--partner", { hasText: text })).toHaveCount(1);
    }
    await expect(page).toHaveTitle("(2) 隨機聊天 · Tidings");
    // Looked at again: the page's own title.
    await tab("visible");
    await expect(page).toHaveTitle("隨機聊天 · Tidings");
    await other.context().close();
  });

  test("leaving the page for another one ends the chat", async ({ page, browser, baseURL }) => {
    const other = await stranger(browser, baseURL);
    await pair(other, page);
    await other.getByRole("link", { name: "Back to Home" }).click();
    await expect(other).toHaveURL(/\/en$/);
    // Well before the 15 s grace, which is all a dropped network gets.
    await expect(page.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible({
      timeout: 10_000,
    });
    await other.context().close();
  });

  test("a second tab of the visitor's says the chat is open elsewhere, leaves it running when closed, and takes it over with its messages", async ({
    page,
    browser,
    baseURL,
  }) => {
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    const said = async (from: Page, to: Page, text: string) => {
      await expect(box(from)).toBeEnabled();
      await box(from).fill(text);
      await box(from).press("Enter");
      await expect(to.locator(".chat-msg--partner", { hasText: text })).toHaveCount(1);
    };
    const asked = unique("Asked from the first tab");
    const answer = unique("Answered");
    await said(page, other, asked);
    await said(other, page, answer);

    // A second tab of the same visitor (the same cookie), in Chinese: it shows where the chat
    // is, not the chat, and closing it ends nothing.
    const second = await page.context().newPage();
    await second.goto("/zh/random-chat");
    await expect(second.getByText("你的聊天正在另一個分頁進行")).toBeVisible();
    await expect(second.getByRole("button", { name: "在這裡繼續" })).toBeVisible();
    await expect(chatPanel(second, "zh")).toHaveCount(0);
    await expect(second.getByRole("button", { name: WORDS.zh.find })).toHaveCount(0);
    await second.close({ runBeforeUnload: true });
    // Its leaving would have ended the chat before these two messages went and came back.
    const still = unique("Still here");
    await said(page, other, still);
    await said(other, page, unique("Still here too"));
    await expect(other.locator(".chat-msg--system")).toHaveCount(0);
    await expect(box(page)).toBeEnabled();

    // A third tab takes the chat over: the whole conversation comes along, the visitor's own
    // messages too (only the tab that sent them was told of them).
    const third = await page.context().newPage();
    await third.goto("/en/random-chat");
    await third.getByRole("button", { name: "Continue here" }).click();
    await expect(chatPanel(third)).toBeVisible();
    await expect(third.locator(".chat-msg--me", { hasText: asked })).toHaveCount(1);
    await expect(third.locator(".chat-msg--partner", { hasText: answer })).toHaveCount(1);
    await expect(third.locator(".chat-msg--me", { hasText: still })).toHaveCount(1);
    // The first tab now says where the chat went.
    await expect(page.getByText("Your chat is open in another tab")).toBeVisible();
    await expect(chatPanel(page)).toHaveCount(0);
    await said(third, other, unique("From the third tab"));
    // Closing the first tab leaves the chat to the third; ending it there tells the partner.
    await page.close({ runBeforeUnload: true });
    await said(other, third, unique("Last word"));
    await expect(other.locator(".chat-msg--system")).toHaveCount(0);
    await third.getByRole("button", { name: "End chat" }).click();
    await expect(other.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible();
    await other.context().close();
  });

  test("a reported unsafe message restricts its sender; an expired stored ban is cleared", async ({
    page,
    browser,
    baseURL,
  }) => {
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    await box(page).fill("you are a fucking idiot");
    await box(page).press("Enter");
    const bad = other.locator(".chat-msg--partner", { hasText: "idiot" });
    await bad.getByRole("button", { name: "Report this message" }).click();
    const dialog = other.getByRole("dialog", { name: "Report this message" });
    for (const reason of [
      "Harassment",
      "Inappropriate content",
      "Spam",
      "Scam",
      "Child safety",
      "Other",
    ]) {
      await expect(dialog.getByRole("radio", { name: reason })).toBeVisible();
    }
    await dialog.getByRole("button", { name: "Submit report" }).click();
    await expect(dialog.getByText("Please choose a reason.")).toBeVisible();
    await dialog.getByRole("radio", { name: "Harassment" }).click();
    await dialog.getByRole("button", { name: "Submit report" }).click();
    await expect(
      other.locator("[data-sonner-toast]").filter({ hasText: /^Reported/ }),
    ).toContainText("You won't be matched with them again.");

    // The sender is banned: told so, back at the start, the button off, the expiry stored.
    await expect(page.getByText("Your chat is paused for now.", { exact: false })).toBeVisible();
    await expect(page.getByText("Chat restricted").first()).toBeVisible();
    // A first ban lasts an hour (bans escalate from there).
    await expect(page.getByText(/You can chat again in about 1 hour\./).first()).toBeVisible();
    await expect(page.getByRole("button", { name: FIND })).toBeDisabled();
    const stored = Number(await page.evaluate(() => localStorage.getItem("chat-ban-until")));
    expect(stored).toBeGreaterThan(Date.now() + 55 * 60_000);
    // The reporter's chat ended because of their report: it says what matters now, not that
    // the partner left.
    const reported = other.locator(".chat-msg--system", {
      hasText: "Reported — you won't be matched with them again.",
    });
    await expect(reported).toBeVisible();
    await expect(other.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toHaveCount(0);

    // After a reload the server still says so.
    await page.reload();
    await expect(page.getByRole("button", { name: FIND })).toBeDisabled();

    // A visitor whose stored ban has run out gets it cleared and may chat.
    const fresh = await stranger(browser, baseURL);
    await fresh.addInitScript(() => {
      localStorage.setItem("chat-ban-until", String(Date.now() - 60_000));
    });
    await openAsAdult(fresh);
    await expect(fresh.getByRole("button", { name: FIND })).toBeEnabled();
    await expect(fresh.getByText("Chat restricted")).toHaveCount(0);
    expect(await fresh.evaluate(() => localStorage.getItem("chat-ban-until"))).toBeNull();
    await other.context().close();
    await fresh.context().close();
  });

  test("Next ends the chat, tells the partner and pairs with the next stranger", async ({
    page,
    browser,
    baseURL,
    consoleErrors,
  }) => {
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    const panel = page.getByRole("region", { name: /^Chatting with a stranger from/ });
    // The open chat keeps the way home (spec: back) beside Next and End chat.
    await expect(panel.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/en");
    await expect(panel.getByRole("button", { name: "End chat" })).toBeVisible();

    await panel.getByRole("button", { name: "Next", exact: true }).click();
    await expect(page.getByText("Looking for someone to chat with…")).toBeVisible();
    await expect(other.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible();
    await chatPanel(other).getByRole("button", { name: "Close", exact: true }).click();
    await expect(other.getByRole("button", { name: FIND })).toBeVisible();

    // Still looking, with no click: the next stranger to come is the new partner.
    const third = await stranger(browser, baseURL);
    await openAsAdult(third);
    await find(third);
    for (const side of [page, third]) {
      await expect(chatPanel(side)).toBeVisible();
    }
    const hello = unique("After Next");
    await box(third).fill(hello);
    await box(third).press("Enter");
    await expect(page.locator(".chat-msg--partner", { hasText: hello })).toHaveCount(1);
    await expect(chatPanel(other)).toHaveCount(0);

    // After the partner leaves, Next looks again at once.
    await third.getByRole("button", { name: "End chat" }).click();
    await expect(page.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible();
    await page.getByRole("button", { name: "Next", exact: true }).click();
    await expect(page.getByText("Looking for someone to chat with…")).toBeVisible();
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("button", { name: FIND })).toBeVisible();
    await other.context().close();
    await third.context().close();
    expect(consoleErrors).toEqual([]);
  });

  test("Block ends the chat at once for both; the two are not paired again, while a third stranger is", async ({
    page,
    browser,
    baseURL,
    consoleErrors,
  }) => {
    // The one blocked chats from an address of their own, to come back from it with a new cookie.
    const address = otherAddress();
    const blockedContext = await browser.newContext({
      baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": address },
    });
    const other = await blockedContext.newPage();
    await pair(page, other);
    const hello = unique("Hello there");
    await box(other).fill(hello);
    await box(other).press("Enter");
    await expect(page.locator(".chat-msg--partner", { hasText: hello })).toHaveCount(1);

    await chatPanel(page).getByRole("button", { name: "Block", exact: true }).click();
    // At once on both sides: the blocker is back at the start (no 3 s wait), told so once the
    // server has answered; the partner is told the chat is over.
    await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Blocked" })).toContainText(
      "You will not be matched with this stranger again.",
    );
    await expect(chatPanel(page)).toHaveCount(0);
    await expect(page.getByRole("button", { name: FIND })).toBeEnabled();
    await expect(other.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible({
      timeout: 10_000,
    });
    await expect(box(other)).toBeDisabled();

    // Both look again: they are kept apart.
    await find(page);
    await expect(page.getByText(WORDS.en.looking)).toBeVisible();
    await chatPanel(other).getByRole("button", { name: "Next", exact: true }).click();
    await expect(other.getByText(WORDS.en.looking)).toBeVisible();
    await page.waitForTimeout(1000);
    for (const side of [page, other]) {
      await expect(chatPanel(side)).toHaveCount(0);
      await expect(side.getByText(WORDS.en.looking)).toBeVisible();
    }
    await other.getByRole("button", { name: "Cancel" }).click();
    await expect(other.getByRole("button", { name: FIND })).toBeVisible();

    // Two who just chatted are kept apart for 20 s anyway; the block is what keeps the blocked
    // one away when they come back in a new private window (new cookie, same address).
    const again = await blockedContext.browser()?.newContext({
      baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": address },
    });
    if (!again) throw new Error("no browser");
    const returning = await again.newPage();
    await openAsAdult(returning);
    await find(returning);
    await expect(returning.getByText(WORDS.en.looking)).toBeVisible();
    await page.waitForTimeout(1000);
    await expect(chatPanel(page)).toHaveCount(0);
    await expect(chatPanel(returning)).toHaveCount(0);

    // A third stranger is paired with the blocker straight away; the blocked one still waits.
    const third = await stranger(browser, baseURL);
    await openAsAdult(third);
    await find(third);
    for (const side of [page, third]) {
      await expect(chatPanel(side)).toBeVisible();
    }
    await expect(returning.getByText(WORDS.en.looking)).toBeVisible();
    await expect(chatPanel(returning)).toHaveCount(0);

    await page.getByRole("button", { name: "End chat" }).click();
    await returning.getByRole("button", { name: "Cancel" }).click();
    await expect(returning.getByRole("button", { name: FIND })).toBeVisible();
    await Promise.all([blockedContext.close(), again.close(), third.context().close()]);
    expect(consoleErrors).toEqual([]);
  });

  test("End & report ends the chat in one tap and reports the partner's last message; an operator bans its sender from the queue", async ({
    page,
    browser,
    baseURL,
    ownSite,
    consoleErrors,
  }) => {
    const other = await stranger(browser, baseURL);
    await pair(page, other);
    const endReport = chatPanel(page).getByRole("button", { name: "End & report" });
    // Nothing from the partner yet: nothing to report, and the button says why.
    await expect(endReport).toBeDisabled();
    await expect(endReport).toHaveAccessibleDescription(
      "End & report needs a message from your partner to report.",
    );
    const first = unique("Hi, nice to meet you");
    const last = unique("Send me a gift card and I will double it");
    for (const text of [first, last]) {
      await box(other).fill(text);
      await box(other).press("Enter");
      await expect(page.locator(".chat-msg--partner", { hasText: text })).toHaveCount(1);
    }
    await box(page).fill(unique("No thanks"));
    await box(page).press("Enter");
    await expect(page.locator(".chat-msg--me")).toHaveCount(1);

    // One tap: the chat is over for both, and the report of the partner's last line is open,
    // quoting it (the chat is no longer on screen).
    await endReport.click();
    const dialog = page.getByRole("dialog", { name: "Report this message" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("The chat has ended.");
    await expect(dialog).toContainText(last);
    await expect(dialog).not.toContainText(first);
    await expect(chatPanel(page)).toHaveCount(0);
    await expect(other.locator(".chat-msg--system", { hasText: PARTNER_LEFT })).toBeVisible();
    await dialog.getByRole("radio", { name: "Scam" }).click();
    await dialog.getByRole("button", { name: "Submit report" }).click();
    // The toast comes with the server's answer.
    await expect(
      page.locator("[data-sonner-toast]").filter({ hasText: /^Reported/ }),
    ).toContainText("You won't be matched with them again.");
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("button", { name: FIND })).toBeFocused();

    // The operator finds the report in the queue and bans its sender.
    const operator = await browser.newContext({
      baseURL,
      extraHTTPHeaders: { "X-Forwarded-For": otherAddress() },
    });
    const desk = await operator.newPage();
    const username = await signUp(desk, baseURL);
    await makeOperator(username, ownSite.adminEnv);
    await desk.goto("/en/moderation");
    const group = desk.getByRole("article").filter({ hasText: last });
    await expect(group).toHaveAccessibleName(/^Chat visitor \S+…$/);
    await expect(group).toContainText("Scam × 1");
    await expect(group).toContainText("1 reporter");
    await expect(group).not.toContainText(first);
    const subject = await group.evaluate((element) => element.getAttribute("aria-labelledby"));
    expect(subject).toMatch(/^mod-visitor-/);
    const banned = desk.waitForResponse((r) => r.url().includes("/trpc/moderation.ban"));
    await group.getByRole("button", { name: "Ban from chat" }).click();
    expect((await banned).status()).toBe(200);
    await expect(group).toHaveCount(0);
    await expect(
      desk.locator("[data-sonner-toast]").filter({ hasText: "banned from chat" }),
    ).toBeVisible();
    await desk.reload();
    await expect(desk.getByRole("heading", { level: 1, name: "Moderation" })).toBeVisible();
    await expect(group).toHaveCount(0);
    const action = desk
      .getByRole("region", { name: "Recent actions" })
      .getByRole("row")
      .filter({ hasText: "Banned" })
      .filter({ hasText: username });
    await expect(action).toHaveCount(1);
    await expect(action).toContainText(/until .+\d{1,2}:\d{2}/);

    // The sender now finds chat paused for them, for an hour (a first ban).
    await other.reload();
    await expect(other.getByText("Chat restricted").first()).toBeVisible();
    await expect(other.getByText(/You can chat again in about 1 hour\./).first()).toBeVisible();
    await expect(other.getByRole("button", { name: FIND })).toBeDisabled();

    // Lifted from the recent actions: the sender's next visit asks the server, which says so
    // (and the ban the page kept in storage is cleared with it).
    const lifted = desk.waitForResponse((r) => r.url().includes("/trpc/moderation.unban"));
    await action.getByRole("button", { name: "Lift ban" }).click();
    expect((await lifted).status()).toBe(200);
    await other.reload();
    await expect(other.getByRole("button", { name: FIND })).toBeEnabled();
    await expect(other.getByText("Chat restricted")).toHaveCount(0);
    await Promise.all([operator.close(), other.context().close()]);
    expect(consoleErrors).toEqual([]);
  });

  test(
    "on a phone, the open chat in Chinese shows Next and the way home",
    RENDER,
    async ({ page, browser, baseURL }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      // A mute the server told this page earlier, kept as the page keeps it (the server says it
      // once): its notice must not push the text box off a phone's screen.
      await page.addInitScript(() => {
        localStorage.setItem("chat-muted-until", String(Date.now() + 60 * 60_000));
      });
      const other = await stranger(browser, baseURL);
      await pair(page, other, "zh");
      const panel = page.getByRole("region", { name: /^你的聊天對象來自/ });
      await expect(panel).toBeVisible();
      await expect(panel.getByText(/之前，你的訊息不會傳給任何人/)).toBeVisible();
      await expect(page.getByText("配對成功")).toBeHidden();
      await expect(box(page, "zh")).toBeInViewport({ ratio: 1 });
      await expect(panel.getByRole("button", { name: "送出" })).toBeInViewport({ ratio: 1 });
      // One sentence: no space between the words and the country's name in Chinese.
      await expect(panel).toHaveAccessibleName(/^你的聊天對象來自未知$/);
      const home = panel.getByRole("link", { name: "返回首頁" });
      const next = panel.getByRole("button", { name: "下一位", exact: true });
      for (const control of [home, next, panel.getByRole("button", { name: "結束聊天" })]) {
        await expect(control).toBeInViewport();
      }
      await expect(home).toHaveAttribute("href", "/zh");
      await next.click();
      await expect(page.getByText("正在尋找聊天對象…")).toBeVisible();
      await expect(other.getByText("你的聊天對象已離開對話。").first()).toBeVisible();
      await page.getByRole("button", { name: "取消" }).click();
      await other.context().close();
    },
  );

  test(
    "a partner's message is translated on the device when the browser can",
    ONE_INSTANCE,
    async ({ page, browser, baseURL, consoleErrors }) => {
      await standInDeviceTranslator(page);
      const serverCalls: string[] = [];
      page.on("websocket", (socket) =>
        socket.on("framesent", (frame) => {
          // Asking which languages the server can do is no translation: only chat.translate is.
          if (String(frame.payload).includes('"path":"chat.translate"')) {
            serverCalls.push("chat.translate");
          }
        }),
      );
      const other = await stranger(browser, baseURL);
      await pair(page, other, "zh");
      const hello = unique("Good evening");
      await box(other, "zh").fill(hello);
      await box(other, "zh").press("Enter");
      const line = page.locator(".chat-msg--partner", { hasText: hello });
      await line.getByRole("button", { name: "翻譯這則訊息" }).click();
      const japanese = page.getByRole("menu").getByRole("menuitem", { name: /^日本語/ });
      await expect(japanese).toContainText("在這台裝置上翻譯");
      await japanese.click();
      await expect(line.getByText(`〔ja〕${hello}`, { exact: true })).toBeVisible();
      await expect(line.getByText("已在這台裝置上翻譯成日文")).toBeVisible();
      expect(await deviceTranslations(page)).toEqual(["en>ja"]);
      expect(serverCalls).toEqual([]);
      await page.getByRole("button", { name: "結束聊天" }).click();
      await other.context().close();
      expect(consoleErrors).toEqual([]);
    },
  );

  test("/zh/random-chat speaks Traditional Chinese", RENDER, async ({ page, consoleErrors }) => {
    await openAsAdult(page, "zh");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-TW");
    await expect(page.getByRole("heading", { level: 1, name: "隨機聊天" })).toBeVisible();
    await expect(page.getByText("對方會看到你來自")).toBeVisible();
    await expect(page.getByText(/配對成功後，對方會看到你的國家和國旗/)).toBeVisible();
    await expect(page.getByRole("link", { name: "返回首頁" })).toHaveAttribute("href", "/zh");
    await expect(page.getByText(/^(現在沒有其他人在線上|另有 \d+ 人在線上)$/)).toBeVisible();
    await expect(page.getByRole("button", { name: "找人聊天" })).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });
});

test.describe("random chat, scanned", () => {
  // axe's script is put into the page: this context bypasses the site's CSP, only here.
  test.use({ bypassCSP: true });

  for (const language of ["en", "zh"] as const) {
    test(
      `an open chat in /${language}, with its menu and dialog open and once ended, has no axe violations at either width`,
      RENDER,
      async ({ page, browser, baseURL }) => {
        // Five scans of a busy page take 10 to 40 s each on a shared machine.
        test.setTimeout(150_000);
        const words = {
          en: {
            translate: "Translate this message",
            report: "Report this message",
            end: "End chat",
          },
          zh: { translate: "翻譯這則訊息", report: "檢舉這則訊息", end: "結束聊天" },
        }[language];
        const other = await stranger(browser, baseURL);
        await pair(page, other, language);
        // Chinese, which the server translates offline: the translate menu has languages.
        await box(other, language).fill("你好，有人在嗎？");
        await box(other, language).press("Enter");
        const line = page.locator(".chat-msg--partner");
        await expect(line).toHaveCount(1);
        await expect(page.locator(".chat-match")).toBeHidden();
        const violations = [];
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: 844 });
          // The open chat with its translate menu open, then with its report dialog open.
          await line.getByRole("button", { name: words.translate }).click();
          await expect(page.getByRole("menu").getByRole("menuitem").first()).toBeVisible();
          violations.push(...(await scan(page, `translate menu at ${width} px`)));
          await page.keyboard.press("Escape");
          await line.getByRole("button", { name: words.report }).click();
          const dialog = page.getByRole("dialog", { name: words.report });
          await expect(dialog).toBeVisible();
          await dialog.evaluate((element) =>
            Promise.all(element.getAnimations().map((a) => a.finished.catch(() => undefined))),
          );
          violations.push(...(await scan(page, `report dialog at ${width} px`)));
          await page.keyboard.press("Escape");
          await expect(dialog).toBeHidden();
        }
        // Ended by the partner: read-only, still on screen (at one width per language).
        await other.getByRole("button", { name: words.end }).click();
        await expect(box(page, language)).toBeDisabled();
        await page.setViewportSize({ width: language === "en" ? 390 : 1280, height: 844 });
        violations.push(...(await scan(page, "ended chat")));
        expect(violations).toEqual([]);
        await other.context().close();
      },
    );
  }

  test("a searching stranger whose browser dies is never matched with the next one", async ({
    page,
    browser,
    baseURL,
  }, testInfo) => {
    // The ghost's own browser, killed outright: no page-close event, no beacon; only the
    // system closes its socket.
    const ghostBrowser = await chromium.launchServer(testInfo.project.use.launchOptions);
    const remote = await chromium.connect(ghostBrowser.wsEndpoint());
    const ghost = await (
      await remote.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": otherAddress() } })
    ).newPage();
    await openAsAdult(ghost);
    await find(ghost);
    await expect(ghost.getByText("Looking for someone to chat with…")).toBeVisible();
    ghostBrowser.process().kill("SIGKILL");

    await openAsAdult(page);
    await find(page);
    await expect(page.getByText("Looking for someone to chat with…")).toBeVisible();
    await page.waitForTimeout(2000);
    await expect(chatPanel(page)).toHaveCount(0);

    // A living stranger is matched at once.
    const living = await stranger(browser, baseURL);
    await openAsAdult(living);
    await find(living);
    for (const p of [page, living]) {
      await expect(chatPanel(p)).toBeVisible();
    }
    await page.getByRole("button", { name: "End chat" }).click();
    await living.context().close();
  });
});

test.describe("random chat: matching by language and interest", () => {
  const PREFER = {
    en: "Prefer someone who shares my language or interests",
    zh: "優先配對語言或興趣相同的人",
  } as const;
  const INTERESTS = { en: "Interests", zh: "興趣" } as const;

  /** Turns preferences on and names the languages and interests (the page's language is ticked). */
  async function prefer(
    page: Page,
    language: "en" | "zh",
    choose: { languages?: string[]; untick?: string[]; interests?: string[] },
  ): Promise<void> {
    await page.getByRole("checkbox", { name: PREFER[language] }).check();
    for (const name of choose.languages ?? [])
      await page.getByRole("checkbox", { name, exact: true }).check();
    for (const name of choose.untick ?? [])
      await page.getByRole("checkbox", { name, exact: true }).uncheck();
    const field = page.getByRole("textbox", { name: INTERESTS[language], exact: true });
    for (const interest of choose.interests ?? []) {
      await field.fill(interest);
      await field.press("Enter");
      await expect(field).toHaveValue("");
    }
  }

  test("two strangers who share a language and an interest are matched and both see it, in both languages", async ({
    page,
    browser,
    baseURL,
    consoleErrors,
  }) => {
    const other = await stranger(browser, baseURL);
    await openAsAdult(page, "en");
    await prefer(page, "en", { interests: ["Hiking", "chess"] });
    // The chips are normalized as the server compares them, and can be removed.
    const chips = page.getByRole("list", { name: "Your interests" });
    await expect(chips.getByRole("listitem")).toHaveText(["hiking", "chess"]);
    await chips.getByRole("button", { name: "Remove chess" }).click();
    await expect(chips.getByRole("listitem")).toHaveText(["hiking"]);
    await find(page, "en");
    // First a shared interest, then a shared language, as the server keeps to it.
    await expect(page.getByText("Looking for someone who likes hiking…")).toBeVisible();
    await expect(page.getByText(/^then anyone who speaks English in [1-3] s$/)).toBeVisible();
    await expect(page.getByText("Looking for someone who speaks English")).toBeVisible();
    await expect(page.getByText(/^Anyone in [1-2] s$/)).toBeVisible();

    // The second stranger reads the page in Chinese, and speaks English too.
    await openAsAdult(other, "zh");
    await prefer(other, "zh", { languages: ["英文"], interests: ["ＨＩＫＩＮＧ"] });
    await find(other, "zh");
    await expect(chatPanel(page, "en").getByText("You both like hiking")).toBeVisible();
    await expect(chatPanel(page, "en").getByText("You both speak English")).toBeVisible();
    await expect(chatPanel(other, "zh").getByText("你們都喜歡hiking")).toBeVisible();
    await expect(chatPanel(other, "zh").getByText("你們都會說英文")).toBeVisible();

    // Next keeps the same preferences, and the device remembers them after a reload.
    await page.getByRole("button", { name: "End chat" }).click();
    await expect(page.getByRole("button", { name: FIND })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("checkbox", { name: PREFER.en })).toBeChecked();
    await expect(page.getByRole("checkbox", { name: "English", exact: true })).toBeChecked();
    await expect(
      page.getByRole("list", { name: "Your interests" }).getByRole("listitem"),
    ).toHaveText(["hiking"]);
    await other.context().close();
    expect(consoleErrors).toEqual([]);
  });

  test("a stranger whose language nobody shares meets anyone once the countdown runs out", async ({
    page,
    browser,
    baseURL,
  }) => {
    // One who asked for nothing is waiting already...
    const other = await stranger(browser, baseURL);
    await openAsAdult(other, "en");
    await find(other, "en");
    await expect(other.getByText(WORDS.en.looking)).toBeVisible();
    // ...but is not the Japanese speaker's match until the countdown runs out.
    await openAsAdult(page, "en");
    await prefer(page, "en", { languages: ["Japanese"], untick: ["English"] });
    await find(page, "en");
    await expect(page.getByText("Looking for someone who speaks Japanese")).toBeVisible();
    await expect(page.getByText(/^Anyone in [1-5] s$/)).toBeVisible();
    await expect(other.getByText(WORDS.en.looking)).toBeVisible();
    await expect(chatPanel(page)).toBeVisible({ timeout: 8000 });
    await expect(chatPanel(other)).toBeVisible();
    await expect(chatPanel(page).getByText(/^You both/)).toHaveCount(0);
    // Said once, when the chat opens: nothing is shared.
    await expect(
      chatPanel(page).getByText(
        "You two matched at random: no shared language. Translation may help.",
      ),
    ).toBeVisible();
    await page.getByRole("button", { name: "End chat" }).click();
    await other.context().close();
  });

  for (const language of ["en", "zh"] as const) {
    test(`/${language}: a shared interest is not given away to one who shares only a language`, async ({
      page,
      browser,
      baseURL,
    }) => {
      const words = {
        en: {
          stage: "Looking for someone who likes origami…",
          next: /^then anyone who speaks English in [1-3] s$/,
          likes: "You both like origami",
        },
        zh: {
          stage: "正在找喜歡origami的人…",
          next: /^[1-3] 秒後改找會說中文的人$/,
          likes: "你們都喜歡origami",
        },
      }[language];
      const c = await stranger(browser, baseURL);
      const b = await stranger(browser, baseURL);
      // A likes origami and waits; C (chess) presses Find, then B (origami). All speak the
      // page's language, ticked by default. Everyone's page is ready before A presses Find:
      // A's interest window is a few seconds, and a busy machine's page loads are not.
      await openAsAdult(page, language);
      await prefer(page, language, { interests: ["origami"] });
      await openAsAdult(c, language);
      await prefer(c, language, { interests: ["chess"] });
      await openAsAdult(b, language);
      await prefer(b, language, { interests: ["Origami"] });
      await find(page, language);
      await expect(page.getByText(words.stage)).toBeVisible();
      await expect(page.getByText(words.next)).toBeVisible();
      await find(c, language);
      await find(b, language);
      // A meets B, who shares their interest; C, who shares only a language, waits on.
      await expect(chatPanel(page, language).getByText(words.likes)).toBeVisible();
      await expect(chatPanel(b, language).getByText(words.likes)).toBeVisible();
      await expect(c.getByText(WORDS[language].looking)).toBeVisible();
      await expect(chatPanel(c, language)).toHaveCount(0);
      await b.context().close();
      await c.context().close();
    });
  }

  test("'Anyone now' widens the search at once", async ({ page, browser, baseURL }) => {
    const other = await stranger(browser, baseURL);
    await openAsAdult(other, "en");
    await find(other, "en");
    await expect(other.getByText(WORDS.en.looking)).toBeVisible();
    await openAsAdult(page, "en");
    await prefer(page, "en", { languages: ["Korean"], untick: ["English"] });
    await find(page, "en");
    await expect(page.getByText(/^Anyone in [1-5] s$/)).toBeVisible();
    await page.getByRole("button", { name: "Anyone now" }).click();
    // Well before the countdown would have run out.
    await expect(chatPanel(page)).toBeVisible({ timeout: 2500 });
    await expect(chatPanel(other)).toBeVisible();
    await page.getByRole("button", { name: "End chat" }).click();
    await other.context().close();
  });

  test(
    "on a phone, Find pressed below the preferences brings the whole search on screen",
    RENDER,
    async ({ page }) => {
      await page.setViewportSize({ width: 390, height: 844 });
      await openAsAdult(page, "en");
      await prefer(page, "en", { languages: ["Japanese"], interests: ["hiking"] });
      await find(page, "en");
      await expect(page.getByText(/^then anyone who speaks .* in [1-3] s$/)).toBeVisible();
      // Once the page has settled: below the site's header and above the screen's bottom.
      await expect
        .poll(() =>
          page.evaluate(() => {
            const header = document.querySelector(".site-header")?.getBoundingClientRect();
            const search = document.querySelector(".chat-search")?.getBoundingClientRect();
            if (!header || !search) return "missing";
            return search.top >= header.bottom - 1 && search.bottom <= window.innerHeight + 1
              ? "on screen"
              : `top ${search.top}, bottom ${search.bottom}, header ${header.bottom}`;
          }),
        )
        .toBe("on screen");
      await page.getByRole("button", { name: "Cancel" }).click();
      await expect(page.getByRole("button", { name: FIND })).toBeVisible();
    },
  );

  test.describe("scanned", () => {
    // axe's script is put into the page: this context bypasses the site's CSP, only here.
    test.use({ bypassCSP: true });
    test(
      "the start card with preferences, and the search counting down, have no axe violations",
      RENDER,
      async ({ page }) => {
        test.setTimeout(120_000);
        await openAsAdult(page, "en");
        await prefer(page, "en", { interests: ["hiking"] });
        const violations = await scan(page, "chat start with preferences", ".chat-start");
        await find(page, "en");
        await expect(page.getByText(/^then anyone who speaks English in [1-3] s$/)).toBeVisible();
        violations.push(...(await scan(page, "search with a countdown", ".chat-start")));
        expect(violations).toEqual([]);
        await page.getByRole("button", { name: "Cancel" }).click();
        await expect(page.getByRole("button", { name: FIND })).toBeVisible();
      },
    );
  });

  test(
    "interests with contact details are refused and named beside the field, and nothing typed is lost",
    RENDER,
    async ({ page }) => {
      await openAsAdult(page, "zh");
      await prefer(page, "zh", { interests: ["爬山", "me@mail.com", "line id: abc123"] });
      await find(page, "zh");
      const refusal = page.getByRole("alert");
      await expect(refusal).toHaveText(
        "「me@mail.com」和「line id: abc123」無法使用：不能包含聯絡方式或冒犯性的字詞。請移除後再試一次。",
      );
      await expect(page.getByRole("textbox", { name: INTERESTS.zh, exact: true })).toHaveAttribute(
        "aria-invalid",
        "true",
      );
      const chips = page.getByRole("list", { name: "你的興趣" });
      await expect(chips.getByRole("listitem")).toHaveText([
        "爬山",
        "me@mail.com",
        "line id: abc123",
      ]);
      // The two refused are marked; the one that may be used is not.
      await expect(chips.locator(".chat-prefs__interest--refused")).toHaveText([
        "me@mail.com",
        "line id: abc123",
      ]);
      await expect(page.getByRole("button", { name: WORDS.zh.find })).toBeVisible();
      // One removed, the other is still named and marked; without both, the search starts.
      await chips.getByRole("button", { name: "移除「me@mail.com」" }).click();
      await expect(refusal).toHaveText(
        "「line id: abc123」無法使用：不能包含聯絡方式或冒犯性的字詞。請移除後再試一次。",
      );
      await expect(chips.locator(".chat-prefs__interest--refused")).toHaveText(["line id: abc123"]);
      await chips.getByRole("button", { name: "移除「line id: abc123」" }).click();
      await expect(refusal).toBeHidden();
      await find(page, "zh");
      await expect(page.getByText("正在找喜歡爬山的人…")).toBeVisible();
      await page.getByRole("button", { name: "取消" }).click();
      await expect(page.getByRole("button", { name: WORDS.zh.find })).toBeVisible();
    },
  );
});
