import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { openDatabase } from "../../db/migrate.ts";
import { migrationsFor } from "../../db/migrations/index.ts";
import { audited, detailsText, listActions, recordAction } from "../../src/core/admin/audit.ts";
import { setBottleHidden } from "../../src/core/admin/operator.ts";
import { freshTarget, openTestDatabase } from "../helpers/database.ts";

const NOW = Date.UTC(2026, 10, 23, 15, 14);

// The record of an operator's action holds facts checked by a schema per action, written in the
// same transaction as the action: neither exists without the other.
describe("the audit trail", () => {
  let backend: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    backend = await openTestDatabase();
  });
  afterAll(() => backend.dispose());

  async function bottle(message: string): Promise<number> {
    const row = await backend.db
      .insertInto("bottles")
      .values({
        message,
        drift_hours: 0,
        country: "Unknown",
        country_code: null,
        ip_key: "ip-key-of-the-writer",
        visitor_id: "writer-visitor-id-000",
        locale: "en",
        is_public: 0,
        available_at: NOW - 1000,
        created_at: NOW - 1000,
        expires_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }
  const hiddenOf = async (id: number) =>
    (
      await backend.db
        .selectFrom("bottles")
        .select("hidden")
        .where("id", "=", id)
        .executeTakeFirstOrThrow()
    ).hidden;

  test("an action and its record are written together, and read back as facts", async () => {
    const id = await bottle("hidden with its record");
    await audited(backend.db, "keeper", `bottle:${id}`, NOW, async (trx) => {
      const done = await setBottleHidden(trx, id, true, NOW);
      if (!done) throw new Error("no bottle");
      return { action: "hide", details: done };
    });
    expect(await hiddenOf(id)).not.toBe(0);
    const [latest] = await listActions(backend.db);
    expect(latest).toMatchObject({
      operator: "keeper",
      action: "hide",
      subject: `bottle:${id}`,
      details: { closed: 0 },
      created_at: NOW,
    });
  });

  test("an action whose record cannot be written is undone: neither exists", async () => {
    const id = await bottle("not hidden without a record");
    const before = (await listActions(backend.db, { limit: 1000 })).length;
    const attempt = audited(backend.db, "keeper", `bottle:${id}`, NOW, async (trx) => {
      await setBottleHidden(trx, id, true, NOW);
      // Facts that break the action's schema: the record is refused, and so is the action.
      return { action: "ban", details: { keys: [], until: "later" } } as never;
    });
    expect(attempt).rejects.toThrow();
    await attempt.catch(() => {});
    expect(await hiddenOf(id)).toBe(0);
    expect((await listActions(backend.db, { limit: 1000 })).length).toBe(before);
  });

  test("a refused action leaves no record", async () => {
    const before = (await listActions(backend.db, { limit: 1000 })).length;
    const attempt = audited(backend.db, "keeper", "bottle:999999", NOW, async (trx) => {
      if (!(await setBottleHidden(trx, 999_999, true, NOW))) throw new Error("no such bottle");
      return { action: "hide", details: { closed: 0 } };
    });
    expect(attempt).rejects.toThrow("no such bottle");
    await attempt.catch(() => {});
    expect((await listActions(backend.db, { limit: 1000 })).length).toBe(before);
  });

  test("details that do not fit their action's schema are refused", async () => {
    expect(
      recordAction(
        backend.db,
        "keeper",
        "visitor:abcdefghijkl",
        { action: "dismiss", details: { closed: -1 } },
        NOW,
      ),
    ).rejects.toThrow();
  });

  test("the command line prints facts as words", () => {
    expect(detailsText({ keys: ["visitor:abcdefghijkl", "ip:x1y2z3w4v5u6"], until: NOW })).toBe(
      "keys=visitor:abcdefghijkl,ip:x1y2z3w4v5u6 until=2026-11-23T15:14:00.000Z",
    );
    expect(detailsText({ lifted: [] })).toBe("lifted=none");
    expect(detailsText(null)).toBe("");
  });
});

describe("records from before the facts had a schema", () => {
  test("are turned into facts once, by the migration", async () => {
    const { target, dispose } = await freshTarget();
    const backend = openDatabase(target);
    try {
      const migrations = migrationsFor(backend.engine);
      const migrator = new Migrator({
        db: backend.db,
        provider: { getMigrations: async () => migrations },
      });
      const before = Object.keys(migrations).filter((name) => name < "0012");
      const { error } = await migrator.migrateTo(before.at(-1) ?? "");
      expect(error).toBeUndefined();
      const until = Date.UTC(2026, 10, 23, 15, 14);
      for (const [action, detail] of [
        ["dismiss", "12 reports"],
        ["ban", `visitor:abcdefghijkl ip:mnopqrstuvwx until ${new Date(until).toISOString()}`],
        ["unban", ""],
        ["unban", "visitor:abcdefghijkl ip:x1y2z3w4v5u6"],
        ["hide", ""],
        ["switch off", ""],
      ]) {
        await sql`INSERT INTO moderation_actions (operator, action, subject, detail, created_at) VALUES ('keeper', ${action}, 'bottle:1', ${detail}, ${NOW})`.execute(
          backend.db,
        );
      }
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const actions = await listActions(backend.db, { since: 0 });
      expect(actions.map((a) => [a.action, a.details])).toEqual([
        ["dismiss", { closed: 12 }],
        ["ban", { keys: ["visitor:abcdefghijkl", "ip:mnopqrstuvwx"], until }],
        ["unban", { lifted: [] }],
        ["unban", { lifted: ["visitor:abcdefghijkl", "ip:x1y2z3w4v5u6"] }],
        ["hide", { closed: 0 }],
        ["switch off", {}],
      ]);
    } finally {
      await backend.close();
      await dispose();
    }
  });
});
