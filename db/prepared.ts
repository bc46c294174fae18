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
 * Works on a transaction too, like every query taking `db`.
 */
export function prepared<Values extends Record<string, unknown>, Row>(
  build: (db: DB, values: Values) => Compilable<Row>,
): (db: DB, values: Values) => Promise<Row[]> {
  let compiled: { sql: string; parameters: Array<StandIn | { fixed: unknown }> } | undefined;
  // The statement for the last database it ran on (the site has one), found without a lookup.
  let last: { sqlite: object; runnable: Runnable } | undefined;
  return async (db, values) => {
    if (!compiled) {
      const standIns = new Proxy({}, { get: (_, name) => new StandIn(String(name)) }) as Values;
      const query = build(db, standIns).compile();
      compiled = {
        sql: query.sql,
        parameters: query.parameters.map((p) => (p instanceof StandIn ? p : { fixed: p })),
      };
    }
    const parameters = compiled.parameters.map((p) =>
      p instanceof StandIn ? values[p.name] : p.fixed,
    );
    // Outside a transaction the statement runs on bun:sqlite directly, without Kysely's
    // per-query executor objects; inside one, through the transaction's connection.
    const sqlite = sqliteOf(db);
    if (sqlite) {
      if (last?.sqlite !== sqlite) last = { sqlite, runnable: ownRunnable(sqlite, compiled.sql) };
      return runStatement<Row>(last.runnable, parameters as SQLQueryBindings[]).rows;
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters));
    return result.rows;
  };
}
