// Gives a test file its own fresh, migrated database, dropped when the file is done,
// so test files run in parallel without seeing each other's rows.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, inject } from "vitest";
import { createDatabase, dropDatabase } from "../../src/setup/database.js";
import { migrate } from "../../src/store/migrate.js";
import { createPool, withDatabase, type Pool } from "../../src/store/pool.js";

export interface TestDatabase {
  url: string;
  pool: Pool;
}

/** Call at the top of a test file; the returned object is filled in before the first test. */
export function useFreshDatabase(): TestDatabase {
  const db = {} as TestDatabase;
  beforeAll(async () => {
    // The `race_api` prefix is what the local server's user may create and drop.
    db.url = withDatabase(inject("databaseServerUrl"), `race_api_test_${randomBytes(6).toString("hex")}`);
    await createDatabase(db.url);
    db.pool = createPool(db.url, { connectionLimit: 4 });
    await migrate(db.pool);
  });
  afterAll(async () => {
    await db.pool?.end();
    if (db.url) await dropDatabase(db.url);
  });
  return db;
}
