import type { SQLQueryBindings } from "bun:sqlite";
import { type Compilable, CompiledQuery } from "kysely";
import { ownRunnable, type Runnable, runStatement, sqliteOf } from "./dialect.ts";
import type { DB } from "./schema.ts";

/** Where a value goes in a prepared query: named by the caller, or fixed when it was built. */
class StandIn {
  constructor(readonly name: string) {}
}

/**
 * A Kysely query built and compiled once, then run with new values. On the hot read paths,
 * building and compiling the query cost several times what SQLite takes to answer it; this
 * keeps the compiled SQL (bun:sqlite keeps its prepared statement, by the SQL text) and only
 * binds the new values. `build` is called once, with stand-ins for the values: it must pass
 * them to Kysely as they are and never branch on them (make one prepared query per shape).
 * Works on a transaction too, like every query taking `db`, and on either engine: the SQL is
 * compiled once for each database handle it meets, since each engine's compiler writes its own.
 */
export function prepared<Values extends Record<string, unknown>, Row>(
  build: (db: DB, values: Values) => Compilable<Row>,
): (db: DB, values: Values) => Promise<Row[]> {
  // What each handle needs (the site has one, found without a lookup as `last`; transactions
  // and a second database in tests and benchmarks are kept weakly).
  let last: { db: DB; compiled: Compiled; runnable?: Runnable } | undefined;
  const byHandle = new WeakMap<DB, NonNullable<typeof last>>();
  return async (db, values) => {
    if (last?.db !== db) {
      let entry = byHandle.get(db);
      if (!entry) {
        entry = { db, compiled: compile(db, build) };
        byHandle.set(db, entry);
      }
      last = entry;
    }
    const { compiled } = last;
    const parameters = compiled.parameters.map((p) =>
      p instanceof StandIn ? values[p.name] : p.fixed,
    );
    // On SQLite, outside a transaction, the statement runs on bun:sqlite directly, without
    // Kysely's per-query executor objects; otherwise through Kysely's connection.
    const sqlite = sqliteOf(db);
    if (sqlite) {
      last.runnable ??= ownRunnable(sqlite, compiled.sql);
      return runStatement<Row>(last.runnable, parameters as SQLQueryBindings[]).rows;
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters));
    return result.rows;
  };
}

interface Compiled {
  sql: string;
  parameters: Array<StandIn | { fixed: unknown }>;
}

/** Builds the query with stand-ins for the values and compiles it for this handle's engine. */
function compile<Values extends Record<string, unknown>, Row>(
  db: DB,
  build: (db: DB, values: Values) => Compilable<Row>,
): Compiled {
  const standIns = new Proxy({}, { get: (_, name) => new StandIn(String(name)) }) as Values;
  const query = build(db, standIns).compile();
  return {
    sql: query.sql,
    parameters: query.parameters.map((p) => (p instanceof StandIn ? p : { fixed: p })),
  };
}
