import { resolve } from "node:path";
import type { Engine } from "./migrations/engine.ts";

/** Where a site's data lives: a SQLite file, or a PostgreSQL database. */
export type DatabaseTarget =
  | { engine: "sqlite"; file: string }
  | { engine: "postgres"; url: string };

export type { Engine };

/**
 * Reads a DB_URL: `sqlite:<file>` (relative to the working folder; `sqlite:///abs/file` works
 * too) or `postgres://…` / `postgresql://…`. Throws with a message naming what is wrong.
 */
export function parseDatabaseUrl(value: string): DatabaseTarget {
  if (value.startsWith("sqlite:")) {
    let file = value.slice("sqlite:".length);
    if (file.startsWith("//")) file = file.slice(2);
    if (!file) throw new Error("sqlite: needs a file, e.g. sqlite:./data/tidings.db");
    return { engine: "sqlite", file: file === ":memory:" ? file : resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error("not a valid postgres:// URL");
    }
    if (!url.hostname && !url.searchParams.has("host"))
      throw new Error("a postgres:// URL needs a host");
    return { engine: "postgres", url: value };
  }
  throw new Error("expected sqlite:<file> or postgres://user:password@host:port/database");
}

/** A target as it may be shown in a log or an error: the password left out. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.engine === "sqlite") return `SQLite file ${target.file}`;
  const url = new URL(target.url);
  return `PostgreSQL database ${url.pathname.slice(1) || "(default)"} on ${url.host || "a local socket"}`;
}
