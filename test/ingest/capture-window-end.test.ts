// The capture window's end, gun + 3 h, on every path: ingest refuses a fix at exactly
// it (and takes the millisecond before), the live answer never shows one (not even an
// imported one), and the track's last page, which reaches gun + 3 h, serves the
// boat's last live position. One window, [gun - 5 min, gun + 3 h), everywhere.

import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixRejectionReason } from "../../gen/racing/v1/ingest_pb.js";
import { CAPTURE_AFTER_GUN_MS } from "../../src/domain/race-time.js";
import type { Scenario } from "../../src/domain/scenario.js";
import { importScenario } from "../../src/scenario/import.js";
import { bearer, CLUB, secretOf, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { ingestClient } from "../support/ingest-scenarios.js";
import { entry, iso, MINUTE, sharedEvent, uuid } from "../support/race-scenarios.js";

const db = useFreshDatabase();
/** Gun + 3 h, half a minute ago: after it, and still later than the settled edge (now - 110 s). */
const CLOSE = Math.floor(Date.now() / 1000) * 1000 - 30_000;
const GUN = CLOSE - CAPTURE_AFTER_GUN_MS;
const IDS = { event: uuid("e7000000", 1), race: uuid("a7000000", 1), group: uuid("b7000000", 1), fed: uuid("d7000000", 1) };
/** A boat whose phone's log was imported, fixes at gun + 3 h included (the import keeps what the file says). */
const IMPORTED = uuid("d7000000", 2);

function scenario(): Scenario {
  return {
    format: "race-scenario/v1",
    clubs: [{ id: CLUB, name: "Main Club" }],
    clients: [
      { clientId: "writer", clientSecret: secretOf("writer"), clubId: CLUB, scopes: ["tracking:write"] },
      { clientId: "reader", clientSecret: secretOf("reader"), clubId: CLUB, scopes: ["tracking:read"] },
    ],
    events: [
      sharedEvent(IDS.event, CLUB, {
        entries: [entry(IDS.fed, "GBR 1", "Fed"), entry(IMPORTED, "GBR 2", "Imported")],
        races: [
          {
            id: IDS.race,
            raceNo: 1,
            name: "Race 1",
            isLive: true,
            startGroups: [
              {
                id: IDS.group,
                name: "Fleet",
                state: "Started",
                startTimeUtc: iso(GUN),
                entryIds: [IDS.fed, IMPORTED],
                tracks: [{ entryId: IMPORTED, t: [CLOSE - 2000, CLOSE - 1000, CLOSE], lat: [50.1, 50.2, 50.3], lon: [-1, -1, -1] }],
              },
            ],
          },
        ],
      }),
    ],
  };
}

let api: Api;
let reader: Record<string, string>;
let lastLive: Map<string, string>;

beforeAll(async () => {
  await importScenario(db.pool, scenario());
  api = await startApi(db);
  reader = bearer(await tokenFor(api.url, "reader"));
  const writer = bearer(await tokenFor(api.url, "writer"));
  const t = [CLOSE - 2000, CLOSE - 1, CLOSE].map(BigInt);
  const answer = await ingestClient(api.runtime).appendFixes(
    { raceId: IDS.race, startGroupId: IDS.group, boats: [{ entryId: IDS.fed, t, lat: [50.4, 50.5, 50.6], lon: [-1, -1, -1] }] },
    { headers: writer },
  );
  expect({ accepted: answer.accepted, rejected: answer.rejected.map((r) => [Number(r.t), r.reason]) }).toEqual({
    accepted: 2,
    rejected: [[CLOSE, FixRejectionReason.OUTSIDE_CAPTURE_WINDOW]],
  });
  const live = (await (await fetch(`${api.url}/api/v1/races/${IDS.race}/live`, { headers: reader })).json()) as {
    startGroups: { boats: { entryId: string; fixTimeUtc: string }[] }[];
  };
  lastLive = new Map(live.startGroups[0]!.boats.map((b) => [b.entryId, b.fixTimeUtc]));
});
afterAll(() => api?.close());

describe("gun + 3 h", () => {
  it("is refused by ingest, the millisecond before taken", async () => {
    const [rows] = await db.pool.query<RowDataPacket[]>(
      "SELECT f.t FROM fixes f JOIN entries e ON e.id = f.entry_id WHERE e.uuid = ? ORDER BY f.t",
      [IDS.fed],
    );
    expect(rows.map((r) => Number(r.t))).toEqual([CLOSE - 2000, CLOSE - 1]);
  });

  it("is not the live answer's position, even for a fix stored there", () => {
    expect(Object.fromEntries(lastLive)).toEqual({ [IDS.fed]: iso(CLOSE - 1), [IMPORTED]: iso(CLOSE - 1000) });
  });

  it("is on no track page; the last page, which ends the paging, ends with each boat's live position", async () => {
    const response = await fetch(`${api.url}/api/v1/races/${IDS.race}/track?since=${iso(CLOSE - 10 * MINUTE)}`, { headers: reader });
    const page = (await response.json()) as { nextSince: string | null; boats: { entryId: string; t: number[] }[] };
    expect(page.nextSince).toBeNull();
    expect(page.boats.map((b) => [b.entryId, b.t])).toEqual([
      [IDS.fed, [CLOSE - 2000, CLOSE - 1]],
      [IMPORTED, [CLOSE - 2000, CLOSE - 1000]],
    ]);
    for (const boat of page.boats) expect(iso(boat.t.at(-1)!)).toBe(lastLive.get(boat.entryId));
  });
});
