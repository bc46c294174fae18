import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knownMigrations, migrateTo, migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { PortInUseError, startApp } from "../../src/server/app.ts";
import {
  integrityOf,
  listSnapshots,
  restoreSnapshot,
  takeLockAlone,
  takeSnapshot,
} from "../../src/server/backups.ts";
import { loadConfig } from "../../src/server/config.ts";
import { chatTester, listening, pairListening, visitorId } from "../helpers/chat-client.ts";
import { eventually } from "../helpers/eventually.ts";
import { sampled, scrape } from "../helpers/metrics.ts";
import { startServerProcess } from "../helpers/process.ts";
import {
  bottleInput,
  bottleWriter,
  CookieJar,
  signedVisitorCookie,
  TEST_SECRET,
  trpcClient,
} from "../helpers/server.ts";

// The site as an operator runs it: a real process, stopped with SIGTERM, logging, backing up
// and restored with the `tidings` command. These run on SQLite whatever the suites run on:
// snapshots and restore are SQLite's (PostgreSQL has pg_dump).
const work = mkdtempSync(join(tmpdir(), "tidings-ops-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sqlite = { DB_URL: "", REDIS_URL: "" };

/** Runs `tidings <command>` as the operator would, beside the site. */
async function tidings(dataDir: string, ...args: string[]) {
  const child = Bun.spawn(["bun", "src/server/main.ts", ...args], {
    env: { ...process.env, ...sqlite, DATA_DIR: dataDir, LOG_FORMAT: "off" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, out: out + err };
}

/** Waits for `check` to hold, asking again as soon as each answer comes (bounded). */
async function until<T>(ask: () => Promise<T>, check: (value: T) => boolean) {
  const { value } = await eventually(
    async () => {
      const value = await ask();
      return check(value) ? { value } : null;
    },
    "the condition",
    10_000,
  );
  return value;
}

describe("SIGTERM", () => {
  test("ready answers 503 at once, the site serves through the drain, then sockets close as restarting", async () => {
    const dataDir = mkdtempSync(join(work, "drain-"));
    const site = await startServerProcess(
      {
        ...sqlite,
        SHUTDOWN_DRAIN: "2s",
        LOG_FORMAT: "off",
        TRUST_PROXY: "true",
        SECRET: TEST_SECRET,
      },
      dataDir,
    );
    // A visitor's open chat socket, as a browser holds it.
    const tester = await listening(chatTester(site.url, { address: "100.92.0.1" }));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      const socket = new WebSocket(`${site.url.replace(/^http/, "ws")}/trpc`, {
        headers: { Origin: site.url, Cookie: signedVisitorCookie("drainwatcher0000000000") },
      } as unknown as string[]);
      socket.addEventListener("close", (event) =>
        resolve({ code: event.code, reason: event.reason }),
      );
    });
    expect((await fetch(`${site.url}/healthz/ready`)).status).toBe(200);

    site.process.kill("SIGTERM");
    const ready = await until(
      () => fetch(`${site.url}/healthz/ready`),
      (r) => r.status === 503,
    );
    expect(await ready.json()).toMatchObject({ checks: { serving: "shutting down" } });
    // Still serving: the process answers, a bottle is thrown.
    expect((await fetch(`${site.url}/healthz/live`)).status).toBe(200);
    const thrown = await (await bottleWriter(site.url)).bottles.throw.mutate(
      bottleInput("In the drain"),
    );
    expect(thrown.id).toBeGreaterThan(0);

    expect(await closed).toEqual({ code: 1012, reason: "server restarting" });
    expect(await site.process.exited).toBe(0);
    expect(site.output()).toContain("not ready any more");
    tester.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  test("a stopped site closes its database with the log folded in: nothing is left beside it", async () => {
    const dataDir = mkdtempSync(join(work, "fold-"));
    const site = await startServerProcess({ ...sqlite, LOG_FORMAT: "off" }, dataDir);
    const writer = await bottleWriter(site.url);
    await writer.bottles.throw.mutate(bottleInput("Folded in at the stop"));
    expect(existsSync(join(dataDir, "tidings.db-wal"))).toBe(true);
    site.process.kill("SIGTERM");
    expect(await site.process.exited).toBe(0);
    // The last step of the stop: with nothing else left running, the process must still wait
    // for the checkpoint thread before it closes the database.
    expect(existsSync(join(dataDir, "tidings.db-wal"))).toBe(false);
    const reopened = openDatabase(join(dataDir, "tidings.db"));
    const rows = await reopened.db.selectFrom("bottles").select("message").execute();
    await reopened.close();
    expect(rows.map((r) => r.message)).toEqual(["Folded in at the stop"]);
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);
});

describe("logs", () => {
  test("LOG_FORMAT=json: one JSON object a line, with level and request id, never an address", async () => {
    const site = await startServerProcess({ ...sqlite, LOG_FORMAT: "json", TRUST_PROXY: "true" });
    try {
      const answer = await fetch(`${site.url}/healthz/live`, {
        headers: { "X-Request-Id": "probe-1234", "X-Forwarded-For": "192.0.2.77" },
      });
      expect(answer.headers.get("x-request-id")).toBe("probe-1234");
      const own = await fetch(`${site.url}/en`, { headers: { "X-Forwarded-For": "192.0.2.78" } });
      const ownId = own.headers.get("x-request-id") ?? "";
      expect(ownId).toMatch(/^[a-z0-9]+-[a-z0-9]+$/);
      const lines = await until(
        async () =>
          site
            .output()
            .split("\n")
            .filter((line) => line.startsWith("{")),
        (found) => found.some((line) => line.includes(ownId)),
      );
      const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(events.find((e) => e.reqId === "probe-1234")).toMatchObject({
        level: "info",
        method: "GET",
        route: "/healthz/live",
        status: 200,
        msg: expect.stringContaining("GET /healthz/live 200"),
      });
      expect(events.find((e) => e.reqId === ownId)).toMatchObject({ route: "/en", status: 200 });
      for (const e of events) expect(typeof e.time).toBe("string");
      expect(site.output()).not.toContain("192.0.2.7");
    } finally {
      await site.stop();
    }
  }, 30_000);

  test("by default, short lines for people", async () => {
    const site = await startServerProcess({ ...sqlite, LOG_FORMAT: "text", TRUST_PROXY: "true" });
    try {
      await fetch(`${site.url}/healthz/live`, {
        headers: { "X-Request-Id": "people-42", "X-Forwarded-For": "192.0.2.79" },
      });
      const line = await until(
        async () =>
          site
            .output()
            .split("\n")
            .find((l) => l.includes("[people-42]")),
        (found) => found !== undefined,
      );
      expect(line).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z GET \/healthz\/live 200 [\d.]+ms .*\[people-42\]$/,
      );
      expect(site.output()).not.toContain("192.0.2.79");
    } finally {
      await site.stop();
    }
  }, 30_000);
});

// Five different bottles (the same text thrown again and again is refused as spam).
const sayings = [
  "The tide keeps every secret",
  "A lighthouse dreams of ships",
  "Salt on the wind this morning",
  "Gulls argue over the harbour",
  "Moonlight folds over the bay",
];

describe("backups that restore", () => {
  test("bottles written, backed up on schedule, data deleted, restored: all found again", async () => {
    const dataDir = mkdtempSync(join(work, "site-"));
    const backupDir = join(dataDir, "backups");
    const token = "a-scrape-token-for-the-test";
    const env = { ...sqlite, LOG_FORMAT: "off", METRICS_TOKEN: token };
    const withBackups = { ...env, BACKUP_EVERY: "1h", BACKUP_KEEP: "3" };
    const stopped = async (site: Awaited<ReturnType<typeof startServerProcess>>) => {
      site.process.kill("SIGTERM");
      expect(await site.process.exited).toBe(0);
    };
    // The writer's own cookie: My bottles lists what this browser threw.
    const jar = new CookieJar();
    let site = await startServerProcess(env, dataDir);
    const writer = await bottleWriter(site.url, {}, jar);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await writer.bottles.throw.mutate(bottleInput(sayings[i] ?? ""))).id);
    }
    await stopped(site);

    // Started again with snapshots on: a folder without one gets its first at once.
    site = await startServerProcess(withBackups, dataDir);
    const [snapshot] = await until(
      async () => listSnapshots(backupDir),
      (found) => found.length === 1,
    );
    expect(integrityOf(snapshot?.file ?? "")).toBe("ok");
    const samples = await scrape(`${site.url}/metrics`, token);
    expect(sampled(samples, "tidings_backups_total", { outcome: "ok" })).toBe(1);
    expect(sampled(samples, "tidings_backup_age_seconds")).toBeLessThan(60);
    const stats = await tidings(dataDir, "stats", "--port", new URL(site.url).port);
    expect(stats.out).toMatch(
      /last backup:\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC \(0 min ago\), .*tidings-/,
    );

    // Restore refuses while the site runs, and changes nothing.
    const refused = await tidings(dataDir, "restore", snapshot?.file ?? "");
    expect(refused.code).toBe(2);
    expect(refused.out).toContain("the site is running");
    expect((await trpcClient(site.url, {}, jar).bottles.mine.query({})).bottles.length).toBe(5);
    await stopped(site);

    // The data is lost.
    for (const name of ["tidings.db", "tidings.db-wal", "tidings.db-shm"]) {
      rmSync(join(dataDir, name), { force: true });
    }
    const restored = await tidings(dataDir, "restore", snapshot?.file ?? "");
    expect(restored.out).toContain(`restored ${snapshot?.file}`);
    expect(restored.code).toBe(0);
    expect(restored.out).toContain("there was no database to replace");

    site = await startServerProcess(withBackups, dataDir);
    try {
      const mine = await trpcClient(site.url, {}, jar).bottles.mine.query({});
      expect(mine.bottles.map((b) => b.id).sort((a, b) => a - b)).toEqual(ids);
      expect(mine.bottles.map((b) => b.message).sort()).toEqual([...sayings].sort());
      // The snapshot restored from is still there; none was taken over it.
      expect(listSnapshots(backupDir).length).toBe(1);
    } finally {
      await site.stop();
    }
  }, 90_000);

  test("restore keeps the database it replaces, and refuses a damaged snapshot", async () => {
    const dataDir = mkdtempSync(join(work, "replace-"));
    const database = openDatabase(join(dataDir, "tidings.db"));
    const { migrateToLatest } = await import("../../db/migrate.ts");
    await migrateToLatest(database);
    const snapshot = join(work, "replace-snapshot.db");
    await database.backup(snapshot);
    await database.close();

    const done = await tidings(dataDir, "restore", snapshot);
    expect(done.code).toBe(0);
    const kept = readdirSync(dataDir).filter((name) => name.startsWith("tidings.db.replaced-"));
    expect(kept.length).toBe(1);
    expect(done.out).toContain(kept[0] ?? "kept");
    expect(integrityOf(join(dataDir, kept[0] ?? ""))).toBe("ok");

    const damaged = join(work, "damaged.db");
    writeFileSync(damaged, "SQLite format 3\u0000 but nothing after it");
    const refused = await tidings(dataDir, "restore", damaged);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain("not a sound Tidings database");
    await expect(
      restoreSnapshot(damaged, join(dataDir, "tidings.db"), Date.now()),
    ).rejects.toThrow();
  }, 30_000);

  test("restore refuses a snapshot whose triggers, views or indexes are not the migrations' own", async () => {
    const dataDir = mkdtempSync(join(work, "schema-"));
    const database = openDatabase(join(dataDir, "tidings.db"));
    await migrateToLatest(database);
    const snapshotWith = async (name: string, extra: string) => {
      const file = join(work, `${name}.db`);
      await database.backup(file);
      const copy = new Database(file);
      copy.run(extra);
      copy.close();
      return file;
    };
    // Tried as an attacker would: a copy that makes every new account an operator and lets
    // no moderation action reach the audit log.
    const promoting = await snapshotWith(
      "promoting",
      `CREATE TRIGGER promote_new_accounts AFTER INSERT ON users BEGIN
         UPDATE users SET is_operator = 1 WHERE id = NEW.id;
       END`,
    );
    const copy = new Database(promoting);
    copy.run(`CREATE TRIGGER forget_actions AFTER INSERT ON moderation_actions BEGIN
      DELETE FROM moderation_actions WHERE id = NEW.id;
    END`);
    copy.close();
    const refused = await tidings(dataDir, "restore", promoting);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain("schema is not the one Tidings makes");
    expect(refused.out).toContain("trigger promote_new_accounts on users");
    expect(refused.out).toContain("trigger forget_actions on moderation_actions");
    // Nothing was replaced.
    expect(readdirSync(dataDir).some((n) => n.includes(".replaced-"))).toBe(false);

    const target = join(dataDir, "tidings.db");
    for (const [name, extra, found] of [
      ["viewing", "CREATE VIEW everyone AS SELECT * FROM users", "view everyone on everyone"],
      ["indexed", "CREATE INDEX by_hash ON users (password_hash)", "index by_hash on users"],
      ["dropped", "DROP INDEX sessions_user_id", "missing: index sessions_user_id"],
    ] as const) {
      const file = await snapshotWith(name, extra);
      await expect(restoreSnapshot(file, target, Date.now())).rejects.toThrow(found);
    }
    await database.close();

    // A copy made by an older version, migrated only so far, is still its own.
    const older = openDatabase(join(work, "older-live.db"));
    await migrateTo(older, knownMigrations("sqlite").at(-2) ?? null);
    const olderCopy = join(work, "older.db");
    await older.backup(olderCopy);
    await older.close();
    expect(await restoreSnapshot(olderCopy, target, Date.now())).toContain(".replaced-");
  }, 30_000);

  test("a file merely named like a snapshot, empty or dated ahead, neither stops the schedule nor hides the age", async () => {
    // Tried as an attacker would: an empty file dated ahead in BACKUP_DIR, an empty one named
    // a minute ago, and a real copy whose modification time was set ahead.
    const dataDir = mkdtempSync(join(work, "planted-"));
    const backupDir = join(dataDir, "backups");
    const database = openDatabase(join(dataDir, "tidings.db"));
    await migrateToLatest(database);
    const stampOf = (ms: number) => new Date(ms).toISOString().replace(/[-:.]/g, "");
    // Ten days ahead: far enough to hold off a 1h schedule, near enough for one timer.
    const ahead = join(backupDir, `tidings-${stampOf(Date.now() + 10 * 24 * 3_600_000)}.db`);
    const empty = join(backupDir, `tidings-${stampOf(Date.now() - 60_000)}.db`);
    const touched = join(backupDir, `tidings-${stampOf(Date.now() - 120_000)}.db`);
    mkdirSync(backupDir, { recursive: true });
    writeFileSync(ahead, "");
    writeFileSync(empty, "");
    await database.backup(touched);
    await database.close();
    const later = Date.now() / 1000 + 365 * 24 * 3600;
    utimesSync(touched, later, later);
    const planted = [ahead, empty, touched];

    const token = "a-scrape-token-for-the-test";
    const site = await startServerProcess(
      { ...sqlite, BACKUP_EVERY: "1h", METRICS_TOKEN: token, LOG_FORMAT: "json" },
      dataDir,
    );
    try {
      // The first snapshot comes at once, as in a folder without one.
      const [taken] = await until(
        async () => listSnapshots(backupDir).filter((s) => !planted.includes(s.file)),
        (found) => found.length === 1,
      );
      expect(integrityOf(taken?.file ?? "")).toBe("ok");
      const samples = await until(
        () => scrape(`${site.url}/metrics`, token),
        (found) => sampled(found, "tidings_backups_total", { outcome: "ok" }) === 1,
      );
      expect(sampled(samples, "tidings_backup_last_success_timestamp_seconds")).toBeLessThan(
        Date.now() / 1000 + 60,
      );
      expect(sampled(samples, "tidings_backup_future_snapshots")).toBe(2);
      const line = site
        .output()
        .split("\n")
        .find((l) => l.includes("dated in the future"));
      expect(line).toContain(ahead);
      const stats = await tidings(dataDir, "stats");
      expect(stats.out).toContain(`last backup:`);
      expect(stats.out).toContain(taken?.file ?? "taken");
      expect(stats.out).toContain(`WARNING: ${ahead} is dated in the future`);
      // Files it does not know as snapshots are left for the operator to look at.
      for (const file of planted) expect(existsSync(file)).toBe(true);
    } finally {
      await site.stop();
    }
  }, 30_000);

  test("snapshots are checked, the oldest beyond BACKUP_KEEP go, a failure is logged and counted", async () => {
    const dataDir = mkdtempSync(join(work, "keep-"));
    const database = openDatabase(join(dataDir, "tidings.db"));
    const { migrateToLatest } = await import("../../db/migrate.ts");
    await migrateToLatest(database);
    const dir = join(dataDir, "snapshots");
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 4; i++) await takeSnapshot(database, dir, 3, start + i * 3_600_000);
    expect(listSnapshots(dir).map((s) => s.takenAt)).toEqual([
      start + 3_600_000,
      start + 2 * 3_600_000,
      start + 3 * 3_600_000,
    ]);
    await database.close();

    // A backup folder that cannot be made (a file stands in its place): logged and counted.
    const blocked = join(dataDir, "not-a-folder");
    writeFileSync(blocked, "a file");
    const site = await startServerProcess(
      {
        ...sqlite,
        BACKUP_EVERY: "1h",
        BACKUP_DIR: join(blocked, "backups"),
        METRICS_TOKEN: "a-scrape-token-for-the-test",
        LOG_FORMAT: "json",
      },
      dataDir,
    );
    try {
      const samples = await until(
        () => scrape(`${site.url}/metrics`, "a-scrape-token-for-the-test"),
        (found) => (sampled(found, "tidings_backups_total", { outcome: "failed" }) ?? 0) >= 1,
      );
      expect(sampled(samples, "tidings_backups_total", { outcome: "ok" })).toBeUndefined();
      expect(sampled(samples, "tidings_backup_age_seconds")).toBeNaN();
      const line = site
        .output()
        .split("\n")
        .find((l) => l.includes("scheduled backup failed"));
      expect(JSON.parse(line ?? "{}")).toMatchObject({ level: "error" });
    } finally {
      await site.stop();
    }
  }, 30_000);
});

