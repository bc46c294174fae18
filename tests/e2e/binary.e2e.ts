import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";

// The compiled binary, as a self-hosting operator runs it, seen in Chromium.
test.describe("the compiled binary", () => {
  let folder: string;
  let server: ChildProcess;
  let url: string;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    folder = mkdtempSync(join(tmpdir(), "tidings-binary-e2e-"));
    const binary = join(folder, "tidings");
    execFileSync("bun", ["scripts/build.ts", "--outfile", binary]);
    server = spawn(binary, ["--port", "0", "--host", "127.0.0.1"], {
      cwd: folder,
      env: { ...process.env, SHUTDOWN_DRAIN: "0s" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    url = await new Promise<string>((resolve, reject) => {
      let seen = "";
      server.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(seen);
        if (match?.[1]) resolve(match[1].replace("localhost", "127.0.0.1"));
      });
      server.on("exit", (code) => reject(new Error(`binary exited with ${code}`)));
    });
  });

  test.afterAll(async () => {
    server?.kill("SIGTERM");
    if (server && server.exitCode === null)
      await new Promise((resolve) => server.once("exit", resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  test("serves /en with its styles and script, and no console error", async ({ page }) => {
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    expect((await page.request.get(`${url}/healthz`)).status()).toBe(200);
    await page.goto(`${url}/en`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "Write a Message" })).toBeVisible();
    // The header comes with the app: the script ran (the server draws the title and links).
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundImage);
    expect(background).toContain("gradient");
    expect(errors).toEqual([]);
  });

  test("a bottle is thrown with proof of work solved in the binary's own worker", async ({
    page,
  }) => {
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    const worker = page.waitForRequest((request) => /\/pow-worker-[^/]+\.js$/.test(request.url()));
    await page.goto(`${url}/en/create`);
    expect((await (await worker).response())?.status()).toBe(200);
    await page.getByRole("textbox", { name: "Your message" }).fill("From the binary's page");
    await page.getByRole("button", { name: "Throw into the Ocean" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "I am 13 or older" }).click();
    await expect(page.getByText("Your bottle is on its way").first()).toBeVisible();
    expect(errors).toEqual([]);
  });
});
