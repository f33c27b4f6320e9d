// TrackService.GetTrackPage: the raw position history of one start group, one window
// of at most 10 minutes per call. Checks run in a fixed order: the parameters that are
// wrong whatever the race (malformed startGroupId, since, until), then who may see the
// race (RACE_NOT_FOUND, TRACKING_NOT_SHARED), then the rules that depend on it (the
// group, since before the delayed cut-off). A window that can never change is kept
// as its answer message, so its JSON, ETag and compressed bytes are made once; a
// window reaching close to the cut-off is shared for the 2 s clients may keep it, and
// its part before the settled edge is kept between reads, so each reads only the rows after it.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { LRUCache } from "lru-cache";
import {
  GetTrackPageResponseSchema,
  TrackBoatSchema,
  type GetTrackPageResponse,
  type TrackBoat,
  TrackService,
} from "../../gen/racing/v1/track_pb.js";
import { captureWindow, dataAsOf } from "../domain/race-time.js";
import { compareSailNumbers } from "../domain/sail-number.js";
import {
  overlap,
  readerSlackMs,
  requestedWindow,
  settledEdge,
  trackWindow,
  type TimeRange,
  type TrackWindow,
} from "../domain/track-window.js";
import { fixesInWindow, type FixRow } from "../store/fixes.js";
import type { Pool } from "../store/pool.js";
import type { RaceRecord, StartGroupRecord } from "../store/races.js";
import { boatKey, groupBoats, phoneFinishes, type GroupBoat } from "../store/boats.js";
import { SharedRead } from "../caching/shared-read.js";
import { DATA_AS_OF_HEADER, IMMUTABLE_CACHE_CONTROL, NEAR_NOW_CACHE_CONTROL, NEAR_NOW_MAX_AGE_MS } from "../caching/cache-policy.js";
import { guarded } from "../calls/guarded.js";
import type { ServiceDeps } from "./deps.js";
import { checkStartGroupId, epochMs, invalid, startGroup } from "./request-params.js";

/**
 * Kept windows hold at most this many fixes in all: 25 ten-minute windows of 100 boats,
 * or 25 minutes of 20 start groups of 50 boats. Measured: about 80 bytes a fix
 * for the message, 24 for its br bytes and 37 for its gzip bytes, if asked for (a large
 * body's JSON is not kept: encoded-body.ts), so at most about 210 MB.
 */
export const KEPT_POINTS = 1_500_000;
/** A kept window is rebuilt after an hour, as a client's copy expires: `race-api import --override-settled` can change one. */
export const KEPT_MS = 3600_000;

export function trackService(deps: ServiceDeps): Pick<ServiceImpl<typeof TrackService>, "getTrackPage"> {
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
  const settled = settledParts();
  return {
    getTrackPage: guarded(deps, TrackService.method.getTrackPage, async (request, caller, context) => {
      const nowMs = Date.now();
      checkStartGroupId(request.startGroupId);
      const requested = requestedWindow(epochMs(request.since, "since"), epochMs(request.until, "until"));
      if (typeof requested === "string") throw invalid(requested);

      const race = await deps.races.trackingRace(caller, request.raceId);
      const group = startGroup(race, request.startGroupId);
      const cutoffMs = dataAsOf(nowMs, race.event.delaySeconds);
      const source = deps.reads.readFrom();
      const slackMs = readerSlackMs(source.behindMs, race.event.delaySeconds, race.event.delayHold, nowMs);
      const window = trackWindow(requested, cutoffMs, group.gunMs, slackMs);
      if (typeof window === "string") throw invalid(window);

      // Everything the answer depends on besides the stored rows and the time: a changed delay or gun makes another answer.
      const answer = `${race.uuid}/${group.uuid}/${race.event.delaySeconds}/${group.gunMs}`;
      // Keyed by the window asked for, which stays the same while its until is cut at the moving cut-off.
      const asked = `${answer}/${requested.sinceMs}/${requested.untilMs}`;
      const read: PageRead = { pool: source.pool, settled, key: asked, settledEdgeMs: settledEdge(cutoffMs) - slackMs };
      if (!window.immutable) {
        // Within the 2 s everyone gets the one read, cut where it was cut.
        const shared = await nearNow.get(asked, async () => ({ page: await readPage(read, race, group, window), cutoffMs }));
        context.responseHeader.set(DATA_AS_OF_HEADER, new Date(shared.cutoffMs).toISOString());
        context.responseHeader.set("cache-control", NEAR_NOW_CACHE_CONTROL);
        return shared.page;
      }
      context.responseHeader.set(DATA_AS_OF_HEADER, new Date(cutoffMs).toISOString());
      context.responseHeader.set("cache-control", IMMUTABLE_CACHE_CONTROL);
      return kept.get(`${answer}/${window.sinceMs}/${window.untilMs}`, () => readPage(read, race, group, window));
    }),
  };
}

