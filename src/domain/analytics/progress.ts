// Course progress and the order on the water: how far along the course a boat is (legs
// completed plus progress in the current one, along the wind axis or the rhumb line),
// who leads a start group, how far and how long each boat is behind, and stale boats.

import type { LatLon } from "../geo.js";
import { type CourseLeg, legMeasureM, progressAxisDeg } from "./course.js";
import { displacementAlongM } from "./geometry.js";
import { KNOT_M_PER_S } from "./kinematics.js";

/** A racing boat whose newest fix is older than this before dataAsOf is stale. */
export const STALE_AFTER_MS = 30_000;
/** Time behind the leader divides by the boat's VMG over this window. */
export const TIME_BEHIND_VMG_WINDOW_MS = 60_000;

/**
 * Metres of course progress. `legIndex` 0 (not started): minus the distance to the start
 * line, so boats nearer it rank ahead. On leg n: the measures of legs 1..n-1 plus the
 * progress from leg n's start along its axis, capped at the leg's measure (a boat that
 * overstands a mark is not further on until it rounds it).
 */
export function courseProgressM(
  legs: readonly CourseLeg[],
  legIndex: number,
  position: LatLon,
  twdDeg: number,
  distanceToStartM = 0,
): number {
  if (legIndex === 0) return -distanceToStartM;
  let completedM = 0;
  for (const leg of legs.slice(0, legIndex - 1)) completedM += legMeasureM(leg, twdDeg);
  const leg = legs[legIndex - 1];
  if (leg === undefined) return completedM;
  const inLegM = displacementAlongM(leg.from, position, progressAxisDeg(leg, twdDeg));
  return completedM + Math.min(inLegM, legMeasureM(leg, twdDeg));
}

/** The progress a finished boat has: the whole course. */
export function courseLengthM(legs: readonly CourseLeg[], twdDeg: number): number {
  return legs.reduce((sum, leg) => sum + legMeasureM(leg, twdDeg), 0);
}

export interface BoatStanding {
  entryId: string;
  /** Null for a boat with no fix yet: it ranks last, with no gap. */
  progressM: number | null;
  finishedAtMs: number | null;
  /** VMG over the last 60 s toward the next mark; null when unknown. */
  vmg60Kn: number | null;
}

export interface RankedBoat extends BoatStanding {
  progressRank: number;
  distanceBehindLeaderM: number | null;
  timeBehindLeaderSeconds: number | null;
}

/**
 * The start group's order by course progress: finished boats first by finish time, then
 * racing boats by progress. A finished boat's time behind is its finish time minus the
 * first finisher's; a racing boat's is its distance behind over its own 60 s VMG.
 */
export function rankByProgress(boats: readonly BoatStanding[]): RankedBoat[] {
  const ordered = [...boats].sort(
    (a, b) =>
      (a.finishedAtMs ?? Number.POSITIVE_INFINITY) - (b.finishedAtMs ?? Number.POSITIVE_INFINITY) ||
      (b.progressM ?? Number.NEGATIVE_INFINITY) - (a.progressM ?? Number.NEGATIVE_INFINITY) ||
      a.entryId.localeCompare(b.entryId),
  );
  const leader = ordered[0];
  return ordered.map((boat, i) => {
    const distanceBehindLeaderM = boat.progressM === null ? null : Math.max(0, (leader!.progressM ?? 0) - boat.progressM);
    return {
      ...boat,
      progressRank: i + 1,
      distanceBehindLeaderM,
      timeBehindLeaderSeconds: timeBehind(boat, leader!, distanceBehindLeaderM),
    };
  });
}

function timeBehind(boat: BoatStanding, leader: BoatStanding, distanceBehindM: number | null): number | null {
  if (distanceBehindM === null) return null;
  if (boat.finishedAtMs !== null && leader.finishedAtMs !== null) return (boat.finishedAtMs - leader.finishedAtMs) / 1000;
  if (distanceBehindM === 0) return 0;
  if (boat.vmg60Kn === null || boat.vmg60Kn <= 0) return null;
  return distanceBehindM / (boat.vmg60Kn * KNOT_M_PER_S);
}

/** A racing boat whose newest fix is more than 30 s older than dataAsOf; finished boats never are. */
export function isStale(newestFixMs: number | null, dataAsOfMs: number, finished: boolean): boolean {
  if (finished) return false;
  return newestFixMs === null || dataAsOfMs - newestFixMs > STALE_AFTER_MS;
}
