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
      bearingDeg: to(leg.bearingDeg, DEGREES),
      lengthM: to(leg.lengthM, METRES),
    })),
    boats: group.boats.map(({ boat, snapshot, progressRank, distanceBehindLeaderM, timeBehindLeaderSeconds }) => ({
      ...names(boat),
      progressRank,
      legIndex: snapshot.legIndex ?? undefined,
      legKind: snapshot.legKind === null ? undefined : LEG_KIND_ENUMS[snapshot.legKind],
      distanceToNextMarkM: known(snapshot.distanceToNextMarkM, METRES),
      distanceBehindLeaderM: known(distanceBehindLeaderM, METRES),
      timeBehindLeaderSeconds: known(timeBehindLeaderSeconds, SECONDS),
      sogKn: known(snapshot.sogKn, KNOTS),
      cogDeg: known(snapshot.cogDeg, DEGREES),
      vmgKn: known(snapshot.vmgKn, KNOTS),
      twaDeg: known(snapshot.twaDeg, DEGREES),
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
        durationSeconds: to(leg.durationSeconds, MILLISECONDS),
        distanceSailedM: to(leg.distanceSailedM, METRES),
        avgSogKn: known(leg.avgSogKn, KNOTS),
        avgVmgKn: known(leg.avgVmgKn, KNOTS),
        tacks: leg.tacks,
        gybes: leg.gybes,
        rankAtEnd: leg.rankAtEnd ?? undefined,
        behindLegLeaderSeconds: known(leg.behindLegLeaderSeconds, MILLISECONDS),
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
      lat: to(item.lat, POSITION_DEGREES),
      lon: to(item.lon, POSITION_DEGREES),
      cogBeforeDeg: to(item.cogBeforeDeg, DEGREES),
      cogAfterDeg: to(item.cogAfterDeg, DEGREES),
      durationSeconds: to(item.durationSeconds, MILLISECONDS),
      lossM: known(item.lossM, METRES),
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

/**
 * Figures are estimates from positions a few metres apart: shown to the step they can
 * mean (a tenth of a metre, of a second, of a degree, a hundredth of a knot; positions
 * to about a centimetre), not to the seventeen digits a double prints.
 */
const METRES = 0.1;
const SECONDS = 0.1;
const MILLISECONDS = 0.001;
const DEGREES = 0.1;
const KNOTS = 0.01;
const POSITION_DEGREES = 1e-7;

/** `value` to the nearest multiple of `step`, printed without a binary tail (0.30000000000000004). */
function to(value: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return Number((Math.round(value / step) * step).toFixed(digits));
}

/** A figure the boat has, rounded; unset (null in JSON) when it has none. */
function known(value: number | null, step: number): number | undefined {
  return value !== null && Number.isFinite(value) ? to(value, step) : undefined;
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