describe("file modes", () => {
  test("the data folder, the database with its log, the secret and every copy are the owner's alone", async () => {
    // Tried as an attacker would: another account on the machine reading what the site wrote,
    // from a shell whose umask lets everyone read.
    const parent = mkdtempSync(join(work, "modes-"));
    const dataDir = join(parent, "data");
    const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
    const token = "a-scrape-token-for-the-test";
    const site = await startServerProcess(
      { ...sqlite, LOG_FORMAT: "off", BACKUP_EVERY: "1h", METRICS_TOKEN: token },
      dataDir,
    );
    try {
      const [snapshot] = await until(
        async () => listSnapshots(join(dataDir, "backups")),
        (found) => found.length === 1,
      );
      await (await bottleWriter(site.url)).bottles.throw.mutate(bottleInput(sayings[0] ?? ""));
      expect(mode(dataDir)).toBe("700");
      for (const name of ["tidings.db", "tidings.db-wal", "tidings.db-shm", "secret"]) {
        expect([name, mode(join(dataDir, name))]).toEqual([name, "600"]);
      }
      expect(mode(join(dataDir, "backups"))).toBe("700");
      expect(mode(snapshot?.file ?? "")).toBe("600");
      const copy = join(parent, "by-hand.db");
      expect((await tidings(dataDir, "backup", copy)).code).toBe(0);
      expect(mode(copy)).toBe("600");
    } finally {
      await site.stop();
    }
  }, 30_000);

  test("so are they when the database is opened in process, whatever the umask", async () => {
    const dir = join(mkdtempSync(join(work, "modes-in-")), "nested", "data");
    const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
    const database = openDatabase(join(dir, "tidings.db"));
    const { migrateToLatest } = await import("../../db/migrate.ts");
    await migrateToLatest(database);
    try {
      expect(mode(dir)).toBe("700");
      for (const suffix of ["", "-wal", "-shm"])
        expect(mode(join(dir, `tidings.db${suffix}`))).toBe("600");
      const snapshot = await takeSnapshot(database, join(dir, "snapshots"), 1, Date.now());
      expect(mode(join(dir, "snapshots"))).toBe("700");
      expect(mode(snapshot.file)).toBe("600");
    } finally {
      await database.close();
    }
  });
});

