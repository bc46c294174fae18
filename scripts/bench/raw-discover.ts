/**
 * Baseline for the discover read path: a minimal Bun.serve that runs the same two SQL statements
 * as discoverBottle (newest 50 visible bottles, a pick, the card with its like counts) through
 * prepared bun:sqlite statements on the same database file, with the same connection settings,
 * and answers the card as JSON. No framework, no rate limits, no context.
 *
 *   DB_FILE=... bun scripts/bench/raw-discover.ts
 */
import { openSqlite } from "../../db/connection.ts";

/**
 * The SQL Kysely compiles for discoverBottle for an anonymous reader, word for word (run.ts
 * captures the real statements and checks they still match).
 */
export const CANDIDATES_SQL = `select "id", "locale" from "bottles" where ("bottles"."hidden" = ? and "bottles"."available_at" <= ? and ("bottles"."expires_at" is null or "bottles"."expires_at" > ?)) and "visitor_id" != ? order by "available_at" desc limit ?`;
export const CARD_SQL = `select "bottles"."id", "bottles"."message", "bottles"."country", "bottles"."country_code", "bottles"."drift_hours", "bottles"."is_public", "bottles"."created_at", "bottles"."locale", (select count(*) as "n" from "bottle_likes" where "bottle_likes"."bottle_id" = "bottles"."id") as "like_count", NULL as "is_liked" from "bottles" where ("bottles"."hidden" = ? and "bottles"."available_at" <= ? and ("bottles"."expires_at" is null or "bottles"."expires_at" > ?)) and "bottles"."id" = ?`;

interface CardRow {
  id: number;
  message: string;
  country: string;
  country_code: string | null;
  drift_hours: number;
  is_public: number;
  created_at: number;
  locale: string;
  like_count: number | null;
  is_liked: number | null;
}

if (import.meta.main) {
  const file = process.env.DB_FILE;
  if (!file) throw new Error("DB_FILE is required");
  const sqlite = openSqlite(file);
  const candidates = sqlite.prepare<
    { id: number; locale: string },
    [number, number, number, string, number]
  >(CANDIDATES_SQL);
  const card = sqlite.prepare<CardRow, [number, number, number, number]>(CARD_SQL);

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const visitor = request.headers.get("cookie")?.slice(8) ?? "";
      const locale = request.headers.get("x-tidings-locale") === "zh-TW" ? "zh-TW" : "en";
      const now = Date.now();
      const rows = candidates.all(0, now, now, visitor, 50);
      const same = rows.filter((r) => r.locale === locale);
      const pool = same.length > 0 ? same : rows;
      const chosen = pool[Math.floor(Math.random() * pool.length)];
      if (!chosen) return Response.json({ bottle: null });
      const row = card.get(0, now, now, chosen.id);
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
  process.on("SIGTERM", () => {
    server.stop(true);
    sqlite.close();
    process.exit(0);
  });
}