/**
 * The part of a window before the settled edge, which can no longer change, as each
 * boat's columns: the next read of the window (near the cut-off, every few seconds;
 * then once as immutable) reads only the rows after it. Never changed once made: a
 * read that gets further makes a new one.
 */
interface SettledPart {
  /** Every row of these boats in [the window's since, untilMs) is in `boats`. */
  untilMs: number;
  boats: ReadonlyMap<number, Columns>;
}

/** One boat's fixes in time order, as a track boat carries them. */
interface Columns {
  t: bigint[];
  lat: number[];
  lon: number[];
  sogKn: number[];
  cogDeg: number[];
}

/** The settled parts by window: at most this many fixes in all (up to 30,000 a window). */
const SETTLED_PART_FIXES = 1_500_000;
/** A window reaches close to the cut-off for 12 minutes at most (10 of span, 2 to settle). */
const SETTLED_PART_MS = 15 * 60_000;

function settledParts(): LRUCache<string, SettledPart> {
  return new LRUCache<string, SettledPart>({
    maxSize: SETTLED_PART_FIXES,
    sizeCalculation: (part) => 1 + [...part.boats.values()].reduce((n, boat) => n + boat.t.length, 0),
    ttl: SETTLED_PART_MS,
  });
}

/** Where a window's read starts from, and where its part before the settled edge is kept. */
interface PageRead {
  pool: Pool;
  settled: LRUCache<string, SettledPart>;
  key: string;
  /** This read's settled edge: settledEdge(cutoff) less the reader's slack. */
  settledEdgeMs: number;
}

async function readPage(read: PageRead, race: RaceRecord, group: StartGroupRecord, window: TrackWindow): Promise<GetTrackPageResponse> {
  return create(GetTrackPageResponseSchema, {
    raceId: race.uuid,
    startGroupId: group.uuid,
    since: timestampFromMs(window.sinceMs),
    until: timestampFromMs(window.untilMs),
    nextSince: window.nextSinceMs === null ? undefined : timestampFromMs(window.nextSinceMs),
    delaySeconds: race.event.delaySeconds,
    boats: group.gunMs === null ? [] : await readBoats(read, group.id, group.gunMs, window),
  });
}

/** Approved boats with a phone and at least one fix of their capture window in the window, by sail number. */
async function readBoats(read: PageRead, startGroupId: number, gunMs: number, window: TrackWindow): Promise<TrackBoat[]> {
  const wanted = new Map<number, { entry: GroupBoat; served: TimeRange }>();
  // A finish after the window cannot end a boat's points inside it.
  const [entries, finishes] = await Promise.all([
    groupBoats(read.pool, [startGroupId]),
    phoneFinishes(read.pool, [startGroupId], window.untilMs),
  ]);
  for (const entry of entries) {
    const range = captureWindow(gunMs, finishes.get(boatKey(startGroupId, entry.entryId)) ?? null);
    const served = range && overlap(range, window.sinceMs, window.untilMs);
    if (served) wanted.set(entry.entryId, { entry, served });
  }
  if (wanted.size === 0) return [];

  const columns = await readColumns(read, startGroupId, [...wanted.keys()], window);
  const boats: Array<{ entry: GroupBoat; boat: TrackBoat }> = [];
  for (const [entryId, { entry, served }] of wanted) {
    const boat = columns.get(entryId);
    const from = boat ? firstAtOrAfter(boat.t, served.fromMs) : 0;
    const to = boat ? firstAtOrAfter(boat.t, served.untilMs) : 0;
    if (from === to) continue;
    const cut = <T>(values: T[]) => (from === 0 && to === values.length ? values : values.slice(from, to));
    boats.push({
      entry,
      boat: create(TrackBoatSchema, {
        entryId: entry.uuid,
        sailNumber: entry.sailNumber,
        boatName: entry.boatName,
        t: cut(boat!.t),
        lat: cut(boat!.lat),
        lon: cut(boat!.lon),
        sogKn: cut(boat!.sogKn),
        cogDeg: cut(boat!.cogDeg),
      }),
    });
  }
  boats.sort((a, b) => compareSailNumbers(a.entry.sailNumber, b.entry.sailNumber) || (a.entry.uuid < b.entry.uuid ? -1 : 1));
  return boats.map((b) => b.boat);
}

