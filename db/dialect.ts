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
    // db.query() caches the prepared statement by its SQL text.
    const statement = this.sqlite.query(compiled.sql);
    const parameters = compiled.parameters as SQLQueryBindings[];
    if (statement.columnNames.length > 0) {
      return { rows: statement.all(...parameters) as R[] };
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return {
      rows: [],
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
    };
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.sqlite.query(compiled.sql);
    for (const row of statement.iterate(...(compiled.parameters as SQLQueryBindings[]))) {
      yield { rows: [row as R] };
    }
  }
}
