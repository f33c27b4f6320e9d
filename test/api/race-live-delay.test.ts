// The delay of the live feed: an event with delaySeconds 120 shows the race as it stood
// two minutes ago. Newer fixes, wind, live order, finishes, course versions and the
// group's own gun and finish stay hidden; dataAsOf is now - 120 s in body and header.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importScenario } from "../../src/scenario/import.js";
import type { Scenario } from "../../src/domain/scenario.js";
import { CLUB, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { useFreshDatabase } from "../support/database.js";
import { entry, iso, MINUTE, restLive, sharedEvent, track, uuid } from "../support/race-scenarios.js";

const db = useFreshDatabase();
let api: Api;
let token: string;

const DELAY_S = 120;
const SECOND = 1000;
const RACE = uuid("a3000000", 1);
const GROUP_FINISHED = uuid("b3000000", 1);
const GROUP_JUST_STARTED = uuid("b3000000", 2);
const D = [1, 2, 3].map((n) => uuid("d3000000", n)) as [string, string, string];
// Anchored when the race is imported, just before the first call: items 60 s old are
// newer than dataAsOf (now - 120 s) for the first minute of this file, 130 s old ones older.
let now = 0;

function delayedRace(): Scenario {
  const gun = now - 20 * MINUTE;
  const scenario = identityScenario();
  scenario.events = [
    sharedEvent(uuid("e3000000", 1), CLUB, {
      delaySeconds: DELAY_S,
      entries: [entry(D[0], "NED 2", "Delft"), entry(D[1], "NED 1", "Utrecht"), entry(D[2], "NED 3", "Zwolle")],
      races: [
        {
          id: RACE,
          raceNo: 1,
          name: "Delayed",
          isLive: true,
          startGroups: [
            {
              id: GROUP_FINISHED,
              name: "Finished a minute ago",
              state: "Finished",
              startTimeUtc: iso(gun),
              finishTimeUtc: iso(now - 60 * SECOND),
              entryIds: [D[0], D[1]],
              courses: [
                { version: 1, appliedFromUtc: iso(gun - 10 * MINUTE), steps: [] },
                { version: 2, appliedFromUtc: iso(now - 60 * SECOND), steps: [] },
              ],
              wind: [
                { measuredAtUtc: iso(now - 200 * SECOND), twd: 180, tws: 10 },
                { measuredAtUtc: iso(now - 60 * SECOND), twd: 200, tws: 14 },
              ],
              liveOrder: [
                {
                  asOfUtc: iso(now - 200 * SECOND),
                  rows: [
                    { entryId: D[1], rank: 1 },
                    { entryId: D[0], rank: 2 },
                  ],
                },
                {
                  asOfUtc: iso(now - 60 * SECOND),
                  rows: [
                    { entryId: D[0], rank: 1 },
                    { entryId: D[1], rank: 2 },
                  ],
                },
              ],
              finishes: [
                // D0 finished a minute ago: not yet for a viewer two minutes behind.
                { entryId: D[0], finishTimeUtc: iso(now - 60 * SECOND) },
                { entryId: D[1], finishTimeUtc: iso(now - 150 * SECOND) },
              ],
              tracks: [
                track(D[0], [
                  { t: now - 200 * SECOND, lat: 52.1, lon: 4.1 },
                  { t: now - 130 * SECOND, lat: 52.2, lon: 4.2 },
                  { t: now - 61 * SECOND, lat: 52.3, lon: 4.3 },
                  { t: now - 59 * SECOND, lat: 52.4, lon: 4.4 },
                ]),
                track(D[1], [
                  { t: now - 300 * SECOND, lat: 52.5, lon: 4.5 },
                  { t: now - 140 * SECOND, lat: 52.6, lon: 4.6 },
                ]),
              ],
            },
            {
              id: GROUP_JUST_STARTED,
              name: "Started a minute ago",
              state: "Started",
              startTimeUtc: iso(now - 60 * SECOND),
              entryIds: [D[2]],
              // Inside the capture window (from gun - 5 min) and before dataAsOf: shown before the start.
              tracks: [
                track(D[2], [
                  { t: now - 200 * SECOND, lat: 52.7, lon: 4.7 },
                  { t: now - 30 * SECOND, lat: 52.8, lon: 4.8 },
                ]),
              ],
            },
          ],
        },
      ],
    }),
  ];
  return scenario;
}

beforeAll(async () => {
  await seedIdentities(db);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
  now = Date.now();
  await importScenario(db.pool, delayedRace());
});
afterAll(() => api?.close());

describe("an event with delaySeconds 120", () => {
  it("shows the race as it stood at now - 120 s, in the body and in X-Data-As-Of", async () => {
    const before = Date.now();
    const response = await restLive(api.url, token, RACE);
    const after = Date.now();
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    // The first call of the race is its shared read: dataAsOf was cut during it.
    const asOf = Date.parse(body.dataAsOf as string);
    expect(asOf).toBeGreaterThanOrEqual(before - DELAY_S * 1000);
    expect(asOf).toBeLessThanOrEqual(after - DELAY_S * 1000);
    expect(response.headers.get("x-data-as-of")).toBe(body.dataAsOf);
    // Every timed item below lies far enough from dataAsOf for the assertions to hold for the first minute.
    expect(after - now).toBeLessThan(50_000);

    expect(body).toMatchObject({ raceId: RACE, isLive: true, delaySeconds: DELAY_S });
    expect(body.startGroups).toEqual([
      {
        startGroupId: GROUP_FINISHED,
        name: "Finished a minute ago",
        // The finish a viewer at dataAsOf has not seen yet is neither a state nor a time.
        state: "Started",
        startTimeUtc: iso(now - 20 * MINUTE),
        finishTimeUtc: null,
        courseVersion: 1,
        wind: { twd: 180, tws: 10, measuredAtUtc: iso(now - 200 * SECOND) },
        boats: [
          // NED 1 finished (150 s ago, visible): its window ends there.
          {
            entryId: D[1],
            sailNumber: "NED 1",
            boatName: "Utrecht",
            lat: 52.5,
            lon: 4.5,
            sogKn: null,
            cogDeg: null,
            fixTimeUtc: iso(now - 300 * SECOND),
          },
          // NED 2's finish is not visible yet: its newest fix at or before dataAsOf.
          {
            entryId: D[0],
            sailNumber: "NED 2",
            boatName: "Delft",
            lat: 52.2,
            lon: 4.2,
            sogKn: null,
            cogDeg: null,
            fixTimeUtc: iso(now - 130 * SECOND),
          },
        ],
        liveOrder: [
          {
            entryId: D[1],
            rank: 1,
            elapsedSeconds: null,
            correctedSeconds: null,
            deltaSeconds: null,
            finishTimeUtc: iso(now - 150 * SECOND),
          },
          { entryId: D[0], rank: 2, elapsedSeconds: null, correctedSeconds: null, deltaSeconds: null, finishTimeUtc: null },
        ],
        liveOrderAsOf: iso(now - 200 * SECOND),
        course: [],
      },
      {
        startGroupId: GROUP_JUST_STARTED,
        name: "Started a minute ago",
        // The gun fired 60 s ago, after dataAsOf; its (published) start time is shown.
        state: "Scheduled",
        startTimeUtc: iso(now - 60 * SECOND),
        finishTimeUtc: null,
        courseVersion: 0,
        wind: null,
        boats: [
          {
            entryId: D[2],
            sailNumber: "NED 3",
            boatName: "Zwolle",
            lat: 52.7,
            lon: 4.7,
            sogKn: null,
            cogDeg: null,
            fixTimeUtc: iso(now - 200 * SECOND),
          },
        ],
        liveOrder: null,
        liveOrderAsOf: null,
        course: [],
      },
    ]);
  });

  it("answers a 304 with the same X-Data-As-Of as the 200 it stands for", async () => {
    for (let attempt = 1; ; attempt++) {
      const first = await restLive(api.url, token, RACE);
      const again = await restLive(api.url, token, RACE, { "if-none-match": first.headers.get("etag")! });
      if (again.status === 200 && attempt < 5) continue; // a new shared read began between the two
      expect(again.status).toBe(304);
      expect(again.headers.get("x-data-as-of")).toBe(first.headers.get("x-data-as-of"));
      expect(Date.parse(again.headers.get("x-data-as-of")!)).toBeLessThanOrEqual(Date.now() - DELAY_S * 1000);
      return;
    }
  });
});
