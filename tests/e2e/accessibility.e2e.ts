import type { Locator, Page } from "@playwright/test";
import { scan, type Violation } from "./axe";
import { expect, test } from "./fixtures";
import {
  animationsSettled,
  requestsDone,
  signUp,
  throwBottle,
  trackRequests,
  unique,
} from "./helpers";

// The site's Content-Security-Policy refuses the inline script that brings axe in, so this
// file's browser contexts (and only they) bypass it.
test.use({ bypassCSP: true });

const pages = [
  "",
  "/create",
  "/discover",
  "/about",
  "/privacy",
  "/terms",
  "/contact",
  "/faq",
  "/public-bottles",
  "/random-chat",
  "/my-bottles",
  "/nowhere",
];

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

/** Lets the page's timers run (the home overlay and tip, the discover search) and settles. */
async function settle(page: Page): Promise<void> {
  await page.clock.runFor(6000);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await requestsDone(page);
}

test.beforeEach(({ page }) => trackRequests(page));

// One test a page (so they spread over the workers), each at both widths in both languages.
for (const slug of pages) {
  test(`/en${slug} and /zh${slug} at 390 and 1280 px: a heading, the language, no sideways scroll, no console error, no axe violation`, async ({
    page,
    consoleErrors,
  }) => {
    // Four visits and four scans; the home page's scan is the longest.
    test.setTimeout(120_000);
    await page.clock.install();
    const violations: Violation[] = [];
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      for (const prefix of ["en", "zh"] as const) {
        const path = `/${prefix}${slug}`;
        const response = await page.goto(path);
        expect(response?.status(), path).toBe(slug === "/nowhere" ? 404 : 200);
        await settle(page);
        await expect(page.locator("html")).toHaveAttribute(
          "lang",
          prefix === "zh" ? "zh-TW" : "en",
        );
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `sideways scroll on ${path} at ${viewport.width} px`).toBeLessThanOrEqual(
          0,
        );
        violations.push(...(await scan(page, `${path} at ${viewport.width} px`)));
      }
    }
    expect(violations).toEqual([]);
    // The browser itself reports the missing page's 404 as an error; nothing else may.
    expect(consoleErrors.filter((error) => !error.includes("404"))).toEqual([]);
  });
}

for (const viewport of VIEWPORTS) {
  test.describe(`axe at ${viewport.name} width`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    for (const prefix of ["en", "zh"] as const) {
      test(`/auth, the menu and a floating bottle in /${prefix} have no violations`, async ({
        page,
      }) => {
        await page.clock.install();
        const violations: Violation[] = [];
        // The sign-in page has no prefix: it speaks the stored language.
        await page.goto(`/${prefix}`);
        await page.evaluate(
          (locale) => localStorage.setItem("preferred-language", locale),
          prefix === "zh" ? "zh-TW" : "en",
        );
        await page.goto("/auth");
        await settle(page);
        violations.push(...(await scan(page, "/auth")));

        // A few states over the pages: the phone menu, a floating bottle's dialog.
        await page.goto(`/${prefix}`);
        await settle(page);
        if (viewport.width < 768) {
          await page.locator(".menu-toggle").click();
          // The page under the open menu is inert: what is in reach is the header.
          violations.push(...(await scan(page, `/${prefix} with the menu open`, ".site-header")));
          await page.keyboard.press("Escape");
        }
        await page.locator(".home-bottle").first().click();
        await expect(page.getByRole("dialog")).toBeVisible();
        await page.clock.runFor(1000);
        violations.push(...(await scan(page, `/${prefix} with a bottle open`)));

        expect(violations).toEqual([]);
      });

      test(`/${prefix} with every dropdown and dialog open has no violations`, async ({
        page,
        request,
        baseURL,
      }) => {
        test.setTimeout(120_000);
        const words = {
          en: {
            language: /^Language/,
            like: /^Like this bottle/,
            signIn: "Sign in to continue",
            report: "Report this bottle",
          },
          zh: {
            language: /^語言/,
            like: /^為這個瓶子按讚/,
            signIn: "請先登入",
            report: "檢舉這個瓶子",
          },
        }[prefix];
        // A public bottle, so a floating bottle holds one (whatever else floats there).
        await throwBottle(request, baseURL, `Scanned ${unique()}`, { isPublic: true });
        await page.clock.install();
        const violations: Violation[] = [];
        const settled = () => animationsSettled(page);
        const menu = page.getByRole("menu");

        await page.goto(`/${prefix}`);
        await settle(page);
        await page.getByRole("button", { name: words.language }).click();
        await expect(menu).toBeVisible();
        violations.push(...(await scan(page, `/${prefix} with the language menu open`)));
        await page.keyboard.press("Escape");
        await expect(menu).toBeHidden();

        // A floating bottle's dialog and the sign-in dialog its heart opens. (Its translate
        // button shows only for a text something here can translate, and the floating bottle
        // is anyone's: the translate menu is scanned open in the chat's scans.)
        await page.locator(".home-bottle").first().click();
        const dialog = page.getByRole("dialog");
        await expect(dialog.getByRole("button", { name: words.like })).toBeVisible();
        await dialog.getByRole("button", { name: words.like }).click();
        const signIn = page.getByRole("dialog", { name: words.signIn });
        await expect(signIn).toBeVisible();
        await page.clock.runFor(1000);
        await settled();
        violations.push(...(await scan(page, `/${prefix} with the sign-in dialog open`)));

        // Signed in: the account menu, and a bottle's report dialog.
        await signUp(page, baseURL);
        await page.goto(`/${prefix}`);
        await settle(page);
        await page.getByRole("button", { name: /reader-/ }).click();
        await expect(menu).toBeVisible();
        violations.push(...(await scan(page, `/${prefix} with the account menu open`)));
        await page.keyboard.press("Escape");
        await page.locator(".home-bottle").first().click();
        await page.getByRole("dialog").getByRole("button", { name: words.report }).click();
        const report = page.getByRole("dialog", { name: words.report });
        await expect(report).toBeVisible();
        await page.clock.runFor(1000);
        await settled();
        violations.push(...(await scan(page, `/${prefix} with the report dialog open`)));

        expect(violations).toEqual([]);
      });
    }
  });
}

