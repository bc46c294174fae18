import type { Kysely } from "kysely";
import { columnTypes, type Engine } from "./engine.ts";

// The address hashes each chat visitor was seen with, so that banning a visitor also bans the
// addresses they came from (dropping the cookie does not lift a ban). Kept for a day.
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable("visitor_addresses")
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("ip_key", "text", (c) => c.notNull())
    .addColumn("last_seen_at", t.millis, (c) => c.notNull())
    .addPrimaryKeyConstraint("visitor_addresses_pk", ["visitor_id", "ip_key"])
    .execute();
  await db.schema
    .createIndex("visitor_addresses_last_seen_at")
    .on("visitor_addresses")
    .column("last_seen_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("visitor_addresses").execute();
}
