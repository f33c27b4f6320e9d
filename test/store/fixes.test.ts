// The two hot reads of the fixes table, and ingest's duplicate check, must stay index
// range reads as the table grows. EXPLAIN shows the plan; the session's Handler_read_* counters show the rows
// the engine actually touched, which must be close to the rows returned.

import type { RowDataPacket } from "mysql2/promise";
import { beforeAll, describe, expect, it } from "vitest";
import {
  fixesInRanges,
  fixesInRangesSql,
  fixesInWindow,
  fixesInWindowSql,
  newestFixes,
  newestFixesSql,
  trackPointsInRanges,
  trackPointsInRangesSql,
  upsertFixes,
} from "../../src/store/fixes.js";
import type { Connection } from "../../src/store/pool.js";
import { useFreshDatabase } from "../support/database.js";

const db = useFreshDatabase();

const GROUPS = [1, 2, 3];
const BOATS = Array.from({ length: 30 }, (_, i) => i + 1);
const START = Date.parse("2026-11-21T10:00:00Z");
const SECONDS = 3600;
// Boat b reports at 1 Hz but skips every (b + 5)th second, so boats differ.
const reports = (boat: number, second: number) => second % (boat + 5) !== 0;

beforeAll(async () => {
  const conn = await db.pool.getConnection();
  try {
    for (const group of GROUPS) {
      for (const boat of BOATS) {
        const t = Array.from({ length: SECONDS }, (_, s) => s)
          .filter((s) => reports(boat, s))
          .map((s) => START + s * 1000);
        await upsertFixes(conn, group, boat, {
          t,
          lat: t.map(() => 50 + boat / 1000),
          lon: t.map(() => -1.3),
          sogKn: t.map(() => null),
          cogDeg: t.map(() => 90),
        });
      }
    }
    await conn.query("ANALYZE TABLE fixes");
  } finally {
    conn.release();
  }
}, 120_000);

async function explain(conn: Connection, sql: string, values: unknown[]): Promise<RowDataPacket[]> {
  const [plan] = await conn.query<RowDataPacket[]>(`EXPLAIN ${sql}`, values);
  return plan;
}

/** Rows the storage engine read while `work` ran on this connection. */
async function rowsTouched(conn: Connection, work: () => Promise<unknown>): Promise<number> {
  const read = async () => {
    const [status] = await conn.query<RowDataPacket[]>("SHOW SESSION STATUS LIKE 'Handler_read%'");
    return status.reduce((sum, row) => sum + Number(row.Value), 0);
  };
  const before = await read();
  await work();
  // The SHOW itself reads no table rows through handlers, so the difference is the query's.
  return (await read()) - before;
}

describe("newest fix per boat at or before a cut-off", () => {
  const cutoff = START + 1800 * 1000 + 500;
  const notBefore = START - 300_000;
  const seeks = BOATS.map((entryId) => ({ startGroupId: 2, entryId, fromMs: notBefore, toMs: cutoff }));

  it("is one primary-key range read per boat", async () => {
    const conn = await db.pool.getConnection();
    try {
      const plan = await explain(
        conn,
        newestFixesSql(BOATS.length),
        seeks.flatMap((s) => [s.startGroupId, s.entryId, s.fromMs, s.toMs]),
      );
      const reads = plan.filter((row) => row.table === "fixes");
      expect(reads).toHaveLength(BOATS.length);
      for (const read of reads) {
        expect(read.type).toBe("range");
        expect(read.key).toBe("PRIMARY");
        expect(String(read.Extra ?? "")).not.toMatch(/filesort|temporary/i);
      }
      const touched = await rowsTouched(conn, () => newestFixes(conn, seeks));
      expect(touched).toBeLessThanOrEqual(BOATS.length * 3);
    } finally {
      conn.release();
    }
  });

  it("answers each boat's newest fix inside the bounds", async () => {
    const fixes = await newestFixes(db.pool, seeks);
    expect(fixes.map((f) => f.entryId).sort((a, b) => a - b)).toEqual(BOATS);
    for (const fix of fixes) {
      let second = 1800;
      while (!reports(fix.entryId, second)) second--;
      expect(fix.t).toBe(START + second * 1000);
      expect(fix.sogKn).toBeNull();
      expect(fix.cogDeg).toBe(90);
    }
    const later = seeks.map((s) => ({ ...s, fromMs: START + SECONDS * 1000, toMs: START + SECONDS * 2000 }));
    expect(await newestFixes(db.pool, later)).toEqual([]);
  });
});

