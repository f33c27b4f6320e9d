// A track window near the cut-off is read again every few seconds: its part before the
// settled edge (cut-off - 2 min), which no write may change any more, is kept from the
// read before, and only the rows after it are read. What is stored after the edge is
// served at the next read; what an administrator's import stores before it is not.

import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GetTrackPageResponse } from "../../gen/racing/v1/track_pb.js";
import { importScenario } from "../../src/scenario/import.js";
import { upsertFixes } from "../../src/store/fixes.js";
import { useFreshDatabase } from "../support/database.js";
import { startApi, tokenFor, type Api } from "../support/api.js";
import { DELAY_SECONDS, GUN, MINUTE, TRACK_IDS as IDS, trackPageInProcess, trackScenario } from "../support/track-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let token: string;

beforeAll(async () => {
  await importScenario(db.pool, trackScenario());
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(() => api?.close());

function call(since: number, until?: number): Promise<GetTrackPageResponse> {
  return trackPageInProcess(api, token, since, until);
}

/** The late boat's sample times in a page (it reports every 10 s from gun + 7 min). */
function lateTimes(page: GetTrackPageResponse): number[] {
  return page.boats.find((boat) => boat.entryId === IDS.late)!.t.map(Number);
}

/** A fix of the late boat at `t`, stored as `race-api import` stores it (the only writer that may reach settled time). */
async function storeLateFix(t: number): Promise<void> {
  const [[ids]] = await db.pool.query<RowDataPacket[]>(
    "SELECT sg.id AS groupId, e.id AS entryId FROM start_groups sg, entries e WHERE sg.uuid = ? AND e.uuid = ?",
    [IDS.group, IDS.late],
  );
  const conn = await db.pool.getConnection();
  try {
    await upsertFixes(conn, ids!.groupId, ids!.entryId, { t: [t], lat: [50.75], lon: [-1.35], sogKn: [6], cogDeg: [90] });
  } finally {
    conn.release();
  }
}

describe("a track window near the cut-off, read again", () => {
  it("reads only the rows after its settled part: a fix stored after the edge is served, one stored before it is not", async () => {
    const cutoff = Date.now() - DELAY_SECONDS * 1000;
    const since = cutoff - 8 * MINUTE;
    const first = await call(since);
    expect(first.until!.seconds).toBeGreaterThanOrEqual(BigInt(Math.floor(cutoff / 1000)));

    // Between two of the late boat's own fixes: 4 minutes and 1 minute before the cut-off.
    const onGrid = (ms: number) => GUN + 7 * MINUTE + Math.floor((ms - GUN - 7 * MINUTE) / 10_000) * 10_000;
    const settled = onGrid(cutoff - 4 * MINUTE) + 5000;
    const open = onGrid(cutoff - MINUTE) + 5000;
    expect(lateTimes(first)).not.toContain(settled);
    expect(lateTimes(first)).not.toContain(open);
    await storeLateFix(settled);
    await storeLateFix(open);

    // After the 2 s a near-now answer is shared.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const againPage = await call(since);
    const again = lateTimes(againPage);
    expect(again).toContain(open);
    expect(again).not.toContain(settled);
    // Asked for as another window (another until), the same stretch is read whole: both are stored.
    const whole = lateTimes(await call(since, since + 10 * MINUTE - 1000));
    expect(whole).toContain(settled);
    expect(whole).toContain(open);
    // Otherwise the same fixes, in time order.
    const againUntil = Number(againPage.until!.seconds) * 1000 + againPage.until!.nanos / 1e6;
    expect(again).toEqual(whole.filter((t) => t !== settled && t < againUntil));
  });
});
