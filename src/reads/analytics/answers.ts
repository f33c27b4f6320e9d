// A start group's analytics as the answer messages of RaceAnalyticsService: the group's
// state (boats by progress, legs, wind), each boat's legs, and a window's manoeuvres
// and passings. Translation only: what the numbers are is the engine's and the
// domain's. A number that is not known, or not finite (a true wind angle with no
// wind reading), is left unset: null in REST. Times are whole milliseconds, as every
// time of the API is: a crossing interpolated between two fixes falls between them.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  GetLegsResponseSchema,
  type GetLegsResponse,
  ListManoeuvresResponseSchema,
  type ListManoeuvresResponse,
  RaceAnalyticsSchema,
  type RaceAnalytics,
} from "../../../gen/racing/v1/race_analytics_pb.js";
import { compareSailNumbers } from "../../domain/sail-number.js";
import type { TrackWindow } from "../../domain/track-window.js";
import { LEG_KIND_ENUMS, MANOEUVRE_KIND_ENUMS, STEP_KIND_ENUMS } from "../../messages/enum-words.js";
import type { GroupBoat } from "../../store/boats.js";
import type { RaceRecord } from "../../store/races.js";
import { type BoatItem, type GroupAnalytics, itemsIn } from "./race-analytics.js";

export function analyticsMessage(race: RaceRecord, group: GroupAnalytics, dataAsOfMs: number): RaceAnalytics {
  return create(RaceAnalyticsSchema, {
    raceId: race.uuid,
    eventId: race.event.uuid,
    startGroupId: group.group.uuid,
    delaySeconds: race.event.delaySeconds,
    dataAsOf: timestampFromMs(dataAsOfMs),
    wind:
      group.wind === null
        ? undefined
        : { twd: group.wind.twd, tws: group.wind.tws ?? undefined, measuredAtUtc: timestampFromMs(group.wind.measuredAtMs) },
    legs: group.legs.map((leg) => ({
      legIndex: leg.legIndex,
      kind: LEG_KIND_ENUMS[leg.kind],
      bearingDeg: leg.bearingDeg,
      lengthM: leg.lengthM,
    })),
    boats: group.boats.map(({ boat, snapshot, progressRank, distanceBehindLeaderM, timeBehindLeaderSeconds }) => ({
      ...names(boat),
      progressRank,
      legIndex: snapshot.legIndex ?? undefined,
      legKind: snapshot.legKind === null ? undefined : LEG_KIND_ENUMS[snapshot.legKind],
      distanceToNextMarkM: known(snapshot.distanceToNextMarkM),
      distanceBehindLeaderM: known(distanceBehindLeaderM),
      timeBehindLeaderSeconds: known(timeBehindLeaderSeconds),
      sogKn: known(snapshot.sogKn),
      cogDeg: known(snapshot.cogDeg),
      vmgKn: known(snapshot.vmgKn),
      twaDeg: known(snapshot.twaDeg),
      startedAtUtc: time(snapshot.startedAtMs),
      finishedAtUtc: time(snapshot.finishedAtMs),
      fixTimeUtc: time(snapshot.fixTimeMs),
      stale: snapshot.stale,
      ignoredFixes: snapshot.ignoredFixes,
      lastManoeuvre:
        snapshot.lastManoeuvre === null
          ? undefined
          : { kind: MANOEUVRE_KIND_ENUMS[snapshot.lastManoeuvre.kind], atUtc: at(snapshot.lastManoeuvre.atMs) },
    })),
  });
}

/** Each boat's legs, in the group's order by progress. */
export function legsMessage(race: RaceRecord, group: GroupAnalytics, dataAsOfMs: number): GetLegsResponse {
  return create(GetLegsResponseSchema, {
    raceId: race.uuid,
    startGroupId: group.group.uuid,
    dataAsOf: timestampFromMs(dataAsOfMs),
    delaySeconds: race.event.delaySeconds,
    boats: group.boats.map(({ boat, legs }) => ({
      ...names(boat),
      legs: legs.map((leg) => ({
        legIndex: leg.legIndex,
        startedAtUtc: at(leg.startedAtMs),
        endedAtUtc: time(leg.endedAtMs),
        durationSeconds: leg.durationSeconds,
        distanceSailedM: leg.distanceSailedM,
        avgSogKn: known(leg.avgSogKn),
        avgVmgKn: known(leg.avgVmgKn),
        tacks: leg.tacks,
        gybes: leg.gybes,
        rankAtEnd: leg.rankAtEnd ?? undefined,
        behindLegLeaderSeconds: known(leg.behindLegLeaderSeconds),
      })),
    })),
  });
}

/** The manoeuvres and passings timed in [since, until) of `window`. */
export function manoeuvresPage(race: RaceRecord, group: GroupAnalytics, window: TrackWindow): ListManoeuvresResponse {
  return create(ListManoeuvresResponseSchema, {
    raceId: race.uuid,
    startGroupId: group.group.uuid,
    since: timestampFromMs(window.sinceMs),
    until: timestampFromMs(window.untilMs),
    nextSince: time(window.nextSinceMs),
    delaySeconds: race.event.delaySeconds,
    manoeuvres: inWindow(itemsIn(group.items, (boat) => boat.manoeuvres, window.sinceMs, window.untilMs)).map(({ boat, item }) => ({
      ...names(boat),
      kind: MANOEUVRE_KIND_ENUMS[item.kind],
      atUtc: at(item.atMs),
      lat: item.lat,
      lon: item.lon,
      cogBeforeDeg: item.cogBeforeDeg,
      cogAfterDeg: item.cogAfterDeg,
      durationSeconds: item.durationSeconds,
      lossM: known(item.lossM),
    })),
    passings: inWindow(itemsIn(group.items, (boat) => boat.passings, window.sinceMs, window.untilMs)).map(({ boat, item }) => ({
      ...names(boat),
      stepIndex: item.stepIndex,
      stepKind: STEP_KIND_ENUMS[item.stepKind],
      label: item.label ?? undefined,
      atUtc: at(item.atMs),
    })),
  });
}

/**
 * A window's items by time, then sail number, then entry. Times are shown cut to the whole
 * millisecond and the window's ends are whole: a time is in [since, until) exactly when
 * its cut is.
 */
function inWindow<T extends { atMs: number }>(items: BoatItem<T>[]): BoatItem<T>[] {
  return items.sort(
    (a, b) =>
      a.item.atMs - b.item.atMs ||
      compareSailNumbers(a.boat.sailNumber, b.boat.sailNumber) ||
      (a.boat.uuid < b.boat.uuid ? -1 : a.boat.uuid > b.boat.uuid ? 1 : 0),
  );
}

/** The public names of a boat: its entry's uuid, never the database's id. */
function names(boat: GroupBoat) {
  return { entryId: boat.uuid, sailNumber: boat.sailNumber, boatName: boat.boatName };
}

function known(value: number | null): number | undefined {
  return value !== null && Number.isFinite(value) ? value : undefined;
}

function time(ms: number | null) {
  return ms === null ? undefined : at(ms);
}

/** A Timestamp of a time cut to its millisecond, so that a time before dataAsOf stays before it. */
function at(ms: number) {
  return timestampFromMs(wholeMs(ms));
}

function wholeMs(ms: number): number {
  return Math.floor(ms);
}
