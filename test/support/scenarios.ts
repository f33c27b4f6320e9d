// Small hand-made scenarios whose every value a test can name.

import type { Scenario } from "../../src/domain/scenario.js";

export const IDS = {
  club: "11111111-1111-4111-8111-111111111111",
  otherClub: "22222222-2222-4222-8222-222222222222",
  event: "33333333-3333-4333-8333-333333333333",
  race: "44444444-4444-4444-8444-444444444444",
  group: "55555555-5555-4555-8555-555555555555",
  entryA: "aaaaaaaa-0000-4000-8000-000000000001",
  entryB: "aaaaaaaa-0000-4000-8000-000000000002",
  entryC: "aaaaaaaa-0000-4000-8000-000000000003",
} as const;

export const GUN = Date.parse("2026-11-21T10:00:00.000Z");

/** One club, one client, one event with three entries, one race with one start group and some of everything. */
export function smallScenario(): Scenario {
  const t = [GUN, GUN + 1000, GUN + 2000, GUN + 3000];
  return {
    format: "race-scenario/v1",
    clubs: [
      { id: IDS.club, name: "Royal Test Yacht Club", rateLimitPerMinute: 90 },
      { id: IDS.otherClub, name: "Co-host Sailing Club" },
    ],
    clients: [
      {
        clientId: "overlay-1",
        clientSecret: "s3cret-overlay-1",
        clubId: IDS.club,
        scopes: ["tracking:read", "events:read"],
        ipAllowlist: ["10.0.0.0/8"],
      },
    ],
    events: [
      {
        id: IDS.event,
        clubId: IDS.club,
        coHostClubIds: [IDS.otherClub],
        name: "Autumn Series",
        startDate: "2026-11-21T09:00:00Z",
        trackingShared: true,
        delaySeconds: 30,
        entries: [
          {
            id: IDS.entryA,
            sailNumber: "GBR 9",
            boatName: "Aurora",
            userId: "user-private-1",
            deviceId: "device-private-1",
            phoneModel: "Phone X",
          },
          { id: IDS.entryB, sailNumber: "GBR 10", boatName: "Borealis" },
          { id: IDS.entryC, sailNumber: "GBR 11", boatName: "Cirrus", approved: false },
        ],
        races: [
          {
            id: IDS.race,
            raceNo: 1,
            name: "Race 1",
            isLive: true,
            startGroups: [
              {
                id: IDS.group,
                name: "Fleet A",
                state: "Started",
                startTimeUtc: new Date(GUN).toISOString(),
                finishTimeUtc: null,
                entryIds: [IDS.entryA, IDS.entryB, IDS.entryC],
                courses: [
                  {
                    version: 1,
                    appliedFromUtc: "2026-11-21T09:50:00.000Z",
                    steps: [
                      {
                        kind: "start",
                        marks: [
                          { key: "pin", lat: 50.77, lon: -1.3 },
                          { key: "committee", lat: 50.7702, lon: -1.299 },
                        ],
                      },
                      { kind: "mark", label: "Windward", marks: [{ key: "W", lat: 50.79, lon: -1.3 }] },
                      {
                        kind: "finish",
                        marks: [
                          { key: "f1", lat: 50.77, lon: -1.3 },
                          { key: "f2", lat: 50.7702, lon: -1.299 },
                        ],
                      },
                    ],
                  },
                ],
                wind: [
                  { measuredAtUtc: "2026-11-21T09:59:00.000Z", twd: 350, tws: 12.5 },
                  { measuredAtUtc: "2026-11-21T10:01:00.000Z", twd: 5, tws: null },
                ],
                liveOrder: [
                  {
                    asOfUtc: "2026-11-21T10:00:20.000Z",
                    rows: [
                      { entryId: IDS.entryB, rank: 1, elapsedSeconds: 20, correctedSeconds: 21.5, deltaSeconds: 0 },
                      { entryId: IDS.entryA, rank: null },
                    ],
                  },
                ],
                finishes: [{ entryId: IDS.entryB, finishTimeUtc: "2026-11-21T10:45:00.000Z" }],
                tracks: [
                  {
                    entryId: IDS.entryA,
                    t,
                    lat: [50.77, 50.7701, 50.7702, 50.7703],
                    lon: [-1.3, -1.3, -1.3, -1.3],
                    sogKn: [5.1, null, 5.3, 5.4],
                    cogDeg: [10, 11, null, 13],
                    accuracyM: [3, 4, 5, 6],
                  },
                  { entryId: IDS.entryB, t: t.slice(0, 2), lat: [50.771, 50.7711], lon: [-1.301, -1.301] },
                ],
                results: {
                  status: "provisional",
                  publishedAtUtc: "2026-11-21T11:00:00.000Z",
                  rows: [{ entryId: IDS.entryB, rank: 1, status: "OK", elapsedSeconds: 2700, correctedSeconds: 2800, points: 1 }],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/** A deep copy to break: tests mutate it without touching the original. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
