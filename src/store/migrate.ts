// Applies pending migrations in version order, once, even when several instances start
// together: a lock named after the database serialises them (migrations of other
// databases on the same server go ahead) and `schema_migrations` records what is
// applied. A small runner on purpose: the migrations are a list in code, versioned with
// the source, so there is nothing to locate on disk at run time.

import type { RowDataPacket } from "mysql2/promise";
import { MIGRATIONS, type Migration } from "./migrations.js";
import type { Pool } from "./pool.js";

/** A lock name is at most 64 characters: two long names sharing a prefix only wait for each other. */
const LOCK_NAME_SQL = "LEFT(CONCAT('race_api_migrate:', IFNULL(DATABASE(), '')), 64)";
const LOCK_TIMEOUT_SECONDS = 120;

export interface MigrationReport {
  applied: number[];
  current: number;
}

export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  const conn = await pool.getConnection();
  try {
    const [[lock]] = await conn.query<RowDataPacket[]>(`SELECT GET_LOCK(${LOCK_NAME_SQL}, ?) AS acquired`, [LOCK_TIMEOUT_SECONDS]);
    if (lock?.acquired !== 1) throw new Error(`could not take the migration lock within ${LOCK_TIMEOUT_SECONDS} s`);
    try {
      await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INT UNSIGNED NOT NULL PRIMARY KEY,
        name VARCHAR(200) NOT NULL,
        applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
      ) ENGINE=InnoDB`);
      const [rows] = await conn.query<RowDataPacket[]>("SELECT version FROM schema_migrations");
      const done = new Set(rows.map((row) => Number(row.version)));
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(migration.version)) continue;
        // DDL commits implicitly in MySQL, so each statement is idempotent instead of the whole being transactional.
        for (const statement of migration.statements) await conn.query(statement);
        await conn.query("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [migration.version, migration.name]);
        applied.push(migration.version);
      }
      return { applied, current: Math.max(0, ...done, ...applied) };
    } finally {
      await conn.query(`SELECT RELEASE_LOCK(${LOCK_NAME_SQL})`);
    }
  } finally {
    conn.release();
  }
}
