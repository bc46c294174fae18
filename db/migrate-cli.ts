// `bun run migrate`: brings the database DB_URL names (else DATA_DIR/tidings.db) up to date
// and says what ran.
import { join } from "node:path";
import { migrateToLatest, openDatabase } from "./migrate.ts";
import { parseDatabaseUrl } from "./url.ts";

const target = process.env.DB_URL
  ? parseDatabaseUrl(process.env.DB_URL)
  : { engine: "sqlite" as const, file: join(process.env.DATA_DIR ?? "./data", "tidings.db") };
const database = openDatabase(target);
const { results } = await migrateToLatest(database);
for (const r of results ?? []) console.log(`${r.status.toLowerCase()}: ${r.migrationName}`);
if (!results?.length) console.log("database is up to date");
await database.close();
