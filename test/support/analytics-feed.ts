// Feeds the pure analytics core what a client can read: a start group's fixes paged from
// the REST track endpoint with a token, replayed into one BoatAnalytics per boat in time
// order with the committee's wind in force at each fix (boat-analytics.ts says how). The
// REST analytics endpoint's answers can be held against these replays.

import { BoatAnalytics, type BoatSnapshot } from "../../src/domain/analytics/boat-analytics.js";
import { CAPTURE_BEFORE_GUN_MS } from "../../src/domain/race-time.js";
import type { CourseStep, WindReading } from "../../src/domain/scenario.js";
import { bearer } from "./api.js";
import { type TrackBoatJson, type TrackPageJson, trackQuery } from "./track-scenarios.js";

/** A REST GET as fetch answers it: `fetch` against a listener, or the in-process harness's `inject`. */
export type Get = (path: string, init: { headers: Record<string, string> }) => Promise<Response>;

export type ServedTrack = TrackBoatJson;

/** Every fix of the start group the track endpoint serves, page by page from gun - 5 min, per boat. */
export async function readServedTracks(
  get: Get,
  token: string,
  raceId: string,
  startGroupId: string,
  gunMs: number,
): Promise<Map<string, ServedTrack>> {
  const boats = new Map<string, ServedTrack>();
  let since: string | number | null = gunMs - CAPTURE_BEFORE_GUN_MS;
  while (since !== null) {
    const response = await get(`/api/v1/races/${raceId}/track${trackQuery({ startGroupId, since })}`, { headers: bearer(token) });
    if (response.status !== 200) throw new Error(`track page from ${since}: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as TrackPageJson;
    for (const boat of page.boats) {
      const served = boats.get(boat.entryId) ?? { ...boat, t: [], lat: [], lon: [], sogKn: [], cogDeg: [] };
      served.t.push(...boat.t);
      served.lat.push(...boat.lat);
      served.lon.push(...boat.lon);
      served.sogKn.push(...boat.sogKn);
      served.cogDeg.push(...boat.cogDeg);
      boats.set(boat.entryId, served);
    }
    since = page.nextSince;
  }
  return boats;
}

/** The committee's direction in force at a moment: the newest reading at or before it, else the first. */
export function windInForce(readings: readonly WindReading[], tMs: number): number {
  let inForce = readings[0];
  if (inForce === undefined) throw new Error("no wind reading");
  for (const reading of readings) {
    if (Date.parse(reading.measuredAtUtc) > tMs) break;
    inForce = reading;
  }
  return inForce.twd;
}

export interface ReplayOptions {
  steps: readonly CourseStep[];
  gunMs: number | null;
  /** In time order. */
  wind: readonly WindReading[];
  /** Moments (ascending) to take a snapshot at, each after every fix up to it was pushed. */
  snapshotsAt?: readonly number[];
  maxSpeedKn?: number;
}

export interface Replay {
  analytics: BoatAnalytics;
  snapshots: BoatSnapshot[];
}

/** One boat's served track pushed fix by fix, as a refresh after a restart rebuilds it. */
export function replayTrack(track: Pick<ServedTrack, "t" | "lat" | "lon">, options: ReplayOptions): Replay {
  const analytics = new BoatAnalytics({
    steps: options.steps,
    gunMs: options.gunMs,
    ...(options.maxSpeedKn === undefined ? {} : { maxSpeedKn: options.maxSpeedKn }),
  });
  const moments = options.snapshotsAt ?? [];
  const snapshots: BoatSnapshot[] = [];
  const snapshotUpTo = (tMs: number) => {
    while (snapshots.length < moments.length && moments[snapshots.length]! < tMs) {
      const atMs = moments[snapshots.length]!;
      snapshots.push(analytics.snapshot(atMs, windInForce(options.wind, atMs)));
    }
  };
  for (let i = 0; i < track.t.length; i++) {
    const tMs = track.t[i]!;
    snapshotUpTo(tMs);
    analytics.push({ tMs, lat: track.lat[i]!, lon: track.lon[i]! }, windInForce(options.wind, tMs));
  }
  snapshotUpTo(Number.POSITIVE_INFINITY);
  return { analytics, snapshots };
}
