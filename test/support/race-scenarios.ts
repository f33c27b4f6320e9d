// Hand-written race scenarios for the race endpoints' tests (every value named), and
// the live endpoint called over REST, Connect and gRPC.

import { create, fromBinary, fromJson, toBinary, type JsonValue } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { GetRaceLiveRequestSchema, GetRaceLiveResponseSchema, type GetRaceLiveResponse } from "../../gen/racing/v1/race_live_pb.js";
import type { CourseStep, Entry, Event, Scenario, Track } from "../../src/domain/scenario.js";
import { bearer, CLUB, CO_HOST_CLUB, connectCall, identityScenario, OTHER_CLUB } from "./api.js";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** A UUID made of an 8-hex-digit prefix and a number, e.g. `uuid("e1000000", 3)`. */
export function uuid(prefix: string, n: number): string {
  return `${prefix}-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function entry(id: string, sailNumber: string, boatName: string, extra: Partial<Entry> = {}): Entry {
  return { id, sailNumber, boatName, ...extra };
}

export interface Fix {
  t: number;
  lat: number;
  lon: number;
  sogKn?: number | null;
  cogDeg?: number | null;
  accuracyM?: number | null;
}

/** A track from fixes in time order; speed, course and accuracy null where not given. */
export function track(entryId: string, fixes: Fix[]): Track {
  return {
    entryId,
    t: fixes.map((f) => f.t),
    lat: fixes.map((f) => f.lat),
    lon: fixes.map((f) => f.lon),
    sogKn: fixes.map((f) => f.sogKn ?? null),
    cogDeg: fixes.map((f) => f.cogDeg ?? null),
    accuracyM: fixes.map((f) => f.accuracyM ?? null),
  };
}

/** A published event of `clubId` sharing tracking, no delay, unless `extra` says otherwise. */
export function sharedEvent(id: string, clubId: string, extra: Partial<Event> = {}): Event {
  return {
    id,
    clubId,
    name: `Event ${id.slice(0, 8)}`,
    startDate: "2026-01-01T00:00:00.000Z",
    trackingShared: true,
    delaySeconds: 0,
    published: true,
    entries: [],
    races: [],
    ...extra,
  };
}

export const GET_RACE_LIVE = "racing.v1.RaceLiveService/GetRaceLive";

export function restLive(url: string, token: string, raceId: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/api/v1/races/${raceId}/live`, { headers: { ...bearer(token), ...headers } });
}

export function connectLive(url: string, token: string, raceId: string): Promise<Response> {
  return connectCall(url, GET_RACE_LIVE, { raceId }, bearer(token));
}

/** A Connect JSON answer as the message it encodes. */
export async function connectLiveMessage(url: string, token: string, raceId: string): Promise<GetRaceLiveResponse> {
  const response = await connectLive(url, token, raceId);
  if (response.status !== 200) throw new Error(`Connect GetRaceLive: ${response.status} ${await response.text()}`);
  return fromJson(GetRaceLiveResponseSchema, (await response.json()) as JsonValue);
}

/** One gRPC call (@grpc/grpc-js) answering the raw response bytes, as they came over the wire. */
export function grpcLiveBytes(client: grpc.Client, token: string, raceId: string): Promise<Buffer> {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      `/${GET_RACE_LIVE}`,
      (bytes: Uint8Array) => Buffer.from(bytes),
      (bytes: Buffer) => bytes,
      toBinary(GetRaceLiveRequestSchema, create(GetRaceLiveRequestSchema, { raceId })),
      metadata,
      (error, value) => (error ? reject(error) : resolve(value!)),
    );
  });
}

export async function grpcLiveMessage(client: grpc.Client, token: string, raceId: string): Promise<GetRaceLiveResponse> {
  return fromBinary(GetRaceLiveResponseSchema, await grpcLiveBytes(client, token, raceId));
}

