// Insights keep the promises of the capture window and of the delay: no fact from a
// boat's position outside its capture window (before gun - 5 min, after its own
// finish), and after the event's delay is raised, no answer shows what that delay hides;
// a mark that serves several steps is named for the step its boat is passing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { destinationPoint, type LatLon } from "../../src/domain/geo.js";
import { useFreshDatabase } from "../support/database.js";
import { bearer, CLUB, identityScenario, seedIdentities, startApi, tokenFor, type Api } from "../support/api.js";
import { entry, iso, MINUTE, sharedEvent, track, uuid } from "../support/race-scenarios.js";

const db = useFreshDatabase();
const NOW = Math.floor(Date.now() / 1000) * 1000;
const EVENT = uuid("e3000000", 1);
const RACE = uuid("a3000000", 1);
const [STARTED, NOT_YET] = [uuid("b3000000", 1), uuid("b3000000", 2)];
const [ROUNDS, FINISHED, SAILING_TO_START, SECOND_LAP] = [
  uuid("d3000000", 1),
  uuid("d3000000", 2),
  uuid("d3000000", 3),
  uuid("d3000000", 4),
];
const MARK: LatLon = { lat: 50.8, lon: -1.3 };
const at = (distanceM: number) => destinationPoint(MARK, 0, distanceM);
const south = (distanceM: number) => destinationPoint(MARK, 180, distanceM);
type Fix = { t: number; lat: number; lon: number };
/** Across the start line 30 s after `gunMs`, from below it: the boat has started. */
const starting = (gunMs: number): Fix[] => [
  { t: gunMs + 10_000, ...destinationPoint(MARK, 178, 2050) },
  { t: gunMs + 70_000, ...destinationPoint(MARK, 178, 1900) },
];
/** Into the windward mark's 50 m at `atMs` (first fix inside), then on toward the next step, south. */
const rounding = (atMs: number): Fix[] => [
  { t: atMs - 2000, ...at(70) },
  { t: atMs - 1000, ...at(60) },
  { t: atMs, ...at(20) },
  { t: atMs + 10_000, ...south(30) },
  { t: atMs + 20_000, ...south(80) },
];
const course = (gunMs: number) => [
  {
    version: 1,
    appliedFromUtc: iso(gunMs - 10 * MINUTE),
    steps: [
      {
        kind: "start" as const,
        label: "Start",
        marks: [
          { key: "pin", ...destinationPoint(MARK, 180, 2000) },
          { key: "rc", ...destinationPoint(MARK, 175, 2000) },
        ],
      },
      { kind: "mark" as const, label: "Windward 1", marks: [{ key: "windward", ...MARK }] },
      { kind: "mark" as const, label: "Leeward", marks: [{ key: "leeward", ...destinationPoint(MARK, 180, 1500) }] },
      { kind: "mark" as const, label: "Windward 2", marks: [{ key: "windward", ...MARK }] },
      {
        kind: "finish" as const,
        label: "Finish",
        marks: [
          { key: "f1", ...destinationPoint(MARK, 180, 2100) },
          { key: "f2", ...destinationPoint(MARK, 175, 2100) },
        ],
      },
    ],
  },
];
const WIND_SHIFT_AT = NOW - 150_000;

