// Races for the track endpoint's tests, laid out around the real clock (the delay
// cut-off is now minus the event's delay), and small helpers to call the endpoint over
// REST, Connect and real gRPC and to read raw answers.

import { request as httpRequest } from "node:http";
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { anyUnpack, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  GetTrackPageRequestSchema,
  GetTrackPageResponseSchema,
  TrackService,
  type GetTrackPageRequest,
  type GetTrackPageResponse,
} from "../../gen/racing/v1/track_pb.js";
import type { Entry, Scenario, Track } from "../../src/domain/scenario.js";
import { callContext } from "../../src/calls/context.js";
import { CLUB, identityScenario, OTHER_CLUB, type Api } from "./api.js";

export const MINUTE = 60_000;
/** Whole seconds, so that fixes at 1 Hz fall on round times. */
export const NOW = Math.floor(Date.now() / 1000) * 1000;

export const TRACK_IDS = {
  event: "7e000000-0000-4000-8000-000000000001",
  unsharedEvent: "7e000000-0000-4000-8000-000000000002",
  otherClubEvent: "7e000000-0000-4000-8000-000000000003",
  /** Two groups: GROUP (gun an hour ago) and NO_GUN_GROUP. */
  race: "7a000000-0000-4000-8000-000000000001",
  /** One group: SINGLE_GROUP. */
  singleGroupRace: "7a000000-0000-4000-8000-000000000002",
  unsharedRace: "7a000000-0000-4000-8000-000000000003",
  otherClubRace: "7a000000-0000-4000-8000-000000000004",
  group: "76000000-0000-4000-8000-000000000001",
  noGunGroup: "76000000-0000-4000-8000-000000000002",
  singleGroup: "76000000-0000-4000-8000-000000000003",
  unsharedGroup: "76000000-0000-4000-8000-000000000004",
  otherClubGroup: "76000000-0000-4000-8000-000000000005",
  /** GBR 10: reports every second from before the window opens until after now. */
  steady: "7b000000-0000-4000-8000-000000000001",
  /** GBR 9: finished at FINISH and kept reporting. */
  finisher: "7b000000-0000-4000-8000-000000000002",
  /** GBR 100: reported only before gun - 5 min. */
  early: "7b000000-0000-4000-8000-000000000003",
  /** IRL 2: a phone that reports no speed or course at all, every 5 s. */
  bare: "7b000000-0000-4000-8000-000000000004",
  /** gbr 11: every 10 s, first reported during the race. */
  late: "7b000000-0000-4000-8000-000000000005",
  /** GBR 8: not approved. */
  unapproved: "7b000000-0000-4000-8000-000000000006",
  /** GBR 7: entered without a phone, yet fixes are stored. */
  noPhone: "7b000000-0000-4000-8000-000000000007",
  /** NED 5: in the group without a gun. */
  waiting: "7b000000-0000-4000-8000-000000000008",
  /** TUR 1: the single-group race's boat. */
  single: "7b000000-0000-4000-8000-000000000009",
  unsharedBoat: "7b000000-0000-4000-8000-00000000000a",
  otherClubBoat: "7b000000-0000-4000-8000-00000000000b",
} as const;

/** The event's delay: the cut-off is now - 2 minutes. */
export const DELAY_SECONDS = 120;
export const GUN = NOW - 60 * MINUTE;
export const SINGLE_GUN = NOW - 30 * MINUTE;
/** The finisher's phone finish: 20 minutes and half a second after the gun. */
export const FINISH = GUN + 20 * MINUTE + 500;
/** Fixes are stored up to this long after now: the cut-off must hide them. */
export const FUTURE_MS = 5 * MINUTE;

/** Every stored fix's private GPS accuracy: a value no answer may contain. */
export const ACCURACY_M = 12.345678;

/** Fixes every `stepMs` in [fromMs, toMs); sog and cog missing where `missing(t)`. */
export function track(
  entryId: string,
  fromMs: number,
  toMs: number,
  stepMs = 1000,
  missing: (t: number) => "sog" | "cog" | "both" | null = () => null,
): Track {
  const t: number[] = [];
  for (let ms = fromMs; ms < toMs; ms += stepMs) t.push(ms);
  const lat = t.map((ms) => 50.7 + ((ms / 1000) % 3600) / 100_000);
  const lon = t.map((ms) => -1.3 - ((ms / 1000) % 3600) / 200_000);
  const sogKn = t.map((ms) => (missing(ms) === "sog" || missing(ms) === "both" ? null : 5 + ((ms / 1000) % 7) / 10));
  const cogDeg = t.map((ms) => (missing(ms) === "cog" || missing(ms) === "both" ? null : (ms / 1000) % 360));
  return { entryId, t, lat, lon, sogKn, cogDeg, accuracyM: t.map(() => ACCURACY_M) };
}

