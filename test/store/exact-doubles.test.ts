// Every number the pool reads back is the one stored, bit for bit, over both protocols
// (query() is the text protocol, execute() the binary one), on connections taken from
// the pool, with or without a statement time limit, and on the read replica's pool.
// mysql2's own text parser misses about one DOUBLE in 100 by one unit in the last place.

import fc from "fast-check";
import mysql, { type RowDataPacket } from "mysql2/promise";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../src/store/pool.js";
import { replicaReads, type ReadPools } from "../../src/store/read-replica.js";
import { useFreshDatabase } from "../support/database.js";
import { AWKWARD_DOUBLES, asStored, doubleIn } from "../support/doubles.js";

const db = useFreshDatabase();
let untimed: Pool;
let replica: ReadPools;

beforeAll(async () => {
  await db.pool.query("CREATE TABLE doubles (i INT UNSIGNED PRIMARY KEY, v DOUBLE NULL)");
  untimed = createPool(db.url, { statementTimeoutMs: 0, connectionLimit: 2 });
  // The same database as its own replica: what is tested is the replica's pool, not replication.
  replica = replicaReads(db.pool, {
    url: db.url,
    poolOptions: { connectionLimit: 2 },
    maxLagMs: 60_000,
    logger: pino({ level: "silent" }),
  });
});
afterAll(async () => {
  await untimed?.end();
  await replica?.close();
});

type Read = (sql: string) => Promise<RowDataPacket[]>;
const readers: Array<[string, () => Read]> = [
  ["pool.query", () => async (sql) => (await db.pool.query<RowDataPacket[]>(sql))[0]],
  ["pool.execute", () => async (sql) => (await db.pool.execute<RowDataPacket[]>(sql))[0]],
  ["a connection's query", () => (sql) => onConnection(db.pool, (conn) => conn.query<RowDataPacket[]>(sql))],
  ["a connection's query in a transaction", () => (sql) => inTransaction(db.pool, sql)],
  ["a pool without a time limit", () => async (sql) => (await untimed.query<RowDataPacket[]>(sql))[0]],
  ["a connection of a pool without a time limit", () => (sql) => onConnection(untimed, (conn) => conn.query<RowDataPacket[]>(sql))],
  ["the read replica's pool", () => async (sql) => (await replica.replicaPool()!.query<RowDataPacket[]>(sql))[0]],
];

async function onConnection(
  pool: Pool,
  read: (conn: mysql.PoolConnection) => Promise<[RowDataPacket[], unknown]>,
): Promise<RowDataPacket[]> {
  const conn = await pool.getConnection();
  try {
    return (await read(conn))[0];
  } finally {
    conn.release();
  }
}

async function inTransaction(pool: Pool, sql: string): Promise<RowDataPacket[]> {
  const conn = await pool.getConnection();
  try {
    await conn.beginTransaction();
    const [rows] = await conn.query<RowDataPacket[]>(`${sql} LOCK IN SHARE MODE`);
    await conn.commit();
    return rows;
  } finally {
    conn.release();
  }
}

const anyDouble = doubleIn();
/** Each property run writes its own key range, across the tests too. */
let run = 0;

describe("doubles read back", () => {
  it.each(readers)("through %s are the stored bits", async (_, reader) => {
    const read = reader();
    await fc.assert(
      fc.asyncProperty(fc.array(anyDouble, { minLength: 1, maxLength: 200 }), async (values) => {
        const from = ++run * 1000;
        await db.pool.query("INSERT INTO doubles (i, v) VALUES ?", [values.map((v, k) => [from + k, v])]);
        const rows = await read(`SELECT i, v FROM doubles WHERE i BETWEEN ${from} AND ${from + 999} ORDER BY i`);
        // Object.is tells 0 from -0, where === would not.
        const wrong = values.flatMap((sent, k) => (Object.is(rows[k]!.v, asStored(sent)) ? [] : [[sent, rows[k]!.v]]));
        expect(wrong).toEqual([]);
      }),
      { seed: 28, numRuns: 25 },
    );
  });

  it("through the replica's pool: it is the pool reads go to", async () => {
    await expect.poll(() => replica.replicaState()?.inUse, { timeout: 10_000 }).toBe(true);
    expect(replica.pool()).not.toBe(db.pool);
  });

  it("keep NULL, and the same holds for a DECIMAL and for arithmetic in the query", async () => {
    const [[row]] = await db.pool.query<RowDataPacket[]>(
      "SELECT CAST(NULL AS DOUBLE) AS none, CAST('92.39999999999999' AS DECIMAL(20,14)) AS decimal_value, 92.39999999999999 + 0e0 AS sum",
    );
    expect(row).toEqual({ none: null, decimal_value: 92.39999999999999, sum: 92.39999999999999 });
  });

  it("when the driver is used directly, about one in a hundred is off (why the pool reads them itself)", async () => {
    const raw = await mysql.createConnection({ uri: db.url });
    try {
      const from = ++run * 1000;
      await db.pool.query("INSERT INTO doubles (i, v) VALUES ?", [AWKWARD_DOUBLES.map((v, k) => [from + k, v])]);
      const [rows] = await raw.query<RowDataPacket[]>(`SELECT v FROM doubles WHERE i >= ${from} ORDER BY i`);
      expect(rows.map((r) => r.v)).toContain(92.4);
    } finally {
      await raw.end();
    }
  });
});
