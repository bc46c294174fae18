import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import * as m0001 from "./0001_contact_messages.ts";
import * as m0002 from "./0002_accounts.ts";
import * as m0003 from "./0003_translations.ts";
import * as m0004 from "./0004_bottles.ts";
import * as m0005 from "./0005_chat.ts";
import * as m0006 from "./0006_report_handling.ts";
import * as m0007 from "./0007_ocean_covering_index.ts";
import * as m0008 from "./0008_visitor_addresses.ts";
import * as m0009 from "./0009_safety.ts";
import * as m0010 from "./0010_writers_bottles.ts";
import * as m0011 from "./0011_independent_reporters.ts";
import * as m0012 from "./0012_structured_audit.ts";
import * as m0013 from "./0013_report_sources.ts";
import * as m0014 from "./0014_pow_solutions.ts";
import type { Engine } from "./engine.ts";

/** A migration written once for both engines: it is told which one it runs on. */
interface EngineMigration {
  up(db: Kysely<unknown>, engine: Engine): Promise<void>;
  down?(db: Kysely<unknown>, engine: Engine): Promise<void>;
}

/**
 * Listed statically rather than read from a folder, so the same list works inside a compiled
 * binary. Names sort in the order they run; never rename or reorder a landed one.
 */
const all: Record<string, EngineMigration> = {
  "0001_contact_messages": m0001,
  "0002_accounts": m0002,
  "0003_translations": m0003,
  "0004_bottles": m0004,
  "0005_chat": m0005,
  "0006_report_handling": m0006,
  "0007_ocean_covering_index": m0007,
  "0008_visitor_addresses": m0008,
  "0009_safety": m0009,
  "0010_writers_bottles": m0010,
  "0011_independent_reporters": m0011,
  "0012_structured_audit": m0012,
  "0013_report_sources": m0013,
  "0014_pow_solutions": m0014,
};

/** The migrations as Kysely's Migrator runs them on one engine. */
export function migrationsFor(engine: Engine): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(all).map(([name, m]) => {
      const down = m.down;
      const migration: Migration = { up: (db) => m.up(db, engine) };
      if (down) migration.down = (db) => down(db, engine);
      return [name, migration];
    }),
  );
}