/** Which of the steady boat's fixes report no speed, no course, or neither. */
export function steadyMissing(t: number): "sog" | "cog" | "both" | null {
  const second = Math.round((t - GUN) / 1000);
  if (second === 3) return "sog";
  if (second === 4) return "cog";
  if (second === 5) return "both";
  return null;
}

function entry(id: string, sailNumber: string, boatName: string, extra: Partial<Entry> = {}): Entry {
  return { id, sailNumber, boatName, userId: `user-of-${boatName}`, deviceId: `device-of-${boatName}`, phoneModel: "Phone X", ...extra };
}

/** CLUB's event (shared, 2 minutes' delay) with its two races, an unshared event, and another club's race. */
export function trackScenario(): Scenario {
  const scenario = identityScenario();
  // The tests call far more often than the tracking bucket's default 120 a minute.
  scenario.clubs = scenario.clubs.map((club) => ({ ...club, trackingRateLimitPerMinute: 100_000 }));
  const ids = TRACK_IDS;
  const end = NOW + FUTURE_MS;
  scenario.events = [
    {
      id: ids.event,
      clubId: CLUB,
      name: "Track Week",
      startDate: new Date(GUN - 60 * MINUTE).toISOString(),
      trackingShared: true,
      delaySeconds: DELAY_SECONDS,
      entries: [
        entry(ids.steady, "GBR 10", "Steady"),
        entry(ids.finisher, "GBR 9", "Finisher"),
        entry(ids.early, "GBR 100", "Early"),
        entry(ids.bare, "IRL 2", "Bare"),
        entry(ids.late, "gbr 11", "Late"),
        entry(ids.unapproved, "GBR 8", "Unapproved", { approved: false }),
        entry(ids.noPhone, "GBR 7", "No Phone", { hasPhone: false }),
        entry(ids.waiting, "NED 5", "Waiting"),
        entry(ids.single, "TUR 1", "Single"),
      ],
      races: [
        {
          id: ids.race,
          raceNo: 1,
          name: "Race 1",
          isLive: true,
          startGroups: [
            {
              id: ids.group,
              name: "Fleet A",
              state: "Started",
              startTimeUtc: new Date(GUN).toISOString(),
              entryIds: [ids.steady, ids.finisher, ids.early, ids.bare, ids.late, ids.unapproved, ids.noPhone],
              finishes: [{ entryId: ids.finisher, finishTimeUtc: new Date(FINISH).toISOString() }],
              tracks: [
                track(ids.steady, GUN - 10 * MINUTE, end, 1000, steadyMissing),
                // On the half second, so that one fix lies exactly at the finish (served) and the next after it.
                track(ids.finisher, GUN - 5 * MINUTE + 500, end, 1000),
                track(ids.early, GUN - 20 * MINUTE, GUN - 5 * MINUTE, 1000),
                withoutSpeedAndCourse(track(ids.bare, GUN - 5 * MINUTE, end, 5000)),
                track(ids.late, GUN + 7 * MINUTE, end, 10_000),
                track(ids.unapproved, GUN - 5 * MINUTE, end, 1000),
                track(ids.noPhone, GUN - 5 * MINUTE, end, 1000),
              ],
            },
            {
              id: ids.noGunGroup,
              name: "Fleet B",
              state: "Scheduled",
              startTimeUtc: null,
              entryIds: [ids.waiting],
              tracks: [track(ids.waiting, NOW - 40 * MINUTE, end, 1000)],
            },
          ],
        },
        {
          id: ids.singleGroupRace,
          raceNo: 2,
          name: "Race 2",
          isLive: true,
          startGroups: [
            {
              id: ids.singleGroup,
              name: "Fleet C",
              state: "Started",
              startTimeUtc: new Date(SINGLE_GUN).toISOString(),
              entryIds: [ids.single],
              tracks: [track(ids.single, SINGLE_GUN - 5 * MINUTE, end, 1000)],
            },
          ],
        },
      ],
    },
    {
      id: ids.unsharedEvent,
      clubId: CLUB,
      name: "Private Week",
      startDate: new Date(GUN).toISOString(),
      trackingShared: false,
      entries: [entry(ids.unsharedBoat, "GBR 1", "Hidden")],
      races: [oneGroupRace(ids.unsharedRace, ids.unsharedGroup, ids.unsharedBoat)],
    },
    {
      id: ids.otherClubEvent,
      clubId: OTHER_CLUB,
      name: "Other Week",
      startDate: new Date(GUN).toISOString(),
      trackingShared: true,
      entries: [entry(ids.otherClubBoat, "FRA 1", "Elsewhere")],
      races: [oneGroupRace(ids.otherClubRace, ids.otherClubGroup, ids.otherClubBoat)],
    },
  ];
  return scenario;
}

