import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sqliteMigrationSql } from "../helpers/migration-sql.ts";

const fixture = join(import.meta.dir, "..", "fixtures", "sqlite-migrations.sql");

describe("migrations on SQLite", () => {
  // Landed databases have run these statements; a migration that now produced other SQL on
  // SQLite would leave them different from new ones. A new migration appends its statements
  // to the fixture (print them with `bun tests/helpers/migration-sql.ts`); landed ones never change.
  test("run exactly the SQL they ran when they landed", async () => {
    expect(await sqliteMigrationSql()).toBe(readFileSync(fixture, "utf8"));
  });
});