let api: Api;
let token: string;
beforeAll(async () => {
  const scenario = identityScenario();
  const startedGun = NOW - 30 * MINUTE;
  const laterGun = NOW + 20 * MINUTE;
  scenario.events = [
    sharedEvent(EVENT, CLUB, {
      delaySeconds: 0,
      entries: [
        entry(ROUNDS, "GBR 1", "Rounds"),
        entry(FINISHED, "GBR 2", "Finished"),
        entry(SAILING_TO_START, "GBR 3", "Early"),
        entry(SECOND_LAP, "GBR 4", "Lapping"),
      ],
      races: [
        {
          id: RACE,
          raceNo: 1,
          name: "Race 1",
          isLive: true,
          startGroups: [
            {
              id: STARTED,
              name: "Started fleet",
              state: "Started",
              startTimeUtc: iso(startedGun),
              entryIds: [ROUNDS, FINISHED, SECOND_LAP],
              courses: course(startedGun),
              wind: [
                { measuredAtUtc: iso(NOW - 20 * MINUTE), twd: 200, tws: 10 },
                { measuredAtUtc: iso(WIND_SHIFT_AT), twd: 230, tws: 10 },
              ],
              // Finished 10 minutes ago, then sailed home past the windward mark.
              finishes: [{ entryId: FINISHED, finishTimeUtc: iso(NOW - 10 * MINUTE) }],
              tracks: [
                track(ROUNDS, [...starting(startedGun), ...rounding(NOW - 4 * MINUTE)]),
                track(FINISHED, [...starting(startedGun), ...rounding(NOW - 4 * MINUTE)]),
                // Round the windward mark 25 minutes ago (lap 1), the leeward mark, and the windward mark again now (lap 2).
                track(SECOND_LAP, [
                  ...starting(startedGun),
                  ...rounding(NOW - 25 * MINUTE),
                  { t: NOW - 16 * MINUTE, ...south(1440) },
                  { t: NOW - 16 * MINUTE + 1000, ...south(1480) },
                  { t: NOW - 16 * MINUTE + 10_000, ...south(1400) },
                  { t: NOW - 10 * MINUTE, ...south(700) },
                  ...rounding(NOW - 3 * MINUTE),
                ]),
              ],
            },
            {
              id: NOT_YET,
              name: "Later fleet",
              state: "Scheduled",
              startTimeUtc: iso(laterGun),
              entryIds: [SAILING_TO_START],
              courses: course(laterGun),
              tracks: [track(SAILING_TO_START, [...starting(NOW - 20 * MINUTE), ...rounding(NOW - 3 * MINUTE)])],
            },
          ],
        },
      ],
    }),
  ];
  await seedIdentities(db, scenario);
  api = await startApi(db);
  token = await tokenFor(api.url, "overlay");
});
afterAll(() => api?.close());

interface InsightsJson {
  delaySeconds: number;
  dataAsOf: string;
  insights: Array<{ kind: string; atUtc: string; markLabel: string | null; boats: Array<{ entryId: string }> }>;
}

async function insights(): Promise<InsightsJson> {
  const response = await fetch(`${api.url}/api/v1/races/${RACE}/live/insights`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  return (await response.json()) as InsightsJson;
}

describe("insights and the capture window", () => {
  it("report a rounding inside the window, none by a boat that had finished or whose gun is still to come", async () => {
    const body = await insights();
    const roundings = body.insights
      .filter((insight) => insight.kind === "markRounding")
      .map((insight) => [insight.boats[0]!.entryId, insight.markLabel]);
    // One windward mark serves two steps: each rounding names the step its boat is on.
    expect(roundings).toEqual([
      [SECOND_LAP, "Windward 2"],
      [ROUNDS, "Windward 1"],
    ]);
    expect(body.insights.some((insight) => insight.kind === "windShift" && insight.atUtc === iso(WIND_SHIFT_AT))).toBe(true);
  });
});

describe("insights after the delay is raised", () => {
  it("state the new delay and show nothing it hides, at once", async () => {
    expect((await insights()).delaySeconds).toBe(0);
    await db.pool.query("UPDATE events SET delay_seconds = 600 WHERE uuid = ?", [EVENT]);
    // Races are re-read at most every 2 s.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    for (let i = 0; i < 3; i++) {
      const body = await insights();
      expect(body.delaySeconds).toBe(600);
      expect(Date.parse(body.dataAsOf)).toBeLessThanOrEqual(Date.now() - 600_000);
      for (const insight of body.insights) expect(Date.parse(insight.atUtc)).toBeLessThanOrEqual(Date.parse(body.dataAsOf));
      expect(body.insights.some((insight) => insight.kind === "windShift")).toBe(false);
    }
  });
});
