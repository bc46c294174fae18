/**
 * Comparison for the discover read path: what a builder would write with Express and
 * better-sqlite3 under Node. The same two SQL statements as the raw baseline and discoverBottle
 * (handed over by the runner in CANDIDATES_SQL and CARD_SQL, so they cannot drift), prepared
 * once, on the same database file with the same connection settings as db/connection.ts, and
 * the same JSON answer. Express's defaults are kept (ETag, X-Powered-By), as a builder gets them.
 *
 *   DB_FILE=... CANDIDATES_SQL=... CARD_SQL=... node scripts/bench/node/express-discover.mjs
 *
 * Prints one JSON line when it listens: {"ready":true,"url":...,"pid":...,"pragmas":{...}}.
 */
import Database from "better-sqlite3";
import express from "express";

const { DB_FILE, CANDIDATES_SQL, CARD_SQL } = process.env;
if (!DB_FILE || !CANDIDATES_SQL || !CARD_SQL) {
  throw new Error("DB_FILE, CANDIDATES_SQL and CARD_SQL are required");
}

const db = new Database(DB_FILE);
// The settings of openSqlite in db/connection.ts; the runner compares what they read back.
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("foreign_keys = ON");
db.pragma("busy_timeout = 5000");
const pragmas = {};
for (const name of ["journal_mode", "synchronous", "foreign_keys", "busy_timeout"]) {
  pragmas[name] = db.pragma(name, { simple: true });
}

const candidates = db.prepare(CANDIDATES_SQL);
const card = db.prepare(CARD_SQL);

const app = express();
app.get("/", (req, res) => {
  const visitor = req.headers.cookie?.slice(8) ?? "";
  const locale = req.headers["x-tidings-locale"] === "zh-TW" ? "zh-TW" : "en";
  const now = Date.now();
  const rows = candidates.all(0, now, now, visitor, 50);
  const same = rows.filter((r) => r.locale === locale);
  const pool = same.length > 0 ? same : rows;
  const chosen = pool[Math.floor(Math.random() * pool.length)];
  const row = chosen ? card.get(0, now, now, chosen.id) : undefined;
  if (!row) {
    res.json({ bottle: null });
    return;
  }
  res.json({
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
});

const server = app.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  console.log(
    JSON.stringify({ ready: true, url: `http://127.0.0.1:${port}`, pid: process.pid, pragmas }),
  );
});

process.on("SIGTERM", () => {
  server.close();
  db.close();
  process.exit(0);
});
