// `bun run migrate`: brings the database in DATA_DIR up to date and says what ran.
import { join } from "node:path";
import { migrateToLatest, openDatabase } from "./migrate.ts";

const dataDir = process.env.DATA_DIR ?? "./data";
const { db } = openDatabase(join(dataDir, "tidings.db"));
const { results } = await migrateToLatest(db);
for (const r of results ?? []) console.log(`${r.status.toLowerCase()}: ${r.migrationName}`);
if (!results?.length) console.log("database is up to date");
await db.destroy();
