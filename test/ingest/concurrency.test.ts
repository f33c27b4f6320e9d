// Concurrent retries of IngestService writes: the same fix sent by several calls at
// once is written once, and the others count it as a duplicate; two versions sent at
// once keep one, and the other's calls are told CONFLICT; no call fails. And a batch
// holds no lock that the event's or start group's own writes wait for.

import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartGroupState } from "../../gen/racing/v1/common_pb.js";
import { FixRejectionReason } from "../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { createPool, type Pool } from "../../src/store/pool.js";
import { bearer, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { boatFixes, INGEST_IDS as IDS, ingestClient, ingestScenario } from "../support/ingest-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let writer: Record<string, string>;

let pool: Pool;

beforeAll(async () => {
  await importScenario(db.pool, ingestScenario());
  // As many connections as a serving instance has, so the calls really overlap.
  pool = createPool(db.url, { connectionLimit: 10 });
  api = await startApi(db, {}, pool);
  writer = bearer(await tokenFor(api.url, "writer"));
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
});

/** 20 fixes at 1 Hz whose values depend on their time only, as a retry's would. */
function fixes(entryId: string, fromMs: number) {
  const boat = boatFixes(entryId, fromMs, 20);
  return { ...boat, lat: boat.t.map((t) => 50 + Number(t % 100_000n) / 1e6) };
}

describe("concurrent batches", () => {
  it("write each fix once however many overlapping calls carry it, in whatever boat order", async () => {
    const client = ingestClient(api.runtime);
    const from = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    const calls = Array.from({ length: 40 }, (_, i) => {
      const boats = [fixes(IDS.a, from + (i % 4) * 5000), fixes(IDS.b, from + (i % 3) * 5000)];
      return client.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: i % 2 ? boats.reverse() : boats }, { headers: writer });
    });
    const answers = await Promise.all(calls);
    const [[stored]] = await db.pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM fixes f JOIN start_groups g ON g.id = f.start_group_id WHERE g.uuid = ?",
      [IDS.group],
    );
    // A: offsets 0..15 s + 20 fixes -> 35 distinct seconds; B: 0..10 s + 20 -> 30.
    expect(Number(stored!.n)).toBe(65);
    expect(answers.reduce((n, a) => n + a.accepted, 0)).toBe(65);
    expect(answers.reduce((n, a) => n + a.accepted + a.duplicates, 0)).toBe(40 * 40);
    expect(answers.every((a) => a.rejected.length === 0)).toBe(true);
  });

  it("keep the first of two versions sent at once, and account for every fix in each answer", async () => {
    const client = ingestClient(api.runtime);
    // After the times the test above wrote (up to 25 s ago).
    const from = Math.floor(Date.now() / 1000) * 1000 - 22_000;
    // Two versions of the same 20 fixes (other latitudes), each sent by 10 calls at once.
    const versions = [fixes(IDS.a, from), { ...fixes(IDS.a, from), lat: fixes(IDS.a, from).lat.map((lat) => lat + 0.5) }];
    const calls = Array.from({ length: 20 }, (_, i) =>
      client.appendFixes({ raceId: IDS.race, startGroupId: IDS.group, boats: [versions[i % 2]!] }, { headers: writer }),
    );
    const answers = await Promise.all(calls);
    const [rows] = await db.pool.execute<RowDataPacket[]>(
      `SELECT f.lat FROM fixes f JOIN start_groups g ON g.id = f.start_group_id JOIN entries e ON e.id = f.entry_id
       WHERE g.uuid = ? AND e.uuid = ? AND f.t >= ? AND f.t < ? ORDER BY f.t`,
      [IDS.group, IDS.a, from, from + 20_000],
    );
    // Each fix is stored once, in one of the two versions; every answer counts each of its 20 fixes once.
    expect(rows).toHaveLength(20);
    for (const [k, row] of rows.entries()) expect([versions[0]!.lat[k], versions[1]!.lat[k]]).toContain(row.lat);
    expect(answers.map((a) => a.accepted + a.duplicates + a.rejected.length)).toEqual(answers.map(() => 20));
    expect(answers.reduce((n, a) => n + a.accepted, 0)).toBe(20);
    // A call whose version lost a fix is told so: CONFLICT for that fix, never a silent duplicate.
    for (const [i, answer] of answers.entries()) {
      const mine = versions[i % 2]!.lat;
      const conflicts = rows.filter((row, k) => row.lat !== mine[k]).length;
      expect(answer.rejected.filter((r) => r.reason === FixRejectionReason.CONFLICT)).toHaveLength(conflicts);
    }
  });
});

