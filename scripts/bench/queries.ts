/**
 * The SQL the real code runs, captured as it runs: discoverBottle against a seeded database
 * (for an anonymous and for a signed-in reader) and throwBottle against a scratch one. Used to
 * print EXPLAIN QUERY PLAN for each statement on the read path, with the values it was bound
 * to, and to check the raw baselines still run the very same SQL.
 */
import type { Database } from "bun:sqlite";
import type { Kysely } from "kysely";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import type { Database as Schema } from "../../db/schema.ts";
import { discoverBottle, throwBottle } from "../../src/core/bottles/bottles.ts";
import { FindCounter } from "../../src/core/bottles/finds.ts";
import { RecentlyShown } from "../../src/core/bottles/pick.ts";
import { InMemoryChatBroker } from "../../src/core/chat/memory-broker.ts";
import { MemoryRateLimiter } from "../../src/core/limits/rate-limiter.ts";
import { LocalModerator } from "../../src/core/moderation/local.ts";
import { RepeatMemory } from "../../src/core/moderation/repeats.ts";
import { answerAgeGate } from "../../src/core/safety/ages.ts";
import { SEED_USERS } from "./seed.ts";

export interface Statement {
  sql: string;
  params: unknown[];
  plan: string[];
}

type Bindings = Parameters<ReturnType<Database["query"]>["all"]>;

/**
 * Records every statement run on this connection, with its bound values: Kysely's, which come
 * from `query` (cached by SQL text), and the prepared queries', which `prepare` statements of
 * their own (db/prepared.ts).
 */
function record(sqlite: Database): Seen {
  const seen: Seen = [];
  const wrap = (make: (sql: string) => ReturnType<Database["query"]>) => (sql: string) => {
    const statement = make(sql);
    const recorded =
      <A extends Bindings, R>(method: (...params: A) => R) =>
      (...params: A) => {
        seen.push({ sql, params });
        return method.apply(statement, params);
      };
    // The dialect reads columnNames and calls all/run (iterate for streams).
    return {
      columnNames: statement.columnNames,
      all: recorded(statement.all),
      get: recorded(statement.get),
      run: recorded(statement.run),
      iterate: statement.iterate.bind(statement),
    };
  };
  sqlite.query = wrap(sqlite.query.bind(sqlite)) as unknown as typeof sqlite.query;
  sqlite.prepare = wrap(sqlite.prepare.bind(sqlite)) as unknown as typeof sqlite.prepare;
  return seen;
}

function planOf(sqlite: Database, sql: string, params: unknown[]): string[] {
  const rows = sqlite
    .query<{ id: number; parent: number; detail: string }, Bindings>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...(params as Bindings));
  const depth = new Map<number, number>([[0, -1]]);
  return rows.map((row) => {
    const d = (depth.get(row.parent) ?? -1) + 1;
    depth.set(row.id, d);
    return `${"  ".repeat(d)}${row.detail}`;
  });
}

type Seen = Array<{ sql: string; params: unknown[] }>;
export type ReadPath = { anonymous: Statement[]; signedIn: Statement[] };

/**
 * The statements discoverBottle runs on `db` for an anonymous and for a signed-in reader, as
 * `seen` records them, each with the plan `planOf` gives for the values it was bound to.
 */
export async function captureReadPath(
  db: Kysely<Schema>,
  seen: Seen,
  planOf: (sql: string, params: unknown[]) => string[] | Promise<string[]>,
): Promise<ReadPath> {
  const deps = {
    limiter: new MemoryRateLimiter(),
    recentlyShown: new RecentlyShown(),
    finds: new FindCounter(db),
  };
  const now = Date.now();
  const capture = async (userId: string | null) => {
    seen.length = 0;
    await discoverBottle(
      db,
      deps,
      {
        visitorId: "explain-reader-000000",
        ipKey: "explain",
        userId,
        locale: "en",
        country: () => ({ code: "TW", name: "Taiwan", flag: "" }),
      },
      now,
    );
    const statements: Statement[] = [];
    for (const { sql, params } of [...seen]) {
      statements.push({ sql, params, plan: await planOf(sql, params) });
    }
    return statements;
  };
  return {
    anonymous: await capture(null),
    signedIn: await capture(`seed-user-${SEED_USERS - 1}`),
  };
}

/** The statements of the discover read path on this SQLite database, with their query plans. */
export async function readPath(file: string): Promise<ReadPath> {
  const { db, sqlite } = openDatabase(file);
  try {
    return await captureReadPath(db, record(sqlite), (sql, params) => planOf(sqlite, sql, params));
  } finally {
    await db.destroy();
  }
}

/** The INSERT that throwBottle runs. */
export async function writePathSql(): Promise<string[]> {
  const database = openDatabase(":memory:");
  const { db, sqlite } = database;
  try {
    await migrateToLatest(database);
    await answerAgeGate(db, "explain-writer-000000", "bottles", true, Date.now());
    const seen = record(sqlite);
    await throwBottle(
      db,
      {
        limiter: new MemoryRateLimiter(),
        moderator: new LocalModerator(),
        mutes: new InMemoryChatBroker(),
        repeats: new RepeatMemory(),
      },
      {
        visitorId: "explain-writer-000000",
        ipKey: "explain",
        userId: null,
        country: () => ({ code: "TW", name: "Taiwan", flag: "" }),
      },
      {
        message: "Hello from the sea",
        driftHours: 0,
        isPublic: true,
        expiryDays: 3,
        timeZone: "Asia/Taipei",
        locale: "en",
      },
      Date.now(),
    );
    // The age gate's look-up comes first; the raw baseline stands for the write itself.
    return seen.map((s) => s.sql).filter((sql) => sql.startsWith('insert into "bottles"'));
  } finally {
    await db.destroy();
  }
}
