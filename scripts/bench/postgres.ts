/**
 * PostgreSQL for the benchmarks: a throwaway server and Redis (`scripts/cluster`, the same as
 * `CLUSTER=1 ./scripts/test` uses), databases seeded with exactly the rows of the SQLite seed,
 * and the statements the real discover path runs there, with their plans.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { openPostgres } from "../../db/connection.ts";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { ROOT, scratchRoot } from "./lib.ts";
import { parentOf } from "./probe.ts";
import { captureReadPath, type ReadPath } from "./queries.ts";

export interface Cluster {
  /** An administrative database on the server (each benchmark database is made from it). */
  adminUrl: string;
  redisUrl: string;
  /** A Redis Cluster's primaries, comma-separated, when asked for. */
  clusterUrl?: string;
  stop(): void;
}

/**
 * A throwaway PostgreSQL and Redis (and a Redis Cluster of `primaries`), in a folder of its own
 * beside the scratch folder: the postgres user must reach it.
 */
export function startCluster(primaries = 0): Cluster {
  const dir = mkdtempSync(join(scratchRoot, "tidings-bench-pg-"));
  const cluster = (...args: string[]) => {
    const run = Bun.spawnSync([join(ROOT, "scripts", "cluster"), ...args], { stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`scripts/cluster ${args[0]}: ${run.stderr}`);
    return run.stdout.toString();
  };
  const out = cluster("start", dir);
  const stop = () => void Bun.spawnSync([join(ROOT, "scripts", "cluster"), "stop", dir]);
  try {
    const url = (name: string, text = out) => new RegExp(`^${name}=(.*)$`, "m").exec(text)?.[1];
    return {
      adminUrl: url("CLUSTER_DB_URL") ?? "",
      redisUrl: url("CLUSTER_REDIS_URL") ?? "",
      clusterUrl: primaries
        ? url("CLUSTER_REDIS_CLUSTER_URL", cluster("redis-cluster", dir, `${primaries}`))
        : undefined,
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/** Makes database `name` on the server, migrated by the app's migrations; answers its URL. */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = openDatabase({ engine: "postgres", url: url.toString() });
  await migrateToLatest(database);
  await database.close();
  return url.toString();
}

const COPIED: Record<string, string[]> = {
  users: ["id", "username", "username_key", "password_hash", "created_at"],
  bottles: [
    "id",
    "message",
    "drift_hours",
    "country",
    "country_code",
    "ip_key",
    "visitor_id",
    "locale",
    "is_public",
    "hidden",
    "available_at",
    "created_at",
    "expires_at",
  ],
  bottle_likes: ["bottle_id", "user_id", "created_at"],
};

/** Copies the seeded rows of a SQLite file (scripts/bench/seed.ts) into a migrated database. */
export async function copySeed(sqliteFile: string, url: string): Promise<void> {
  const source = new Database(sqliteFile, { readonly: true });
  const sql = openPostgres(url, 1);
  try {
    for (const [table, columns] of Object.entries(COPIED)) {
      const select = source.query<Record<string, string | number | null>, [number, number]>(
        `SELECT ${columns.join(", ")} FROM ${table} ORDER BY rowid LIMIT ? OFFSET ?`,
      );
      // Batches of 2,000 rows stay under PostgreSQL's 65,535 bound values per statement.
      for (let offset = 0; ; offset += 2000) {
        const rows = select.all(2000, offset);
        if (rows.length === 0) break;
        await sql`INSERT INTO ${sql(table)} ${sql(rows, columns)}`;
      }
    }
    // Ids were copied as they were; new ones continue after them.
    await sql`SELECT setval(pg_get_serial_sequence('bottles', 'id'), (SELECT max(id) FROM bottles))`;
    await sql`VACUUM ANALYZE`;
  } finally {
    source.close();
    await sql.end();
  }
}

/** The statements of the discover read path on this PostgreSQL database, with EXPLAIN's plans. */
export async function readPathPostgres(url: string): Promise<ReadPath> {
  const seen: Array<{ sql: string; params: unknown[] }> = [];
  const database = openDatabase(
    { engine: "postgres", url },
    {
      log: (event) => void seen.push({ sql: event.query.sql, params: [...event.query.parameters] }),
    },
  );
  const sql = openPostgres(url, 1);
  try {
    return await captureReadPath(database.db, seen, async (text, params) => {
      const plan = await sql.unsafe(`EXPLAIN ${text}`, params as never[]);
      return plan.map((row) => String((row as Record<string, unknown>)["QUERY PLAN"]));
    });
  } finally {
    await database.close();
    await sql.end();
  }
}

/** PostgreSQL's postmaster: the parent of the backend that answers (the probes add up its tree). */
export async function postmasterPid(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    return parentOf(Number(row?.pid));
  } finally {
    await sql.end();
  }
}

/** Rows in every table of the database and the WAL position, to tell what a phase wrote. */
export interface WriteMark {
  rows: Record<string, number>;
  lsn: string;
}

export async function writeMark(url: string): Promise<WriteMark> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ name: string }[]>`
      SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`;
    const rows: Record<string, number> = {};
    for (const { name } of tables) {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(name)}`;
      rows[name] = Number(row?.n ?? 0);
    }
    const [wal] = await sql<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
    return { rows, lsn: wal?.lsn ?? "0/0" };
  } finally {
    await sql.end();
  }
}

/** Rows added to each table since a mark (tables that did not change left out), and WAL bytes. */
export async function writesSince(
  url: string,
  mark: WriteMark,
): Promise<{ rows: Record<string, number>; walBytes: number }> {
  const now = await writeMark(url);
  const rows: Record<string, number> = {};
  for (const [name, n] of Object.entries(now.rows)) {
    const added = n - (mark.rows[name] ?? 0);
    if (added !== 0) rows[name] = added;
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ bytes: string }[]>`
      SELECT pg_wal_lsn_diff(${now.lsn}::pg_lsn, ${mark.lsn}::pg_lsn)::text AS bytes`;
    return { rows, walBytes: Number(row?.bytes ?? 0) };
  } finally {
    await sql.end();
  }
}