describe("every fix of a start group in a window of up to 10 minutes", () => {
  const since = START + 1200 * 1000;
  const until = since + 600 * 1000;

  it("is one primary-key range per boat, in boat and time order without a sort", async () => {
    const conn = await db.pool.getConnection();
    try {
      const [read, ...others] = await explain(conn, fixesInWindowSql(BOATS.length), [2, ...BOATS, since, until]);
      expect(others).toEqual([]);
      expect(read).toMatchObject({ table: "fixes", type: "range", key: "PRIMARY", key_len: "16" });
      expect(String(read!.Extra ?? "")).not.toMatch(/filesort|temporary/i);

      let returned = 0;
      const touched = await rowsTouched(conn, async () => {
        returned = (await fixesInWindow(conn, 2, BOATS, since, until)).length;
      });
      expect(returned).toBeGreaterThan(BOATS.length * 400);
      // One seek per boat plus the rows returned: nothing of the other 3,000 seconds or other groups.
      expect(touched).toBeLessThanOrEqual(returned + BOATS.length * 2);
    } finally {
      conn.release();
    }
  });

  it("returns [since, until) boat by boat in time order", async () => {
    const fixes = await fixesInWindow(db.pool, 2, [3, 1], since, until);
    const expected = [1, 3].flatMap((boat) =>
      Array.from({ length: 600 }, (_, s) => 1200 + s)
        .filter((s) => reports(boat, s))
        .map((s) => ({ entryId: boat, t: START + s * 1000 })),
    );
    expect(fixes.map(({ entryId, t }) => ({ entryId, t }))).toEqual(expected);
  });
});

describe("the stored fixes an ingested batch may repeat", () => {
  // A second of every boat, as a live feed sends it.
  const from = START + 2400 * 1000;
  const ranges = BOATS.map((entryId) => ({ entryId, fromMs: from, toMs: from + 1000 }));

  it("is one primary-key range per boat", async () => {
    const conn = await db.pool.getConnection();
    try {
      const [read, ...others] = await explain(conn, fixesInRangesSql(BOATS.length), [
        3,
        ...ranges.flatMap((r) => [r.entryId, r.fromMs, r.toMs]),
      ]);
      expect(others).toEqual([]);
      expect(read).toMatchObject({ table: "fixes", type: "range", key: "PRIMARY" });
      let returned = 0;
      const touched = await rowsTouched(conn, async () => {
        returned = (await fixesInRanges(conn, 3, ranges)).length;
      });
      expect(returned).toBeGreaterThan(BOATS.length);
      expect(touched).toBeLessThanOrEqual(returned + BOATS.length * 2);
    } finally {
      conn.release();
    }
  });
});

describe("the positions the analytics rebuild from", () => {
  // Ten minutes of every boat, as a rebuild reads a chunk.
  const from = START + 1200 * 1000;
  const ranges = BOATS.map((entryId) => ({ entryId, fromMs: from, toMs: from + 600_000 - 1 }));

  it("is one primary-key range per boat", async () => {
    const conn = await db.pool.getConnection();
    try {
      const [read, ...others] = await explain(conn, trackPointsInRangesSql(BOATS.length), [
        1,
        ...ranges.flatMap((r) => [r.entryId, r.fromMs, r.toMs]),
      ]);
      expect(others).toEqual([]);
      expect(read).toMatchObject({ table: "fixes", type: "range", key: "PRIMARY" });
      let returned = 0;
      const touched = await rowsTouched(conn, async () => {
        returned = (await trackPointsInRanges(conn, 1, ranges)).length;
      });
      expect(returned).toBeGreaterThan(BOATS.length * 400);
      expect(touched).toBeLessThanOrEqual(returned + BOATS.length * 2);
    } finally {
      conn.release();
    }
  });

  it("returns the rows as the analytics' fixes: numbers named as Fix's fields, each boat's range only", async () => {
    const points = await trackPointsInRanges(db.pool, 1, [
      { entryId: 4, fromMs: from, toMs: from + 10_999 },
      { entryId: 2, fromMs: from + 5000, toMs: from + 5000 },
    ]);
    const expected = [
      ...Array.from({ length: 11 }, (_, s) => 1200 + s)
        .filter((s) => reports(4, s))
        .map((s) => ({ entryId: 4, tMs: START + s * 1000, lat: 50 + 4 / 1000, lon: -1.3 })),
      ...(reports(2, 1205) ? [{ entryId: 2, tMs: from + 5000, lat: 50 + 2 / 1000, lon: -1.3 }] : []),
    ];
    const order = (a: { entryId: number; tMs: number }, b: { entryId: number; tMs: number }) => a.entryId - b.entryId || a.tMs - b.tMs;
    expect([...points].sort(order)).toEqual(expected.sort(order));
    expect(await trackPointsInRanges(db.pool, 1, [])).toEqual([]);
  });
});
