// Concurrent retries of IngestService writes: the same fix sent by several calls at
// once is written once, and the others count it as a duplicate; two versions sent at
// once keep one, and the other's calls are told CONFLICT; no call fails.

import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixRejectionReason } from "../../../gen/racing/v1/ingest_pb.js";
import { importScenario } from "../../../src/scenario/import.js";
import { createPool, type Pool } from "../../../src/store/pool.js";
import { bearer, startApi, tokenFor, type Api } from "../../support/api.js";
import { useFreshDatabase } from "../../support/database.js";
import { boatFixes, INGEST_IDS as IDS, ingestClient, ingestScenario } from "../../support/ingest-scenarios.js";

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