describe("restart", () => {
  test("a block outlasts a restart: the blocked partner is still never paired with the blocker", async () => {
    // The chat of one SQLite site lives in its memory; the blocks it keeps are in the database.
    const dataDir = mkdtempSync(join(work, "blocks-"));
    const config = loadConfig({
      ...sqlite,
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_FORMAT: "off",
      TRUST_PROXY: "true",
      SECRET: TEST_SECRET,
      // Its chat clients start as scripts do (proof of work is tested in pow.test.ts).
      POW: "false",
    });
    const who = { a: visitorId(), b: visitorId() };
    const visit = (url: URL, id: string, address: string) =>
      listening(chatTester(url.origin, { visitorId: id, address }));
    const first = await startApp(config);
    const a = await visit(first.url, who.a, "100.70.0.1");
    const b = await visit(first.url, who.b, "100.70.0.2");
    await pairListening(a, b);
    await a.api.chat.block.mutate();
    a.close();
    b.close();
    await first.stop();

    const again = await startApp(config);
    const testers = [
      await visit(again.url, who.a, "100.70.0.1"),
      await visit(again.url, who.b, "100.70.0.2"),
    ];
    try {
      const [a2, b2] = testers as [typeof a, typeof b];
      expect(await a2.start()).toEqual({ state: "waiting" });
      expect(await b2.start()).toEqual({ state: "waiting" });
      await b2.api.chat.end.mutate();
      // Someone else is paired with the blocker at once.
      testers.push(await visit(again.url, visitorId(), "100.70.0.3"));
      expect((await testers[2]?.start())?.state).toBe("chatting");
    } finally {
      for (const t of testers) t.close();
      await again.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("start", () => {
  test("BACKUP_EVERY on a PostgreSQL site is refused with what to do instead", async () => {
    const child = Bun.spawn(["bun", "src/server/main.ts"], {
      env: {
        ...process.env,
        DATA_DIR: mkdtempSync(join(work, "pg-")),
        DB_URL: "postgres://nobody@127.0.0.1:1/none",
        REDIS_URL: "redis://127.0.0.1:1",
        BACKUP_EVERY: "6h",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [err, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(code).toBe(2);
    expect(err).toContain("pg_dump");
  }, 30_000);

  test("a second site on a port in use is refused, saying which, and the first keeps every visitor", async () => {
    const first = await startServerProcess({ ...sqlite, LOG_FORMAT: "off" });
    try {
      const port = new URL(first.url).port;
      const second = await tidingsOn({ PORT: port });
      expect(second.code).toBe(2);
      expect(second.err).toContain(`port ${port} on 127.0.0.1 is already in use`);
      // Shared (SO_REUSEPORT), the kernel would have handed some of these to the second site.
      for (let i = 0; i < 20; i++) {
        expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
      }
      expect(first.process.exitCode).toBeNull();
    } finally {
      await first.stop();
    }
  }, 30_000);

  test("a host that is not this machine's is refused with what to check", async () => {
    // 203.0.113.0/24 is for documentation: no machine running the tests has it.
    const refused = await tidingsOn({ HOST: "203.0.113.5", PORT: "0" });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("203.0.113.5 is not an address of this machine; check --host");
  }, 30_000);

  test("so is one whose metrics port is in use; the start lets go of its database", async () => {
    // A port free a moment ago, for the first site's metrics.
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = String(probe.port);
    await probe.stop(true);
    const first = await startServerProcess({ ...sqlite, LOG_FORMAT: "off", METRICS_PORT: port });
    const dataDir = mkdtempSync(join(work, "second-"));
    try {
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      const config = {
        ...sqlite,
        DATA_DIR: dataDir,
        HOST: "127.0.0.1",
        PORT: "0",
        LOG_FORMAT: "off",
      };
      const refused = startApp(loadConfig({ ...config, METRICS_PORT: port }));
      await expect(refused).rejects.toBeInstanceOf(PortInUseError);
      await expect(refused).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
      // Nothing of it is left holding the folder: a restore could take it at once.
      const alone = takeLockAlone(dataDir);
      expect(alone).not.toBeNull();
      alone?.release();
      const again = await tidingsOn({ PORT: "0", METRICS_PORT: port }, dataDir);
      expect(again.code).toBe(2);
      expect(again.err).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await first.stop();
    }
  }, 30_000);
});

/** Starts the site in a folder of its own as the operator would; answers how it ended. */
async function tidingsOn(env: Record<string, string>, dataDir = mkdtempSync(join(work, "on-"))) {
  const child = Bun.spawn([process.execPath, "src/server/main.ts"], {
    env: {
      ...process.env,
      ...sqlite,
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      LOG_FORMAT: "off",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Started after all (the test fails on the code): stopped, so it does not outlive the test.
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [err, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, err };
}