/**
 * The contrast of a field's placeholder against what is behind it, measured on the screen: the
 * field is photographed with its placeholder hidden, and the placeholder's colour (with its
 * alpha) is laid over the lightest pixel behind it (the worst case).
 */
async function placeholderContrast(page: Page, field: Locator): Promise<number> {
  await page.addStyleTag({
    content: ".hide-placeholder::placeholder { color: transparent !important }",
  });
  await field.evaluate((el) => el.classList.add("hide-placeholder"));
  const box = await field.boundingBox();
  if (!box) throw new Error("the field is not on screen");
  const inset = 6;
  const shot = await page.screenshot({
    clip: { x: box.x + inset, y: box.y + inset, width: box.width - 2 * inset, height: 24 },
  });
  await field.evaluate((el) => el.classList.remove("hide-placeholder"));
  const color = await field.evaluate((el) => getComputedStyle(el, "::placeholder").color);
  return page.evaluate(
    async ({ png, color }) => {
      const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
      const image = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
      const canvas = new OffscreenCanvas(image.width, image.height);
      const context = canvas.getContext("2d");
      if (!context) throw new Error("no canvas");
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, image.width, image.height).data;
      const channel = (v: number) => {
        const c = v / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      type Rgb = [number, number, number];
      const luminance = ([r, g, b]: Rgb) =>
        0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      let lightest: Rgb = [0, 0, 0];
      for (let i = 0; i < pixels.length; i += 4) {
        const rgb: Rgb = [pixels[i] ?? 0, pixels[i + 1] ?? 0, pixels[i + 2] ?? 0];
        if (luminance(rgb) > luminance(lightest)) lightest = rgb;
      }
      const [r = 0, g = 0, b = 0, a = 1] = (color.match(/[\d.]+/g) ?? []).map(Number);
      const over = (fg: number, bg: number) => fg * a + bg * (1 - a);
      const text = luminance([over(r, lightest[0]), over(g, lightest[1]), over(b, lightest[2])]);
      const back = luminance(lightest);
      return (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05);
    },
    { png: shot.toString("base64"), color },
  );
}

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test(`placeholders keep a contrast of 4.5:1 at ${viewport.width} px`, async ({ page }) => {
    await page.setViewportSize(viewport);
    const fields: Array<[string, string]> = [
      ["/en/create", "Your message"],
      ["/en/contact", "Name"],
      ["/en/contact", "Email"],
      ["/zh/contact", "訊息"],
    ];
    for (const [path, label] of fields) {
      await page.goto(path);
      const field = page.getByLabel(label, { exact: true });
      await expect(field).toBeVisible();
      await field.scrollIntoViewIfNeeded();
      const ratio = await placeholderContrast(page, field);
      expect(ratio, `${label} on ${path}`).toBeGreaterThanOrEqual(4.5);
    }
  });
}

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test(`toasts cover no heading at ${viewport.width} px and speak the page's language`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    const pages = [
      {
        path: "/en/create",
        send: "Throw into the Ocean",
        region: "Notifications",
        close: "Close notification",
      },
      { path: "/zh/create", send: "丟進大海", region: "通知", close: "關閉通知" },
    ];
    for (const { path, send, region, close } of pages) {
      await page.goto(path);
      await page.getByRole("button", { name: send }).click();
      const toast = page.locator("[data-sonner-toast]").first();
      await expect(toast).toBeVisible();
      await expect(page.getByRole("region", { name: new RegExp(`^${region}`) })).toHaveCount(1);
      await expect(toast.getByRole("button", { name: close })).toBeVisible();
      // Once it has slid in: no heading on screen lies under it.
      await expect(toast).toHaveAttribute("data-mounted", "true");
      await animationsSettled(page);
      const covered = await page.evaluate(() => {
        const boxes = [...document.querySelectorAll("[data-sonner-toast]")].map((t) =>
          t.getBoundingClientRect(),
        );
        return [...document.querySelectorAll("h1, h2, h3")]
          .filter((heading) => {
            const h = heading.getBoundingClientRect();
            if (h.width === 0 || h.bottom < 0 || h.top > innerHeight) return false;
            return boxes.some(
              (t) => t.left < h.right && h.left < t.right && t.top < h.bottom && h.top < t.bottom,
            );
          })
          .map((heading) => heading.textContent);
      });
      expect(covered, path).toEqual([]);
    }
  });
}
