// TrackService.GetTrackPage: the raw position history of one start group, one window
// of at most 10 minutes per call. Checks run in a fixed order: the parameters that are
// wrong whatever the race (malformed startGroupId, since, until), then who may see the
// race (RACE_NOT_FOUND, TRACKING_NOT_SHARED), then the rules that depend on it (the
// group, since before the delayed cut-off). A window that can never change is kept
// as its answer message, so its JSON, ETag and compressed bytes are made once; a
// window reaching close to the cut-off is shared for the 2 s clients may keep it.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  GetTrackPageResponseSchema,
  TrackBoatSchema,
  type GetTrackPageResponse,
  type TrackBoat,
  TrackService,
} from "../../gen/racing/v1/track_pb.js";
import { dataAsOf } from "../domain/race-time.js";
import { compareSailNumbers } from "../domain/sail-number.js";
import { isUuid } from "../domain/uuid.js";
import { overlap, requestedWindow, servedRange, trackWindow, type TimeRange, type TrackWindow } from "../domain/track-window.js";
import { ApiError } from "../errors/api-error.js";
import { fixesInWindow } from "../store/fixes.js";
import type { Pool } from "../store/pool.js";
import type { RaceRecord, StartGroupRecord } from "../store/races.js";
import { boatKey, groupBoats, phoneFinishes, type GroupBoat } from "../store/boats.js";
import { SharedRead } from "../shared-read.js";
import { DATA_AS_OF_HEADER, IMMUTABLE_CACHE_CONTROL, NEAR_NOW_CACHE_CONTROL, NEAR_NOW_MAX_AGE_MS } from "../cache-policy.js";
import { guarded } from "./guarded.js";
import type { ServiceDeps } from "./deps.js";

/**
 * Kept windows hold at most this many fixes in all: 25 ten-minute windows of 100 boats,
 * or 25 minutes of 20 start groups of 50 boats. Measured: about 80 bytes a fix
 * for the message, 24 for its br bytes and 37 for its gzip bytes, if asked for (a large
 * body's JSON is not kept: encoded-body.ts), so at most about 210 MB.
 */
export const KEPT_POINTS = 1_500_000;
/** A kept window is rebuilt after an hour, as a client's copy expires: names and approvals can change. */
export const KEPT_MS = 3600_000;

// google.protobuf.Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

export function trackService(deps: ServiceDeps): ServiceImpl<typeof TrackService> {
  // Immutable windows as their answer messages, bounded by the fixes they hold: the same
  // message object each time, so the gateway makes its bytes, ETag and compression once.
  const kept = new SharedRead<GetTrackPageResponse>({
    name: "track_settled",
    ttlMs: KEPT_MS,
    maxSize: { total: KEPT_POINTS, sizeOf: (page) => 1 + page.boats.reduce((n, boat) => n + boat.t.length, 0) },
  });
  // Windows near the cut-off, each with the cut-off it was read at (its X-Data-As-Of).
  // A page is megabytes and its key names the window asked for: each is dropped once its 2 s are over.
  const nearNow = new SharedRead<{ page: GetTrackPageResponse; cutoffMs: number }>({
    name: "track_near_now",
    ttlMs: NEAR_NOW_MAX_AGE_MS,
    max: 10_000,
    purgeStale: true,
  });
  return {
    getTrackPage: guarded(deps, TrackService.method.getTrackPage, async (request, caller, context) => {
      const nowMs = Date.now();
      if (request.startGroupId !== undefined && !isUuid(request.startGroupId)) throw invalid("startGroupId");
      const requested = requestedWindow(epochMs(request.since, "since"), epochMs(request.until, "until"));
      if (typeof requested === "string") throw invalid(requested);

      const race = await deps.races.trackingRace(caller, request.raceId);
      const group = startGroup(race, request.startGroupId);
      const cutoffMs = dataAsOf(nowMs, race.event.delaySeconds);
      const window = trackWindow(requested, cutoffMs, group.gunMs);
      if (typeof window === "string") throw invalid(window);

      // Everything the answer depends on besides the stored rows and the time: a changed delay or gun makes another answer.
      const answer = `${race.uuid}/${group.uuid}/${race.event.delaySeconds}/${group.gunMs}`;
      if (!window.immutable) {
        // Keyed by the window asked for: within the 2 s everyone gets the one read, cut where it was cut.
        const shared = await nearNow.get(`${answer}/${requested.sinceMs}/${requested.untilMs}`, async () => ({
          page: await readPage(deps.reads.pool(), race, group, window),
          cutoffMs,
        }));
        context.responseHeader.set(DATA_AS_OF_HEADER, new Date(shared.cutoffMs).toISOString());
        context.responseHeader.set("cache-control", NEAR_NOW_CACHE_CONTROL);
        return shared.page;
      }
      context.responseHeader.set(DATA_AS_OF_HEADER, new Date(cutoffMs).toISOString());
      context.responseHeader.set("cache-control", IMMUTABLE_CACHE_CONTROL);
      return kept.get(`${answer}/${window.sinceMs}/${window.untilMs}`, () => readPage(deps.reads.pool(), race, group, window));
    }),
  };
}

