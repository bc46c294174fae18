import type { Database as BunDatabase, SQLQueryBindings } from "bun:sqlite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";

/**
 * Kysely on bun:sqlite. Kysely's own SqliteDialect asks `stmt.reader`, which bun:sqlite does not
 * have, and so answers every SELECT with no rows; here a statement that names result columns
 * (a SELECT or anything with RETURNING) is read, everything else is run.
 */
export class BunSqliteDialect implements Dialect {
  constructor(private readonly sqlite: BunDatabase) {}

  createDriver(): Driver {
    return new BunSqliteDriver(this.sqlite);
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  // The adapter says SQLite has one connection, so Kysely queues callers behind a mutex.
  createAdapter() {
    return new SqliteAdapter();
  }
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's introspector takes a Kysely of any schema.
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

class BunSqliteDriver implements Driver {
  readonly #connection: BunSqliteConnection;

  constructor(private readonly sqlite: BunDatabase) {
    this.#connection = new BunSqliteConnection(sqlite);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // IMMEDIATE takes the write lock up front, so two processes never deadlock on an upgrade.
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    this.sqlite.close();
  }
}

class BunSqliteConnection implements DatabaseConnection {
  constructor(private readonly sqlite: BunDatabase) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return runStatement<R>(
      cachedRunnable(this.sqlite, compiled.sql),
      compiled.parameters as SQLQueryBindings[],
    );
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.sqlite.query(compiled.sql);
    for (const row of statement.iterate(...(compiled.parameters as SQLQueryBindings[]))) {
      yield { rows: [row as R] };
    }
  }
}

type Statement = ReturnType<BunDatabase["query"]>;

/** A statement with what running it needs to know. */
export interface Runnable {
  statement: Statement;
  /** It names result columns (SELECT, RETURNING): read its rows; otherwise run it. */
  readsRows: boolean;
}

// bun:sqlite builds a new array each time a statement's column names are asked for.
const readsRows = new WeakMap<Statement, boolean>();

/** Kysely's statements: bun:sqlite's query() keeps a bounded cache of them by SQL text. */
function cachedRunnable(sqlite: BunDatabase, sql: string): Runnable {
  const statement = sqlite.query(sql);
  let reads = readsRows.get(statement);
  if (reads === undefined) {
    reads = statement.columnNames.length > 0;
    readsRows.set(statement, reads);
  }
  return { statement, readsRows: reads };
}

/** A statement of our own for the life of the process (prepared queries: a fixed few). */
export function ownRunnable(sqlite: BunDatabase, sql: string): Runnable {
  const statement = sqlite.prepare(sql);
  return { statement, readsRows: statement.columnNames.length > 0 };
}

/** Runs one statement: read when it names result columns, else run. */
export function runStatement<R>(
  { statement, readsRows }: Runnable,
  parameters: SQLQueryBindings[],
): QueryResult<R> {
  if (readsRows) return { rows: statement.all(...parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(...parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

const connections = new WeakMap<object, BunDatabase>();

/** Remembers which bun:sqlite database a Kysely instance runs on (see sqliteOf). */
export function registerSqlite(db: object, sqlite: BunDatabase): void {
  connections.set(db, sqlite);
}

/**
 * The bun:sqlite database under a Kysely instance opened by openDatabase; undefined for a
 * transaction, whose statements must go through Kysely's connection for it.
 */
export function sqliteOf(db: object): BunDatabase | undefined {
  return connections.get(db);
}
