import { defineConfig, devices } from "@playwright/test";

// Debian's Chromium, never a downloaded browser build.
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Behind nginx on two instances (CLUSTER=1), the flows where what one instance serves depends on
// what the other stored or relayed: pairing and chat, sessions, likes and finds, moderation. The
// pages that only render (and the binary, which is SQLite either way) ran in the first run, and
// so did the tests of those files tagged @render or @one-instance (fixtures.ts).
const cluster = process.env.E2E_CLUSTER === "1";
const acrossInstances = [
  "auth",
  "bottles",
  "chat",
  "chat-wait",
  "likes",
  "my-bottles",
  "outage",
  "safety",
];

/**
 * Headless Chromium prepares the address bar's two pop-ups (web pages of their own, each with a
 * renderer) in every window, and each test's context is a window: a quarter of the CPU a
 * context costs, for a bar nobody sees. Chromium reads only the last --disable-features, so
 * Playwright's own list (playwright-core 1.65's chromiumSwitches) is repeated before ours:
 * without it, closing a page would skip its beforeunload and pagehide, and the browser would
 * start downloading models.
 */
const disabledFeatures = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "WebUIOmniboxPopup",
  "WebUIOmniboxAimPopup",
];

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: cluster ? acrossInstances.map((name) => `**/${name}.e2e.ts`) : "**/*.e2e.ts",
  ...(cluster ? { grepInvert: /@render|@one-instance/ } : {}),
  globalSetup: "./tests/e2e/global-setup.ts",
  fullyParallel: true,
  // Three on two cores: a test waits on its server and browser for part of its time, and a third
  // worker fills it (the SQLite suite took 204 s in two, 176 s in three, 168 s in four).
  workers: 3,
  retries: 0,
  // A minute per test: the longest flows (block, report and ban, the moderation queue) take 10–17 s
  // alone and twice that when the two cores are shared with a second instance and nginx.
  timeout: 60_000,
  // An upper bound, not a wait: a state that is right passes as soon as it shows. Two browsers
  // and the server share two cores, and a sign-up's password hashing alone takes a moment.
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    // Without a GPU, Chromium paints the sea's endless animations in software: more than a core
    // per open page. Every context (also those a test opens itself with browser.newContext)
    // asks for reduced motion; a test about motion turns it back on with page.emulateMedia.
    // (Chromium's --force-prefers-reduced-motion is overridden by Playwright's own emulation.)
    reducedMotion: "reduce",
    trace: "off",
    screenshot: "off",
    launchOptions: {
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--disable-features=${disabledFeatures.join(",")}`,
      ],
    },
  },
  projects: [
    {
      name: "desktop",
      use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 800 } },
    },
  ],
});
