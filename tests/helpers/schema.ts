import { sql } from "kysely";
import type { DatabaseBackend } from "../../db/backend.ts";

/** A column as both engines can be compared: its name, kind of value and nullability. */
export interface ColumnShape {
  name: string;
  kind: "integer" | "text" | "bytes" | string;
  nullable: boolean;
  /** A generated id (SQLite's autoincrement, PostgreSQL's identity). */
  generated: boolean;
  /** Has a default other than a generated id. */
  hasDefault: boolean;
}

export interface TableShape {
  columns: ColumnShape[];
  primaryKey: string[];
  /** Column lists of unique constraints (not of unique indexes made by name). */
  uniques: string[][];
  /** "column -> table.column on delete action", sorted. */
  foreignKeys: string[];
}

/** An index made by name: columns in order (with DESC), unique or not, and its condition. */
export interface IndexShape {
  table: string;
  columns: string[];
  unique: boolean;
  where: string | null;
}

export interface SchemaShape {
  tables: Record<string, TableShape>;
  indexes: Record<string, IndexShape>;
}

/** int4 and int8 are integers, blob and bytea bytes: what the app stores, not how. */
function kindOf(dataType: string): string {
  const t = dataType.toLowerCase();
  if (/int/.test(t)) return "integer";
  if (t === "blob" || t === "bytea") return "bytes";
  return t;
}

/** A partial index's condition without the engine's own parentheses and case. */
function normalizeCondition(text: string | null | undefined): string | null {
  if (!text) return null;
  return text.replace(/[()]/g, "").replace(/\s+/g, " ").trim().toLowerCase();
}

/** The tables, columns, keys and indexes of a migrated database, read from the engine. */
export async function describeSchema(backend: DatabaseBackend): Promise<SchemaShape> {
  const { db } = backend;
  const shape: SchemaShape = { tables: {}, indexes: {} };
  for (const table of await db.introspection.getTables()) {
    shape.tables[table.name] = {
      columns: table.columns.map((c) => ({
        name: c.name,
        kind: kindOf(c.dataType),
        nullable: c.isNullable,
        generated: c.isAutoIncrementing,
        hasDefault: c.hasDefaultValue && !c.isAutoIncrementing,
      })),
      primaryKey: [],
      uniques: [],
      foreignKeys: [],
    };
  }
  if (backend.engine === "sqlite") await describeSqlite(backend, shape);
  else await describePostgres(backend, shape);
  for (const table of Object.values(shape.tables)) {
    // A primary key column is never null: PostgreSQL says so; SQLite reports a single-column key
    // declared without NOT NULL as nullable (an integer one is the rowid and cannot be null; a
    // text one could hold NULL by an old SQLite quirk, which the app never writes).
    for (const column of table.columns)
      if (table.primaryKey.includes(column.name)) column.nullable = false;
    table.uniques.sort((a, b) => a.join().localeCompare(b.join()));
    table.foreignKeys.sort();
  }
  return shape;
}

async function describeSqlite(backend: DatabaseBackend, shape: SchemaShape): Promise<void> {
  const { db } = backend;
  for (const [name, table] of Object.entries(shape.tables)) {
    const info = await sql<{
      name: string;
      pk: number;
    }>`PRAGMA table_info(${sql.lit(name)})`.execute(db);
    table.primaryKey = info.rows
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const keys = await sql<{ table: string; from: string; to: string; on_delete: string }>`
      PRAGMA foreign_key_list(${sql.lit(name)})`.execute(db);
    table.foreignKeys = keys.rows.map(
      (k) => `${k.from} -> ${k.table}.${k.to} on delete ${k.on_delete.toLowerCase()}`,
    );
    const list = await sql<{ name: string; unique: number; origin: string }>`
      PRAGMA index_list(${sql.lit(name)})`.execute(db);
    for (const index of list.rows) {
      const info = await sql<{ name: string | null; desc: number; key: number; seqno: number }>`
        PRAGMA index_xinfo(${sql.lit(index.name)})`.execute(db);
      const columns = info.rows
        .filter((c) => c.key === 1)
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => `${c.name}${c.desc ? " DESC" : ""}`);
      if (index.origin === "u") table.uniques.push(columns);
      if (index.origin !== "c") continue; // primary keys are read above
      const made = await sql<{ sql: string }>`
        SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ${index.name}`.execute(db);
      const where = /\bWHERE\b(.*)$/is.exec(made.rows[0]?.sql ?? "")?.[1];
      shape.indexes[index.name] = {
        table: name,
        columns,
        unique: index.unique === 1,
        where: normalizeCondition(where),
      };
    }
  }
}

async function describePostgres(backend: DatabaseBackend, shape: SchemaShape): Promise<void> {
  const { db } = backend;
  const indexes = await sql<{
    name: string;
    table: string;
    definition: string;
    primary: boolean;
    constraint: boolean;
  }>`
    SELECT i.relname AS name, t.relname AS table, pg_get_indexdef(ix.indexrelid) AS definition,
           ix.indisprimary AS primary,
           EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid) AS constraint
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()`.execute(db);
  for (const index of indexes.rows) {
    const table = shape.tables[index.table];
    if (!table) continue; // Kysely's own migration tables
    // CREATE [UNIQUE] INDEX name ON schema.table USING btree (a DESC, b) [WHERE (...)]
    const match = /^CREATE (UNIQUE )?INDEX \S+ ON \S+ USING \w+ \((.*?)\)(?: WHERE (.*))?$/s.exec(
      index.definition,
    );
    if (!match) throw new Error(`unexpected index definition: ${index.definition}`);
    const columns = (match[2] ?? "").split(",").map((c) => c.trim());
    if (index.primary) table.primaryKey = columns;
    else if (index.constraint) table.uniques.push(columns);
    else
      shape.indexes[index.name] = {
        table: index.table,
        columns,
        unique: Boolean(match[1]),
        where: normalizeCondition(match[3]),
      };
  }
  const keys = await sql<{ table: string; column: string; target: string; on_delete: string }>`
    SELECT tc.table_name AS table, kcu.column_name AS column,
           ccu.table_name || '.' || ccu.column_name AS target, rc.delete_rule AS on_delete
    FROM information_schema.table_constraints tc
    JOIN information_schema.key_column_usage kcu
      ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
    JOIN information_schema.constraint_column_usage ccu
      ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
    JOIN information_schema.referential_constraints rc
      ON rc.constraint_name = tc.constraint_name AND rc.constraint_schema = tc.table_schema
    WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`.execute(db);
  for (const key of keys.rows) {
    shape.tables[key.table]?.foreignKeys.push(
      `${key.column} -> ${key.target} on delete ${key.on_delete.toLowerCase()}`,
    );
  }
}
