/**
 * Baseline for the discover read path: a minimal Bun.serve that runs the same two SQL statements
 * as discoverBottle (newest 50 visible bottles, a pick, the card with its like counts) and
 * answers the card as JSON. No framework, no rate limits, no context. With DB_FILE, prepared
 * bun:sqlite statements on that file with the app's connection settings; with DB_URL, the
 * statements with PostgreSQL's numbered placeholders (what Kysely's PostgreSQL compiler writes)
 * through postgres.js alone, with the app's pool settings.
 *
 *   DB_FILE=... bun scripts/bench/raw-discover.ts
 *   DB_URL=postgres://... bun scripts/bench/raw-discover.ts
 */
import { openPostgres, openSqlite } from "../../db/connection.ts";

/**
 * The SQL Kysely compiles for discoverBottle for an anonymous reader, word for word (the
 * benchmarks capture the real statements and check they still match).
 */
export const CANDIDATES_SQL = `select "id", "locale" from "bottles" where ("bottles"."hidden" = ? and "bottles"."available_at" <= ? and ("bottles"."expires_at" is null or "bottles"."expires_at" > ?)) and "visitor_id" != ? order by "available_at" desc limit ?`;
export const CARD_SQL = `select "bottles"."id", "bottles"."message", "bottles"."country", "bottles"."country_code", "bottles"."drift_hours", "bottles"."is_public", "bottles"."created_at", "bottles"."locale", (select count(*) as "n" from "bottle_likes" where "bottle_likes"."bottle_id" = "bottles"."id") as "like_count", NULL as "is_liked" from "bottles" where ("bottles"."hidden" = ? and "bottles"."available_at" <= ? and ("bottles"."expires_at" is null or "bottles"."expires_at" > ?)) and "bottles"."id" = ?`;

/** SQLite's `?` placeholders as PostgreSQL's `$1, $2, …`, in order. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};
export const CANDIDATES_SQL_PG = numbered(CANDIDATES_SQL);
export const CARD_SQL_PG = numbered(CARD_SQL);

type Candidate = { id: number; locale: string };
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

/** Who asks, in which language, and when. */
function asked(request: Request) {
  const visitor = request.headers.get("cookie")?.slice(8) ?? "";
  const locale = request.headers.get("x-tidings-locale") === "zh-TW" ? "zh-TW" : "en";
  return { visitor, locale, now: Date.now() };
}

/** A bottle in the reader's language when there is one, else any. */
function pick(rows: Candidate[], locale: string): Candidate | undefined {
  const same = rows.filter((r) => r.locale === locale);
  const pool = same.length > 0 ? same : rows;
  return pool[Math.floor(Math.random() * pool.length)];
}

function answer(row: CardRow | null | undefined): Response {
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
}

/** Answers on bun:sqlite, synchronously as the statements are. */
function onSqlite(file: string) {
  const sqlite = openSqlite(file);
  const candidates = sqlite.prepare<Candidate, [number, number, number, string, number]>(
    CANDIDATES_SQL,
  );
  const card = sqlite.prepare<CardRow, [number, number, number, number]>(CARD_SQL);
  const fetch = (request: Request) => {
    const { visitor, locale, now } = asked(request);
    const chosen = pick(candidates.all(0, now, now, visitor, 50), locale);
    return chosen ? answer(card.get(0, now, now, chosen.id)) : answer(null);
  };
  return { fetch, close: async () => sqlite.close() };
}

function onPostgres(url: string) {
  const sql = openPostgres(url);
  const fetch = async (request: Request) => {
    const { visitor, locale, now } = asked(request);
    const rows = await sql.unsafe<Candidate[]>(CANDIDATES_SQL_PG, [0, now, now, visitor, 50], {
      prepare: true,
    });
    const chosen = pick(rows, locale);
    if (!chosen) return answer(null);
    const [row] = await sql.unsafe<CardRow[]>(CARD_SQL_PG, [0, now, now, chosen.id], {
      prepare: true,
    });
    return answer(row);
  };
  return { fetch, close: () => sql.end() };
}

if (import.meta.main) {
  const file = process.env.DB_FILE;
  const url = process.env.DB_URL;
  if (!file && !url) throw new Error("DB_FILE or DB_URL is required");
  const { fetch, close } = file ? onSqlite(file) : onPostgres(url as string);
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  console.log(JSON.stringify({ ready: true, url: server.url.origin, pid: process.pid }));
  process.on("SIGTERM", async () => {
    server.stop(true);
    await close();
    process.exit(0);
  });
}
