// The migration lock: two migrations of one database take turns (the second finds the
// first's work done), while a migration of another database on the same server goes
// ahead (test files migrating in parallel do not queue). A migration is held half-way
// by a user lock the test owns, and the server's process list shows who waits on what.

import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../../src/setup/database.js";
import { migrate } from "../../src/store/migrate.js";
import type { Migration } from "../../src/store/migrations.js";
import { createPool, withDatabase, type Pool } from "../../src/store/pool.js";
import { within } from "../support/load.js";

const GATE = `race_api_test_gate_${randomBytes(6).toString("hex")}`;
/** Waits for the test's gate, then creates a table: a migration the test holds open. */
const gated: Migration = {
  version: 1,
  name: "gated",
  statements: [`DO GET_LOCK('${GATE}', 60), RELEASE_LOCK('${GATE}')`, "CREATE TABLE IF NOT EXISTS gated (id INT PRIMARY KEY)"],
};
const plain: Migration = { version: 1, name: "plain", statements: ["CREATE TABLE IF NOT EXISTS plain (id INT PRIMARY KEY)"] };

const urls: string[] = [];
const pools: Pool[] = [];
let gate: mysql.Connection;

async function freshPool(): Promise<Pool> {
  const url = withDatabase(inject("databaseServerUrl"), `race_api_test_${randomBytes(6).toString("hex")}`);
  await createDatabase(url);
  urls.push(url);
  // No statement time limit: a migration here waits on locks for as long as the test holds them.
  const pool = createPool(url, { connectionLimit: 2, statementTimeoutMs: 0 });
  pools.push(pool);
  return pool;
}

/** The statements on this file's databases waiting on a user lock (GET_LOCK), by what they ask for. */
async function waitingOnLocks(): Promise<string[]> {
  const [rows] = await gate.query<RowDataPacket[]>(
    "SELECT INFO FROM information_schema.PROCESSLIST WHERE STATE = 'User lock' AND DB IN (?)",
    [urls.map((url) => new URL(url).pathname.slice(1))],
  );
  return rows.map((row) =>
    String(row.INFO).includes(GATE) ? "gate" : String(row.INFO).includes("race_api_migrate") ? "migrate" : "other",
  );
}

beforeAll(async () => {
  gate = await mysql.createConnection({ uri: inject("databaseServerUrl") });
});

afterAll(async () => {
  await gate?.end();
  await Promise.all(pools.map((pool) => pool.end()));
  for (const url of urls) await dropDatabase(url);
});

describe("the migration lock", () => {
  it("makes two migrations of the same database take turns", async () => {
    const pool = await freshPool();
    await gate.query("SELECT GET_LOCK(?, 10)", [GATE]);
    const both = Promise.all([migrate(pool, [gated]), migrate(pool, [gated])]);
    try {
      // One is inside, held by the gate; the other waits for the migration lock.
      await within(20_000, async () => expect((await waitingOnLocks()).sort()).toEqual(["gate", "migrate"]));
    } finally {
      await gate.query("SELECT RELEASE_LOCK(?)", [GATE]);
    }
    const reports = await both;
    expect(reports.map((report) => report.applied).sort()).toEqual([[], [1]]);
    expect(reports.map((report) => report.current)).toEqual([1, 1]);
  });

  it("lets a migration of another database go ahead while one is under way", async () => {
    const [held, other] = [await freshPool(), await freshPool()];
    await gate.query("SELECT GET_LOCK(?, 10)", [GATE]);
    const first = migrate(held, [gated]);
    try {
      await within(20_000, async () => expect(await waitingOnLocks()).toEqual(["gate"]));
      let done = false;
      const second = migrate(other, [plain]).then((report) => {
        done = true;
        return report;
      });
      // With one lock for the whole server it would wait for the held migration (up to 120 s).
      await within(20_000, async () => expect(done).toBe(true));
      expect(await second).toEqual({ applied: [1], current: 1 });
    } finally {
      await gate.query("SELECT RELEASE_LOCK(?)", [GATE]);
    }
    expect(await first).toEqual({ applied: [1], current: 1 });
  });
});
