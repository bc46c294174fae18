/**
 * Baseline for the discover read path on PostgreSQL: a minimal Bun.serve that runs the same two
 * SQL statements as discoverBottle on PostgreSQL (the SQLite baseline's statements with
 * PostgreSQL's numbered placeholders, which is what Kysely's PostgreSQL compiler writes; run.ts
 * checks) through postgres.js alone, with the same pool settings as the app, and answers the
 * card as JSON. No Kysely, no framework, no rate limits, no context.
 *
 *   DB_URL=postgres://... bun scripts/bench/raw-discover-pg.ts
 */
import { openPostgres } from "../../db/connection.ts";
import { CANDIDATES_SQL, CARD_SQL } from "./raw-discover.ts";

/** SQLite's `?` placeholders as PostgreSQL's `$1, $2, …`, in order. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export const CANDIDATES_SQL_PG = numbered(CANDIDATES_SQL);
export const CARD_SQL_PG = numbered(CARD_SQL);

interface CardRow {
  id: number;
  message: string;
  country: string;
  country_code: string | null;
  drift_hours: number;
  is_public: number;
  created_at: number;
  like_count: number | null;
  is_liked: number | null;
}

if (import.meta.main) {
  const url = process.env.DB_URL;
  if (!url) throw new Error("DB_URL is required");
  const sql = openPostgres(url);

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const visitor = request.headers.get("cookie")?.slice(8) ?? "";
      const locale = request.headers.get("x-tidings-locale") === "zh-TW" ? "zh-TW" : "en";
      const now = Date.now();
      const rows = await sql.unsafe<Array<{ id: number; locale: string }>>(
        CANDIDATES_SQL_PG,
        [0, now, now, visitor, 50],
        { prepare: true },
      );
      const same = rows.filter((r) => r.locale === locale);
      const pool = same.length > 0 ? same : rows;
      const chosen = pool[Math.floor(Math.random() * pool.length)];
      if (!chosen) return Response.json({ bottle: null });
      const [row] = await sql.unsafe<CardRow[]>(CARD_SQL_PG, [0, now, now, chosen.id], {
        prepare: true,
      });
      if (!row) return Response.json({ bottle: null });
      return Response.json({
        bottle: {
          id: row.id,
          message: row.message,
          country: { code: row.country_code, name: row.country },
          driftHours: row.drift_hours,
          isPublic: row.is_public === 1,
          createdAt: row.created_at,
          likeCount: Number(row.like_count ?? 0),
          isLiked: row.is_liked === 1,
        },
      });
    },
  });
  console.log(JSON.stringify({ ready: true, url: server.url.origin, pid: process.pid }));
  process.on("SIGTERM", async () => {
    server.stop(true);
    await sql.end();
    process.exit(0);
  });
}
