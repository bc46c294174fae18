import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { PowChallenge } from "../../src/common/pow.ts";
import { chatTester } from "../helpers/chat-client.ts";
import { solvePow } from "../helpers/pow.ts";

// Each operator command starts the binary anew: a second alone, several on a busy machine, so
// these tests get the room ./scripts/test gives every test, also under a bare `bun test`.
setDefaultTimeout(20_000);

/**
 * The self-hosted binary, as an operator runs it: built with `bun run build`, started in
 * an empty folder, backed up while serving, killed hard and started again.
 */
const work = mkdtempSync(join(tmpdir(), "tidings-binary-"));
const binary = join(work, "tidings");

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "scripts/build.ts", "--outfile", binary], {
    stderr: "pipe",
    stdout: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Running {
  process: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  output: () => string;
}

async function serve(folder: string, env: Record<string, string> = {}): Promise<Running> {
  const child = Bun.spawn([binary, "--port", "0", "--host", "127.0.0.1", "--trust-proxy"], {
    cwd: folder,
    // The cheapest challenge: the test proves the binary asks and checks one, not its cost.
    env: { ...process.env, LOG_FORMAT: "off", SHUTDOWN_DRAIN: "0s", POW_COST: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let seen = "";
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + 20_000;
  while (!/listening on (http:\/\/\S+)/.test(seen)) {
    if (Date.now() > deadline) throw new Error(`did not start: ${seen}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited: ${seen}${await new Response(child.stderr).text()}`);
    seen += decoder.decode(value);
  }
  // Keep draining so the child never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      seen += decoder.decode(value);
    }
  })();
  const url = (/listening on (http:\/\/\S+)/.exec(seen)?.[1] ?? "").replace(
    "localhost",
    "127.0.0.1",
  );
  return { process: child, url, output: () => seen };
}

let n = 0;
/** A new writer's throw, as the create page makes it: the 13-or-older answer first. */
async function throwBottle(url: string, message: string) {
  n += 1;
  const headers = {
    "Content-Type": "application/json",
    Origin: url,
    "X-Forwarded-For": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
  };
  const answered = await fetch(`${url}/trpc/bottles.confirmAge`, {
    method: "POST",
    headers,
    body: JSON.stringify({ atLeast13: true }),
  });
  if (answered.status !== 200) return answered;
  // The visitor cookie the site issued with the answer, sent back as a browser would.
  const cookie = (answered.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  // Proof of work is on, as a hobbyist runs the binary: the throw carries a solved challenge.
  const asked = await fetch(`${url}/trpc/pow.challenge`, {
    method: "POST",
    headers: { ...headers, Cookie: cookie },
    body: JSON.stringify({ action: "throw" }),
  });
  if (asked.status !== 200) return asked;
  const { result } = (await asked.json()) as { result: { data: { challenge: PowChallenge } } };
  return fetch(`${url}/trpc/bottles.throw`, {
    method: "POST",
    headers: { ...headers, Cookie: cookie },
    body: JSON.stringify({
      pow: await solvePow(result.data.challenge),
      message,
      driftHours: 0,
      isPublic: true,
      expiryDays: 7,
      timeZone: "UTC",
      locale: "en",
    }),
  });
}

function admin(folder: string, ...args: string[]) {
  const run = Bun.spawnSync([binary, ...args], {
    cwd: folder,
    env: { ...process.env, LOG_FORMAT: "off" },
  });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
}

describe("the binary", () => {
  test("serves the whole site from an empty folder and keeps its data in ./data", async () => {
    const folder = mkdtempSync(join(work, "site-"));
    const site = await serve(folder);
    try {
      const health = await (await fetch(`${site.url}/healthz`)).json();
      expect(health).toMatchObject({ ok: true });
      const page = await fetch(`${site.url}/en`);
      expect(page.status).toBe(200);
      const html = await page.text();
      // The embedded bundle is whole: the first load's files and every chunk they can load.
      const entry = /src="(\/[^"]+\.js)"/.exec(html)?.[1] ?? "";
      const script = await (await fetch(`${site.url}${entry}`)).text();
      const paths = new Set(
        [...`${html}${script}`.matchAll(/"(\/chunk-[a-z0-9]+\.(?:js|css))"/g)].map((m) => m[1]),
      );
      expect(paths.size).toBeGreaterThan(10);
      for (const path of paths) expect((await fetch(`${site.url}${path}`)).status).toBe(200);
      expect(existsSync(join(folder, "data", "tidings.db"))).toBe(true);
      expect(existsSync(join(folder, "data", "secret"))).toBe(true);

      expect((await throwBottle(site.url, "From the binary")).status).toBe(200);
      const found = await fetch(`${site.url}/trpc/bottles.publicList`);
      expect(JSON.stringify(await found.json())).toContain("From the binary");
    } finally {
      site.process.kill("SIGTERM");
      expect(await site.process.exited).toBe(0);
    }
  }, 30_000);

  test("backs up while serving, and the copy opens whole", async () => {
    const folder = mkdtempSync(join(work, "backup-"));
    const site = await serve(folder);
    try {
      for (let i = 0; i < 5; i++)
        expect((await throwBottle(site.url, `Backed up ${i}`)).status).toBe(200);
      const result = admin(folder, "backup", "copy.db");
      expect(result.code).toBe(0);
      const copy = new Database(join(folder, "copy.db"), { readonly: true });
      expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      expect((copy.query("SELECT count(*) AS n FROM bottles").get() as { n: number }).n).toBe(5);
      copy.close();
      expect(admin(folder, "backup", "copy.db").code).toBe(2); // never overwrites
    } finally {
      site.process.kill("SIGTERM");
      await site.process.exited;
    }
  }, 30_000);

  test("killed hard during a stream of writes, it starts again with every answered bottle", async () => {
    const folder = mkdtempSync(join(work, "crash-"));
    const site = await serve(folder);
    const answered: number[] = [];
    let writing = true;
    let tenAnswered: () => void = () => {};
    const underWay = new Promise<void>((resolve) => {
      tenAnswered = resolve;
    });
    const writer = (async () => {
      let i = 0;
      while (writing) {
        try {
          const response = await throwBottle(site.url, `Crash test ${i++}`);
          if (response.status === 200) {
            const body = (await response.json()) as { result: { data: { id: number } } };
            answered.push(body.result.data.id);
            if (answered.length === 10) tenAnswered();
          }
        } catch {
          return; // the server is gone
        }
      }
    })();
    // Killed in the middle of the stream: after ten answers, with the next write under way.
    await underWay;
    site.process.kill("SIGKILL");
    await site.process.exited;
    writing = false;
    await writer;
    expect(answered.length).toBeGreaterThan(5);

    const again = await serve(folder);
    try {
      expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    } finally {
      again.process.kill("SIGTERM");
      await again.process.exited;
    }
    const db = new Database(join(folder, "data", "tidings.db"), { readonly: true });
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const ids = new Set(
      (db.query("SELECT id FROM bottles").all() as Array<{ id: number }>).map((r) => r.id),
    );
    db.close();
    expect(answered.filter((id) => !ids.has(id))).toEqual([]);
  }, 60_000);

  test("stops within five seconds on SIGTERM, telling chat partners", async () => {
    const folder = mkdtempSync(join(work, "term-"));
    // What is tested is the shutdown: the two start as scripts do, without proof of work.
    const site = await serve(folder, { POW: "false" });
    const a = chatTester(site.url, { address: "198.51.100.1" });
    const b = chatTester(site.url, { address: "198.51.100.2" });
    a.listen();
    b.listen();
    await a.waitFor((e) => e.type === "status");
    await b.waitFor((e) => e.type === "status");
    await a.start();
    await b.start();
    await a.waitFor((e) => e.type === "matched");
    const started = Date.now();
    site.process.kill("SIGTERM");
    expect(await site.process.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(site.output()).toContain("SIGTERM");
    await a.waitFor((e) => e.type === "partner-left");
    await b.waitFor((e) => e.type === "partner-left");
    a.close();
    b.close();
    const db = new Database(join(folder, "data", "tidings.db"), { readonly: true });
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();
  }, 30_000);
});

describe("operator commands", () => {
  const folder = mkdtempSync(join(tmpdir(), "tidings-admin-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test("--help lists every setting with its default; --version prints the version", () => {
    const help = admin(folder, "--help");
    expect(help.code).toBe(0);
    for (const name of [
      "PORT",
      "HOST",
      "DATA_DIR",
      "PUBLIC_ORIGIN",
      "TRUST_PROXY",
      "LOG_FORMAT",
      "ANALYTICS_SCRIPT_URL",
    ]) {
      expect(help.out).toContain(name);
    }
    expect(help.out).toContain("(default: 3000)");
    expect(admin(folder, "--version").out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test("each command works with good arguments", async () => {
    expect(admin(folder, "migrate")).toMatchObject({ code: 0, out: "database is up to date\n" });
    const db = new Database(join(folder, "data", "tidings.db"));
    const now = Date.now();
    db.query(
      "INSERT INTO bottles (message, drift_hours, country, ip_key, visitor_id, locale, is_public, available_at, created_at) VALUES ('a reported bottle', 0, 'Unknown', 'k', 'v', 'en', 1, ?, ?)",
    ).run(now, now);
    db.query(
      "INSERT INTO users (id, username, username_key, password_hash, created_at) VALUES ('u1', 'u', 'u', 'x', ?)",
    ).run(now);
    db.query(
      "INSERT INTO bottle_reports (bottle_id, user_id, reason, is_safe, created_at) VALUES (1, 'u1', 'spam', 1, ?)",
    ).run(now);
    db.query(
      "INSERT INTO chat_reports (reported_visitor_id, reported_ip_key, reporter_visitor_id, message_id, message_content, reason, is_safe, created_at) VALUES ('badvisitor0000000000AA', 'iphash000000000000000A', 'r', 'm1', 'rude words', 'harassment', 0, ?)",
    ).run(now + 1);
    db.query(
      "INSERT INTO contact_messages (name, email, message, locale, created_at) VALUES ('Mei', 'mei@example.org', 'Hello there', 'en', ?)",
    ).run(now);
    db.close();

    const reports = admin(folder, "reports");
    expect(reports.code).toBe(0);
    // Grouped by what was reported, the newest first.
    expect(reports.out.indexOf("visitor:badvisitor")).toBeGreaterThanOrEqual(0);
    expect(reports.out.indexOf("visitor:badvisitor")).toBeLessThan(reports.out.indexOf("bottle:1"));
    expect(reports.out).toContain("visitor:badvisitor0000000000AA");
    expect(reports.out).toContain("rude words");

    expect(admin(folder, "hide", "1").out).toContain("bottle 1 hidden");
    expect(admin(folder, "reports").out).not.toContain("bottle:1");
    expect(admin(folder, "unhide", "1").out).toContain("visible again");
    expect(admin(folder, "ban", "visitor:badvisitor0000000000AA", "--hours", "2")).toMatchObject({
      code: 0,
    });
    expect(admin(folder, "reports").out).toContain("no open reports");
    expect(admin(folder, "unban", "visitor:badvisitor0000000000AA").out).toContain(
      "may chat again",
    );
    const stats = admin(folder, "stats");
    expect(stats.code).toBe(0);
    expect(stats.out).toMatch(/bottles live:\s+1/);
    expect(stats.out).toMatch(/bottles public:\s+1/);
    expect(stats.out).toContain("chats now:");
    expect(admin(folder, "contact").out).toContain("Mei <mei@example.org>");
  });

  test("bad arguments are refused with a clear message and exit code 2", () => {
    const cases: Array<[string[], RegExp]> = [
      [["hide"], /takes 1 argument/],
      [["hide", "abc"], /bottle id/],
      [["hide", "99999"], /no bottle 99999/],
      [["ban", "someone", "--hours", "2"], /visitor:<id> or ip:<hash>/],
      [["ban", "visitor:badvisitor0000000000AA", "--hours", "abc"], /--hours/],
      [["ban", "visitor:badvisitor0000000000AA", "--hours", "-1"], /--hours/],
      [["unban"], /takes 1 argument/],
      [["backup"], /takes 1 argument/],
      [["reports", "extra"], /no arguments/],
      [["launch"], /unknown command/],
      [["--port", "abc"], /PORT/],
      [["--colour", "blue"], /unknown option --colour/],
      [["stats", "--hours", "3"], /--hours goes with ban/],
    ];
    for (const [args, message] of cases) {
      const result = admin(folder, ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.err, args.join(" ")).toMatch(message);
    }
  });
});