function oneGroupRace(raceId: string, groupId: string, entryId: string) {
  return {
    id: raceId,
    raceNo: 1,
    name: "Race 1",
    isLive: true,
    startGroups: [
      {
        id: groupId,
        name: "Fleet",
        state: "Started" as const,
        startTimeUtc: new Date(GUN).toISOString(),
        entryIds: [entryId],
        tracks: [track(entryId, GUN - 5 * MINUTE, NOW, 1000)],
      },
    ],
  };
}

/** A phone that reports positions only: the scenario's sogKn and cogDeg arrays left out. */
function withoutSpeedAndCourse({ entryId, t, lat, lon }: Track): Track {
  return { entryId, t, lat, lon };
}

// --- the track page as JSON ---

export interface TrackBoatJson {
  entryId: string;
  sailNumber: string;
  boatName: string;
  t: number[];
  lat: number[];
  lon: number[];
  sogKn: (number | null)[];
  cogDeg: (number | null)[];
}

export interface TrackPageJson {
  raceId: string;
  startGroupId: string;
  since: string;
  until: string;
  nextSince: string | null;
  delaySeconds: number;
  boats: TrackBoatJson[];
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `?since=...&until=...&startGroupId=...` from the given values (undefined ones left out). */
export function trackQuery(params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) query.append(name, typeof value === "number" ? iso(value) : value);
  }
  return `?${query}`;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent, not decompressed. */
  body: Buffer;
}

/** A GET through node:http, which (unlike fetch) leaves compressed bodies as they are. */
export function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end();
  });
}

// --- gRPC and in-process calls ---

export const GET_TRACK_PAGE = "/racing.v1.TrackService/GetTrackPage";

export interface GrpcAnswer {
  page?: GetTrackPageResponse;
  code: grpc.status;
  reason?: string | undefined;
  params?: Record<string, string>;
  headers: grpc.Metadata;
}

/** One GetTrackPage call through @grpc/grpc-js with a bearer token; errors are decoded from grpc-status-details-bin. */
export function grpcTrackPage(
  client: grpc.Client,
  token: string | undefined,
  request: MessageInitShape<typeof GetTrackPageRequestSchema>,
): Promise<GrpcAnswer> {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    const call = client.makeUnaryRequest(
      GET_TRACK_PAGE,
      (message: GetTrackPageRequest) => Buffer.from(toBinary(GetTrackPageRequestSchema, message)),
      (bytes: Buffer) => fromBinary(GetTrackPageResponseSchema, bytes),
      create(GetTrackPageRequestSchema, request),
      metadata,
      (error, page) => {
        if (!error) return resolve({ page: page!, code: grpc.status.OK, headers });
        const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
        const info = details
          ? fromBinary(StatusSchema, details)
              .details.map((any) => anyUnpack(any, ErrorInfoSchema))
              .find((x) => x !== undefined)
          : undefined;
        resolve({ code: error.code, reason: info?.reason, params: { ...info?.metadata }, headers: error.metadata });
      },
    );
    call.on("metadata", (received) => (headers = received));
  });
}

/** A handler context as the listeners build it, for calling the service implementation in-process. */
export function trackCallContext(token: string): HandlerContext {
  const method = TrackService.method.getTrackPage;
  return createHandlerContext({
    service: TrackService,
    method,
    protocolName: "test",
    requestMethod: "POST",
    url: `http://127.0.0.1${GET_TRACK_PAGE}`,
    requestHeader: new Headers({ authorization: `Bearer ${token}` }),
    contextValues: callContext("127.0.0.1", undefined),
  });
}

/** The race's GROUP from `since` (until `until`, if given), called in-process as every surface calls the service. */
export function trackPageInProcess(api: Api, token: string, since: number, until?: number): Promise<GetTrackPageResponse> {
  const request = create(GetTrackPageRequestSchema, {
    raceId: TRACK_IDS.race,
    startGroupId: TRACK_IDS.group,
    since: timestampFromMs(since),
    until: until === undefined ? undefined : timestampFromMs(until),
  });
  return api.runtime.services.track.getTrackPage(request, trackCallContext(token)) as Promise<GetTrackPageResponse>;
}