// The hand-written race of the live tests. Everything is placed relative to the moment
// the test file loads this module: "past" data lies at least
// 10 s back, "future" data at least a minute ahead, so no answer may show it.
export const NOW = Math.floor(Date.now() / 1000) * 1000;
export const GUN_A = NOW - 30 * MINUTE;
export const GUN_C = NOW - 4 * HOUR;
export const FINISH_E2 = GUN_A + 20 * MINUTE;

/** The course Fleet A has applied at NOW: a start line, a windward mark, a gate and a finish. */
export const COURSE_V2: CourseStep[] = [
  {
    kind: "start",
    marks: [
      { key: "pin", lat: 50.79, lon: -1.31 },
      { key: "committee", lat: 50.79, lon: -1.29 },
    ],
  },
  { kind: "mark", label: "Windward", marks: [{ key: "W", lat: 50.81, lon: -1.3 }] },
  {
    kind: "gate",
    label: "Leeward gate",
    marks: [
      { key: "4S", lat: 50.785, lon: -1.302 },
      { key: "4P", lat: 50.785, lon: -1.298 },
    ],
  },
  {
    kind: "finish",
    label: null,
    marks: [
      { key: "f1", lat: 50.795, lon: -1.31 },
      { key: "f2", lat: 50.795, lon: -1.29 },
    ],
  },
];

export const EVENT = uuid("e1000000", 1);
export const RACE = uuid("a1000000", 1);
export const RACE_NOT_LIVE = uuid("a1000000", 2);
export const RACE_NO_READING = uuid("a1000000", 3);
export const GROUP_A = uuid("b1000000", 1);
export const GROUP_B = uuid("b1000000", 2);
export const GROUP_C = uuid("b1000000", 3);
export const GROUP_D = uuid("b1000000", 4);
export const E = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i + 1, uuid("d1000000", i + 1)])) as Record<number, string>;

/** Distinctive private values: no answer may carry them. */
export const PRIVATE = {
  userId: "user-PRIVATE-7731",
  deviceId: "device-PRIVATE-7732",
  phoneModel: "model-PRIVATE-7733",
  accuracyM: 4242.4242,
};

export const HIDDEN_RACES = {
  unpublished: uuid("a2000000", 1),
  legacy: uuid("a2000000", 2),
  otherClub: uuid("a2000000", 3),
  notShared: uuid("a2000000", 4),
};