/**
 * Every fix of the boats in the window as columns: the window's settled part kept from
 * an earlier read (when it holds every one of these boats), and the rows after it read
 * now. The part before the settled edge is kept for the next read.
 */
async function readColumns(read: PageRead, startGroupId: number, entryIds: number[], window: TrackWindow): Promise<Map<number, Columns>> {
  const kept = read.settled.get(read.key);
  const usable = kept && kept.untilMs <= window.untilMs && entryIds.every((id) => kept.boats.has(id));
  const settled = usable ? kept : { untilMs: window.sinceMs, boats: new Map<number, Columns>() };
  const fresh = byBoat(await fixesInWindow(read.pool, startGroupId, entryIds, settled.untilMs, window.untilMs));
  const columns = new Map<number, Columns>();
  for (const id of entryIds) columns.set(id, joined(settled.boats.get(id), fresh.get(id)));

  const edgeMs = Math.min(read.settledEdgeMs, window.untilMs);
  // A window settled whole is kept as its answer instead (the service's `kept`).
  if (edgeMs === window.untilMs) read.settled.delete(read.key);
  else if (edgeMs > settled.untilMs) {
    const boats = new Map<number, Columns>();
    for (const [id, boat] of columns) boats.set(id, cutColumns(boat, firstAtOrAfter(boat.t, edgeMs)));
    read.settled.set(read.key, { untilMs: edgeMs, boats });
  }
  return columns;
}

/** Rows ordered by boat, then time, as columns per boat. */
function byBoat(fixes: readonly FixRow[]): Map<number, Columns> {
  const boats = new Map<number, Columns>();
  for (let start = 0; start < fixes.length; ) {
    const entryId = fixes[start]!.entryId;
    const boat: Columns = { t: [], lat: [], lon: [], sogKn: [], cogDeg: [] };
    let end = start;
    for (; end < fixes.length && fixes[end]!.entryId === entryId; end++) {
      const fix = fixes[end]!;
      boat.t.push(BigInt(fix.t));
      boat.lat.push(fix.lat);
      boat.lon.push(fix.lon);
      // Packed doubles cannot hold null: NaN is "not reported" (REST writes null).
      boat.sogKn.push(fix.sogKn ?? NaN);
      boat.cogDeg.push(fix.cogDeg ?? NaN);
    }
    boats.set(entryId, boat);
    start = end;
  }
  return boats;
}

const NO_FIXES: Columns = { t: [], lat: [], lon: [], sogKn: [], cogDeg: [] };

/** `before` then `after`; either may be missing. The arrays are never changed, so they may be shared. */
function joined(before: Columns | undefined, after: Columns | undefined): Columns {
  if (!before || before.t.length === 0) return after ?? NO_FIXES;
  if (!after) return before;
  return {
    t: before.t.concat(after.t),
    lat: before.lat.concat(after.lat),
    lon: before.lon.concat(after.lon),
    sogKn: before.sogKn.concat(after.sogKn),
    cogDeg: before.cogDeg.concat(after.cogDeg),
  };
}

/** The first `count` fixes. */
function cutColumns(boat: Columns, count: number): Columns {
  if (count === boat.t.length) return boat;
  return {
    t: boat.t.slice(0, count),
    lat: boat.lat.slice(0, count),
    lon: boat.lon.slice(0, count),
    sogKn: boat.sogKn.slice(0, count),
    cogDeg: boat.cogDeg.slice(0, count),
  };
}

/** The index of the first sample time at or after `ms` in ascending `t` (its length if none). */
function firstAtOrAfter(t: readonly bigint[], ms: number): number {
  const bound = BigInt(ms);
  let low = 0;
  let high = t.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (t[middle]! < bound) low = middle + 1;
    else high = middle;
  }
  return low;
}
