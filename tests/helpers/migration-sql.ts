import { Kysely } from "kysely";
import { openSqlite } from "../../db/connection.ts";
import { BunSqliteDialect } from "../../db/dialect.ts";
import { migrationsFor } from "../../db/migrations/index.ts";

/**
 * Every statement the migrations run on a fresh SQLite database, in order, one per line under
 * a `-- <migration>` heading: the text kept in tests/fixtures/sqlite-migrations.sql.
 */
export async function sqliteMigrationSql(): Promise<string> {
  const lines: string[] = [];
  const db = new Kysely<unknown>({
    dialect: new BunSqliteDialect(openSqlite(":memory:")),
    log: (event) => {
      // Values bound outside the SQL text would not show in the fixture; there are none today.
      if (event.query.parameters.length > 0)
        throw new Error(`a migration statement has bound values: ${event.query.sql}`);
      lines.push(`${event.query.sql};`);
    },
  });
  try {
    for (const [name, migration] of Object.entries(migrationsFor("sqlite"))) {
      lines.push(`-- ${name}`);
      await migration.up(db);
    }
  } finally {
    await db.destroy();
  }
  return `${lines.join("\n")}\n`;
}

// `bun tests/helpers/migration-sql.ts` prints the text, to add a new migration's statements.
if (import.meta.main) process.stdout.write(await sqliteMigrationSql());