function mainEvent(): Event {
  return sharedEvent(EVENT, CLUB, {
    coHostClubIds: [CO_HOST_CLUB],
    entries: [
      entry(E[1]!, "GBR 10", "Tenacious", { userId: PRIVATE.userId, deviceId: PRIVATE.deviceId, phoneModel: PRIVATE.phoneModel }),
      entry(E[2]!, "GBR 9", "Ninefold"),
      entry(E[3]!, "GBR 100", "Early Bird"),
      entry(E[4]!, "GBR 11", "Unapproved", { approved: false }),
      entry(E[5]!, "GBR 12", "No Phone", { hasPhone: false }),
      entry(E[6]!, "GBR 8", "Boundary"),
      entry(E[7]!, "GBR 7", "Future Only"),
      entry(E[8]!, "GBR 1", "No Gun"),
    ],
    races: [
      {
        id: RACE,
        raceNo: 1,
        name: "Race 1",
        isLive: true,
        startGroups: [
          {
            id: GROUP_A,
            name: "Fleet A",
            state: "Started",
            startTimeUtc: iso(GUN_A),
            finishTimeUtc: null,
            entryIds: [E[1]!, E[2]!, E[3]!, E[4]!, E[5]!, E[6]!, E[7]!],
            courses: [
              {
                version: 1,
                appliedFromUtc: iso(GUN_A - 10 * MINUTE),
                steps: [{ kind: "mark", label: "Old windward", marks: [{ key: "W0", lat: 50.9, lon: -1.3 }] }],
              },
              { version: 2, appliedFromUtc: iso(NOW - 2 * MINUTE), steps: COURSE_V2 },
              {
                version: 3,
                appliedFromUtc: iso(NOW + 10 * MINUTE),
                steps: [{ kind: "mark", label: "Future", marks: [{ key: "F", lat: 51, lon: -1 }] }],
              },
            ],
            wind: [
              { measuredAtUtc: iso(NOW - 20 * MINUTE), twd: 350, tws: 12.5 },
              { measuredAtUtc: iso(NOW - 5 * MINUTE), twd: 5, tws: null },
              { measuredAtUtc: iso(NOW + 5 * MINUTE), twd: 90, tws: 20 },
            ],
            liveOrder: [
              { asOfUtc: iso(NOW - 20 * MINUTE), rows: [{ entryId: E[1]!, rank: 1 }] },
              {
                asOfUtc: iso(NOW - 3 * MINUTE),
                rows: [
                  { entryId: E[4]!, rank: null },
                  { entryId: E[1]!, rank: 2, elapsedSeconds: 1620.5, correctedSeconds: 1700.25, deltaSeconds: 12.5 },
                  { entryId: E[7]!, rank: null },
                  { entryId: E[2]!, rank: 1, elapsedSeconds: 1200, correctedSeconds: 1300, deltaSeconds: 0 },
                  { entryId: E[3]!, rank: 3 },
                  { entryId: E[6]!, rank: null },
                ],
              },
              { asOfUtc: iso(NOW + MINUTE), rows: [{ entryId: E[7]!, rank: 1 }] },
            ],
            finishes: [
              { entryId: E[2]!, finishTimeUtc: iso(FINISH_E2) },
              { entryId: E[2]!, finishTimeUtc: iso(FINISH_E2 + MINUTE) },
              { entryId: E[1]!, finishTimeUtc: iso(NOW + 10 * MINUTE) },
            ],
            tracks: [
              track(E[1]!, [
                { t: GUN_A - 10 * MINUTE, lat: 50.1, lon: -1.1, accuracyM: PRIVATE.accuracyM },
                { t: GUN_A + MINUTE, lat: 50.2, lon: -1.2, sogKn: 5, cogDeg: 10, accuracyM: PRIVATE.accuracyM },
                { t: NOW - MINUTE, lat: 50.8001, lon: -1.2999, sogKn: null, cogDeg: 45.5, accuracyM: PRIVATE.accuracyM },
                { t: NOW + 5 * MINUTE, lat: 50.9, lon: -1.9, sogKn: 9, cogDeg: 90, accuracyM: PRIVATE.accuracyM },
              ]),
              track(E[2]!, [
                { t: GUN_A + 10 * MINUTE, lat: 50.71, lon: -1.21 },
                { t: FINISH_E2 - 1000, lat: 50.72, lon: -1.22, sogKn: 6, cogDeg: 269 },
                { t: FINISH_E2, lat: 50.79, lon: -1.28, sogKn: 6.25, cogDeg: 270 },
                { t: FINISH_E2 + 1000, lat: 50.73, lon: -1.23, sogKn: 6.5, cogDeg: 271 },
                { t: NOW - 10_000, lat: 50.74, lon: -1.24, sogKn: 1, cogDeg: 0 },
              ]),
              track(E[3]!, [
                { t: GUN_A - 6 * MINUTE, lat: 50.3, lon: -1.3 },
                { t: GUN_A - 5 * MINUTE - 1, lat: 50.31, lon: -1.31 },
              ]),
              track(E[4]!, [{ t: GUN_A + MINUTE, lat: 50.4, lon: -1.4 }]),
              track(E[5]!, [{ t: GUN_A + MINUTE, lat: 50.5, lon: -1.5 }]),
              track(E[6]!, [{ t: GUN_A - 5 * MINUTE, lat: 50.6, lon: -1.6, sogKn: 4, cogDeg: null }]),
              track(E[7]!, [{ t: NOW + MINUTE, lat: 50.7, lon: -1.7 }]),
            ],
          },
          {
            id: GROUP_B,
            name: "Fleet B",
            state: "Scheduled",
            startTimeUtc: null,
            entryIds: [E[8]!],
            // A reading without rows: an empty order, not "no order".
            liveOrder: [{ asOfUtc: iso(NOW - MINUTE), rows: [] }],
            tracks: [track(E[8]!, [{ t: NOW - MINUTE, lat: 50.8, lon: -1.8 }])],
          },
        ],
      },
      {
        id: RACE_NOT_LIVE,
        raceNo: 2,
        name: "Race 2",
        isLive: false,
        startGroups: [
          {
            id: GROUP_C,
            name: "Fleet C",
            state: "Finished",
            startTimeUtc: iso(GUN_C),
            finishTimeUtc: iso(NOW - HOUR),
            entryIds: [E[1]!, E[2]!],
            liveOrder: [{ asOfUtc: iso(NOW - MINUTE), rows: [{ entryId: E[1]!, rank: 1 }] }],
            finishes: [{ entryId: E[2]!, finishTimeUtc: iso(GUN_C + 2 * HOUR) }],
            tracks: [
              track(E[1]!, [
                { t: GUN_C + 3 * HOUR - 1000, lat: 51.1, lon: -2.1 },
                { t: GUN_C + 3 * HOUR, lat: 51.2, lon: -2.2 },
                { t: GUN_C + 3 * HOUR + 1000, lat: 51.3, lon: -2.3 },
                { t: NOW - MINUTE, lat: 51.4, lon: -2.4 },
              ]),
              track(E[2]!, [
                { t: GUN_C + HOUR, lat: 51.5, lon: -2.5 },
                { t: GUN_C + 2 * HOUR + 1000, lat: 51.6, lon: -2.6 },
              ]),
            ],
          },
        ],
      },
      {
        id: RACE_NO_READING,
        raceNo: 3,
        name: "Race 3",
        isLive: true,
        startGroups: [
          {
            id: GROUP_D,
            name: "Fleet D",
            state: "Started",
            startTimeUtc: iso(NOW - 10 * MINUTE),
            entryIds: [E[1]!],
            wind: [{ measuredAtUtc: iso(NOW + 5 * MINUTE), twd: 10, tws: 10 }],
            liveOrder: [{ asOfUtc: iso(NOW + 5 * MINUTE), rows: [{ entryId: E[1]!, rank: 1 }] }],
            tracks: [track(E[1]!, [{ t: NOW - 2 * MINUTE, lat: 52, lon: -3 }])],
          },
        ],
      },
    ],
  });
}