describe("an open batch", () => {
  it("keeps neither UpdateEvent nor UpdateStartGroup waiting: the batch reads race, event, group and entries without a lock", async () => {
    // The batch's server may wait as long as it takes; the other writes' server gives up a
    // lock wait after 1 s (innodb_lock_wait_timeout = 1), so a wait fails loudly, not slowly.
    const patientPool = createPool(db.url, { statementTimeoutMs: 0 });
    const quickPool = createPool(db.url, { statementTimeoutMs: 1000 });
    const patient = await startApi(db, {}, patientPool);
    const quick = await startApi(db, {}, quickPool);
    const locker = await db.pool.getConnection();
    try {
      // Another transaction holds the batch's second key, not committed: the batch has read
      // what it checks against and waits in its insert, its transaction open.
      const boat = fixes(IDS.b, Math.floor(Date.now() / 1000) * 1000 - 25_000);
      // (Ids read first: an INSERT ... SELECT would hold shared locks on the group's and entry's rows itself.)
      const [[ids]] = await db.pool.query<RowDataPacket[]>(
        "SELECT g.id AS g, e.id AS e FROM start_groups g, entries e WHERE g.uuid = ? AND e.uuid = ?",
        [IDS.group, IDS.b],
      );
      await locker.beginTransaction();
      await locker.query("INSERT INTO fixes (start_group_id, entry_id, t, lat, lon) VALUES (?, ?, ?, ?, -1)", [
        ids!.g,
        ids!.e,
        Number(boat.t[1]),
        boat.lat[1],
      ]);
      const [patientToken, headers] = [bearer(await tokenFor(patient.url, "writer")), bearer(await tokenFor(quick.url, "writer"))];
      const batch = ingestClient(patient.runtime).appendFixes(
        { raceId: IDS.race, startGroupId: IDS.group, boats: [boat] },
        { headers: patientToken },
      );
      await untilTheInsertWaits();

      const client = ingestClient(quick.runtime);
      await expect(client.updateEvent({ eventId: IDS.event, trackingShared: true }, { headers })).resolves.toBeDefined();
      await expect(
        client.updateStartGroup({ raceId: IDS.race, startGroupId: IDS.group, state: StartGroupState.STARTED }, { headers }),
      ).resolves.toBeDefined();
      // The batch was still open all along, waiting in its insert.
      expect(await insertsRunning()).toBe(1);

      await locker.rollback();
      expect(await batch).toMatchObject({ accepted: 20, duplicates: 0, rejected: [] });
    } finally {
      await locker.rollback().catch(() => {});
      locker.release();
      await Promise.all([patient.close(), quick.close()]);
      await Promise.all([patientPool.end(), quickPool.end()]);
    }
  });
});

/** Statements of this database's connections running an insert of fixes (the process list shows a user's own without a privilege). */
async function insertsRunning(): Promise<number> {
  const [[row]] = await db.pool.query<RowDataPacket[]>(
    "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'INSERT IGNORE INTO fixes%'",
  );
  return Number(row!.n);
}

/** Polls until the batch's insert runs: it has read what it checks against, and waits for the key. */
async function untilTheInsertWaits(): Promise<void> {
  while ((await insertsRunning()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}
