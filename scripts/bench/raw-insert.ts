/**
 * Baseline for the write path: a minimal Bun.serve that takes the same JSON body as
 * bottles.throw and runs the same INSERT as throwBottle through a prepared bun:sqlite statement
 * on a database with the same schema and connection settings. No validation, rate limits,
 * moderation, time-zone arithmetic or country lookup: the floor a write costs here.
 *
 *   DB_FILE=... bun scripts/bench/raw-insert.ts
 */
import { openSqlite } from "../../db/connection.ts";

/** The SQL Kysely compiles for throwBottle, word for word (run.ts checks it still matches). */
export const INSERT_SQL = `insert into "bottles" ("message", "drift_hours", "country", "country_code", "ip_key", "visitor_id", "user_id", "locale", "is_public", "available_at", "created_at", "expires_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id"`;

interface Body {
  message: string;
  driftHours: number;
  isPublic: boolean;
  expiryDays: number;
  locale: string;
}

if (import.meta.main) {
  const file = process.env.DB_FILE;
  if (!file) throw new Error("DB_FILE is required");
  const sqlite = openSqlite(file);
  const insert = sqlite.prepare<
    { id: number },
    [
      string,
      number,
      string,
      string | null,
      string,
      string,
      string | null,
      string,
      number,
      number,
      number,
      number,
    ]
  >(INSERT_SQL);
  const HOUR = 60 * 60 * 1000;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Body;
      const now = Date.now();
      const availableAt = now + body.driftHours * HOUR;
      const expiresAt = now + body.expiryDays * 24 * HOUR;
      // all(), not get(): get() leaves an INSERT … RETURNING unfinished, so its transaction stays
      // open until the next call and the WAL can never be checkpointed (it grew past 1 GB).
      const [row] = insert.all(
        body.message,
        body.driftHours,
        "Unknown",
        null,
        request.headers.get("x-forwarded-for") ?? "",
        request.headers.get("cookie")?.slice(8) ?? "",
        // An anonymous writer, as every request of the load is.
        null,
        body.locale,
        body.isPublic ? 1 : 0,
        availableAt,
        now,
        expiresAt,
      );
      return Response.json({ result: { data: { id: row?.id, availableAt, expiresAt } } });
    },
  });
  console.log(JSON.stringify({ ready: true, url: server.url.origin, pid: process.pid }));
  process.on("SIGTERM", () => {
    server.stop(true);
    sqlite.close();
    process.exit(0);
  });
}