function hiddenEvents(): Event[] {
  const race = (id: string) => ({ id, raceNo: 1, name: "Hidden", isLive: true, startGroups: [] });
  return [
    sharedEvent(uuid("e2000000", 1), CLUB, { published: false, races: [race(HIDDEN_RACES.unpublished)] }),
    sharedEvent(uuid("e2000000", 2), CLUB, { legacy: true, races: [race(HIDDEN_RACES.legacy)] }),
    sharedEvent(uuid("e2000000", 3), OTHER_CLUB, { races: [race(HIDDEN_RACES.otherClub)] }),
    sharedEvent(uuid("e2000000", 4), CLUB, { trackingShared: false, races: [race(HIDDEN_RACES.notShared)] }),
  ];
}

/** Three clubs, their clients (plus eventsOnly and poller), the main event and the hidden ones. */
export function liveScenario(): Scenario {
  const scenario = identityScenario();
  scenario.clients.push(
    { clientId: "eventsOnly", clientSecret: "eventsOnly-secret", clubId: CLUB, scopes: ["events:read"] },
    { clientId: "poller", clientSecret: "poller-secret", clubId: CLUB, scopes: ["tracking:read"] },
  );
  scenario.events = [mainEvent(), ...hiddenEvents()];
  return scenario;
}