function invalid(name: string): ApiError {
  return new ApiError("API_PARAM_INVALID", { name });
}

/** Epoch ms of a request time. Track times are whole milliseconds (as `t` is): a finer time is refused. */
function epochMs(timestamp: Timestamp | undefined, name: "since" | "until"): number | undefined {
  if (timestamp === undefined) return undefined;
  const { seconds, nanos } = timestamp;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999_999_999 || nanos % 1_000_000 !== 0) throw invalid(name);
  return Number(seconds) * 1000 + nanos / 1_000_000;
}

/** The requested group; it may be left out only when the race has exactly one. */
function startGroup(race: RaceRecord, startGroupId: string | undefined): StartGroupRecord {
  if (startGroupId === undefined) {
    if (race.startGroups.length !== 1) throw invalid("startGroupId");
    return race.startGroups[0]!;
  }
  const uuid = startGroupId.toLowerCase();
  const group = race.startGroups.find((g) => g.uuid === uuid);
  if (!group) throw new ApiError("START_GROUP_NOT_FOUND");
  return group;
}

async function readPage(pool: Pool, race: RaceRecord, group: StartGroupRecord, window: TrackWindow): Promise<GetTrackPageResponse> {
  return create(GetTrackPageResponseSchema, {
    raceId: race.uuid,
    startGroupId: group.uuid,
    since: timestampFromMs(window.sinceMs),
    until: timestampFromMs(window.untilMs),
    nextSince: window.nextSinceMs === null ? undefined : timestampFromMs(window.nextSinceMs),
    delaySeconds: race.event.delaySeconds,
    boats: group.gunMs === null ? [] : await readBoats(pool, group.id, group.gunMs, window),
  });
}

/** Approved boats with a phone and at least one fix of their capture window in the window, by sail number. */
async function readBoats(pool: Pool, startGroupId: number, gunMs: number, window: TrackWindow): Promise<TrackBoat[]> {
  const wanted = new Map<number, { entry: GroupBoat; served: TimeRange }>();
  let fromMs = Infinity;
  let untilMs = -Infinity;
  // A finish after the window cannot end a boat's points inside it.
  const [entries, finishes] = await Promise.all([groupBoats(pool, [startGroupId]), phoneFinishes(pool, [startGroupId], window.untilMs)]);
  for (const entry of entries) {
    const range = servedRange(gunMs, finishes.get(boatKey(startGroupId, entry.entryId)) ?? null);
    const served = range && overlap(range, window.sinceMs, window.untilMs);
    if (!served) continue;
    wanted.set(entry.entryId, { entry, served });
    fromMs = Math.min(fromMs, served.fromMs);
    untilMs = Math.max(untilMs, served.untilMs);
  }
  if (wanted.size === 0) return [];

  // Boat by boat in time order: each boat's fixes are one run of rows.
  const fixes = await fixesInWindow(pool, startGroupId, [...wanted.keys()], fromMs, untilMs);
  const boats: Array<{ entry: GroupBoat; boat: TrackBoat }> = [];
  for (let start = 0; start < fixes.length; ) {
    const entryId = fixes[start]!.entryId;
    let end = start;
    while (end < fixes.length && fixes[end]!.entryId === entryId) end++;
    const { entry, served } = wanted.get(entryId)!;
    const t: bigint[] = [];
    const lat: number[] = [];
    const lon: number[] = [];
    const sogKn: number[] = [];
    const cogDeg: number[] = [];
    for (let i = start; i < end; i++) {
      const fix = fixes[i]!;
      if (fix.t < served.fromMs || fix.t >= served.untilMs) continue;
      t.push(BigInt(fix.t));
      lat.push(fix.lat);
      lon.push(fix.lon);
      // Packed doubles cannot hold null: NaN is "not reported" (REST writes null).
      sogKn.push(fix.sogKn ?? NaN);
      cogDeg.push(fix.cogDeg ?? NaN);
    }
    if (t.length > 0) {
      boats.push({
        entry,
        boat: create(TrackBoatSchema, {
          entryId: entry.uuid,
          sailNumber: entry.sailNumber,
          boatName: entry.boatName,
          t,
          lat,
          lon,
          sogKn,
          cogDeg,
        }),
      });
    }
    start = end;
  }
  boats.sort((a, b) => compareSailNumbers(a.entry.sailNumber, b.entry.sailNumber) || (a.entry.uuid < b.entry.uuid ? -1 : 1));
  return boats.map((b) => b.boat);
}
