/**
 * Builds a bottles database of a given size: the real migrations (so the schema and indexes are
 * the app's own), then rows written directly with prepared bun:sqlite statements in one
 * transaction. Bottles are spread over the last eight days; some are public, some hidden,
 * expired or still drifting, in both locales, with likes on the newest.
 *
 *   bun scripts/bench/seed.ts <file> <count>
 */
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { locales } from "../../src/common/locales.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** Bottles are created over this long before `now`. */
const SPAN_MS = 8 * DAY;
export const SEED_USERS = 200;

const WORDS =
  "the sea is calm tonight and I am writing this to whoever finds it hello from a small town near the coast I hope your day is going well remember to drink water and look at the sky 你好 來自 遠方 的 朋友 希望 你 今天 過得 好".split(
    " ",
  );
const COUNTRIES: Array<[string, string]> = [
  ["TW", "Taiwan"],
  ["US", "United States"],
  ["JP", "Japan"],
  ["DE", "Germany"],
  ["FR", "France"],
  ["BR", "Brazil"],
  ["KR", "South Korea"],
  ["GB", "United Kingdom"],
];

/** A small deterministic generator, so every run seeds the same shape. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function token(rand: () => number, length = 22): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(rand() * 64)];
  return out;
}

export interface SeedResult {
  rows: number;
  visible: number;
  seconds: number;
}

export async function seed(file: string, count: number, now = Date.now()): Promise<SeedResult> {
  const started = performance.now();
  const database = openDatabase(file);
  const { db, sqlite } = database;
  await migrateToLatest(database);
  const rand = random(count);

  const messages = Array.from({ length: 1000 }, () => {
    const words = 4 + Math.floor(rand() * 40);
    return Array.from({ length: words }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
  });
  const visitors = Array.from({ length: 5000 }, () => token(rand));
  const ipKeys = Array.from({ length: 5000 }, () => token(rand));

  const insertUser = sqlite.prepare(
    "INSERT INTO users (id, username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const insertBottle = sqlite.prepare(
    `INSERT INTO bottles (message, drift_hours, country, country_code, ip_key, visitor_id, locale,
       is_public, hidden, available_at, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertLike = sqlite.prepare(
    "INSERT OR IGNORE INTO bottle_likes (bottle_id, user_id, created_at) VALUES (?, ?, ?)",
  );
  const users = Array.from({ length: SEED_USERS }, (_, i) => `seed-user-${i}`);

  sqlite.transaction(() => {
    for (const [i, id] of users.entries()) {
      insertUser.run(id, `seed${i}`, `seed${i}`, "not-a-hash", now - SPAN_MS);
    }
    for (let i = 0; i < count; i++) {
      // Ids grow with time, as real writes do.
      const createdAt = Math.floor(now - SPAN_MS + (SPAN_MS * i) / count);
      const drifting = rand() < 0.3;
      const driftHours = drifting ? 1 + Math.floor(rand() * 168) : 0;
      const expiryDays = [1, 3, 5, 7][Math.floor(rand() * 4)] ?? 7;
      const expiresAt = createdAt + expiryDays * DAY;
      // Drift never passes expiry (the app refuses such a bottle).
      const availableAt = Math.min(createdAt + driftHours * HOUR, expiresAt - HOUR);
      const [code, name] = COUNTRIES[Math.floor(rand() * COUNTRIES.length)] ?? ["TW", "Taiwan"];
      const who = Math.floor(rand() * visitors.length);
      insertBottle.run(
        messages[i % messages.length] ?? "hello",
        driftHours,
        name,
        code,
        ipKeys[who] ?? "",
        visitors[who] ?? "",
        locales[rand() < 0.6 ? 0 : 1] ?? "en",
        rand() < 0.3 ? 1 : 0,
        rand() < 0.02 ? 1 : 0,
        availableAt,
        createdAt,
        expiresAt,
      );
    }
    // Likes on the newest bottles, the ones discover shows.
    const newest = Math.min(count, 5000);
    for (let id = count - newest + 1; id <= count; id++) {
      const likes = Math.floor(rand() * 6);
      for (let k = 0; k < likes; k++) {
        insertLike.run(id, users[Math.floor(rand() * users.length)] ?? "seed-user-0", now);
      }
    }
  })();
  const visible = sqlite
    .query<{ n: number }, [number, number]>(
      "SELECT count(*) AS n FROM bottles WHERE hidden = 0 AND available_at <= ? AND (expires_at IS NULL OR expires_at > ?)",
    )
    .get(now, now);
  sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
  for (const statement of [insertUser, insertBottle, insertLike]) statement.finalize();
  await db.destroy();
  return {
    rows: count,
    visible: visible?.n ?? 0,
    seconds: (performance.now() - started) / 1000,
  };
}

if (import.meta.main) {
  const [file, count] = process.argv.slice(2);
  if (!file || !count) {
    console.error("usage: bun scripts/bench/seed.ts <file> <count>");
    process.exit(2);
  }
  console.log(JSON.stringify(await seed(file, Number(count))));
}
