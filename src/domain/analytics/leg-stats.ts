// Per-leg statistics (the contract's /analytics/legs): for each leg a boat started, when
// it began and ended, the distance sailed, the progress made along the leg's VMG axis,
// its tacks and gybes, and, over a start group, the order and gap at each leg's end.
//
// BoatAnalytics feeds `LegTallies` each kept track segment with the passings found on it
// and each manoeuvre as it is reported; each call costs the segment or the manoeuvre,
// never the race so far.

import { type LatLon, planeDistanceM } from "../geo.js";
import { type CourseLeg, vmgAxisDeg } from "./course.js";
import { displacementAlongM } from "./geometry.js";
import { type Fix, KNOT_M_PER_S } from "./kinematics.js";
import type { Manoeuvre } from "./manoeuvres.js";
import type { StepPassing } from "./passings.js";

export interface LegStats {
  /** Leg n runs from passing step n to passing step n+1. */
  legIndex: number;
  startedAtMs: number;
  /** Null while the boat is on the leg. */
  endedAtMs: number | null;
  /** To the leg's end, or to dataAsOf while on it. */
  durationSeconds: number;
  distanceSailedM: number;
  /** Over the time the leg's kept fixes cover; null before they cover any. */
  avgSogKn: number | null;
  avgVmgKn: number | null;
  tacks: number;
  gybes: number;
}

export interface RankedLegStats extends LegStats {
  /** The order in which the start group's boats ended the leg; null while on it. */
  rankAtEnd: number | null;
  /** This boat's end of the leg minus the first boat's; null while on it. */
  behindLegLeaderSeconds: number | null;
}

/** The course's legs under the wind in force at a segment's end fix, to measure VMG on. */
export interface LegWind {
  legs: readonly CourseLeg[];
  twdDeg: number;
}

/** What a stretch of track counted: metres sailed, metres along the VMG axis, and the time covered to. */
interface Tally {
  distanceM: number;
  alongM: number;
  coveredToMs: number;
  tacks: number;
  gybes: number;
}

interface Leg extends Tally {
  legIndex: number;
  startedAtMs: number;
  endedAtMs: number | null;
}

/**
 * A mark's passing is dated to the boat's first fix inside its radius but found only when
 * the boat has then made progress, fixes later. From that first fix on, the stretch is
 * also tallied for the next leg, so it moves there when the passing is confirmed.
 */
interface MarkAhead {
  atMs: number;
  /** The open leg's tally at that fix (plus manoeuvres reported since that lie before it). */
  before: Tally;
  /** The stretch since, measured for the next leg. */
  since: Tally;
}

export class LegTallies {
  /** The legs started, oldest first; only the last one can still be open. */
  private legs: Leg[] = [];
  private ahead: MarkAhead | null = null;

  /**
   * Takes the kept segment `from` → `to` (null `from` for the track's first fix) with the
   * passings found on it, oldest first. `insideMarkAhead`: `to` lies inside the passing
   * radius of the mark ahead.
   */
  take(from: Fix | null, to: Fix, found: readonly StepPassing[], wind: LegWind, insideMarkAhead: boolean): void {
    let cursorMs = from?.tMs ?? to.tMs;
    for (const passing of found) {
      if (from !== null && passing.atMs > cursorMs) {
        this.add(from, to, cursorMs, passing.atMs, wind);
        cursorMs = passing.atMs;
      }
      this.pass(passing);
    }
    if (from !== null && to.tMs > cursorMs) this.add(from, to, cursorMs, to.tMs, wind);
    const open = this.open();
    if (insideMarkAhead && this.ahead === null && open !== null) {
      this.ahead = { atMs: to.tMs, before: tallyOf(open), since: emptyTally(to.tMs) };
    }
  }

  /** A tack or gybe counts in the leg its time lies in; penalty turns count in none. */
  count(manoeuvre: Manoeuvre): void {
    if (manoeuvre.kind === "penaltyTurn") return;
    const leg = this.legs.findLast((l) => l.startedAtMs <= manoeuvre.atMs);
    if (leg === undefined || (leg.endedAtMs !== null && manoeuvre.atMs >= leg.endedAtMs)) return;
    countIn(leg, manoeuvre);
    const ahead = this.ahead;
    if (ahead !== null && leg === this.legs.at(-1)) countIn(manoeuvre.atMs >= ahead.atMs ? ahead.since : ahead.before, manoeuvre);
  }

  /** The phone's finish ends the leg the boat is on, or moves the end of the last one. */
  recordFinish(atMs: number): void {
    this.ahead = null;
    const last = this.legs.at(-1);
    if (last !== undefined) last.endedAtMs = atMs;
  }

  /** A new course version: the mark ahead is judged afresh, as the passings do. */
  changeCourse(): void {
    this.ahead = null;
  }

  stats(dataAsOfMs: number): LegStats[] {
    return this.legs.map((leg) => {
      const coveredSeconds = (leg.coveredToMs - leg.startedAtMs) / 1000;
      const perSecondKn = (metres: number) => (coveredSeconds > 0 ? metres / coveredSeconds / KNOT_M_PER_S : null);
      return {
        legIndex: leg.legIndex,
        startedAtMs: leg.startedAtMs,
        endedAtMs: leg.endedAtMs,
        durationSeconds: Math.max(0, ((leg.endedAtMs ?? dataAsOfMs) - leg.startedAtMs) / 1000),
        distanceSailedM: leg.distanceM,
        avgSogKn: perSecondKn(leg.distanceM),
        avgVmgKn: perSecondKn(leg.alongM),
        tacks: leg.tacks,
        gybes: leg.gybes,
      };
    });
  }

  /** An independent copy; costs the legs started, as a copy of the passings does. */
  clone(): LegTallies {
    const copy = new LegTallies();
    copy.legs = this.legs.map((leg) => ({ ...leg }));
    const ahead = this.ahead;
    copy.ahead = ahead === null ? null : { atMs: ahead.atMs, before: { ...ahead.before }, since: { ...ahead.since } };
    return copy;
  }

  private open(): Leg | null {
    const last = this.legs.at(-1);
    return last !== undefined && last.endedAtMs === null ? last : null;
  }

  /** Ends the open leg at the passing and starts the next, taking the stretch since a mark's first fix inside the radius. */
  private pass(passing: StepPassing): void {
    const moved = this.ahead?.atMs === passing.atMs ? this.ahead : null;
    this.ahead = null;
    const open = this.open();
    if (open !== null) {
      if (moved !== null) Object.assign(open, moved.before);
      open.endedAtMs = passing.atMs;
    }
    if (passing.stepKind === "finish") return;
    const tally = moved?.since ?? emptyTally(passing.atMs);
    this.legs.push({ legIndex: passing.stepIndex, startedAtMs: passing.atMs, endedAtMs: null, ...tally });
  }

  /** The part of segment from → to between two times, to the last leg (up to its end) and to the stretch past a mark ahead. */
  private add(from: Fix, to: Fix, fromMs: number, toMs: number, wind: LegWind): void {
    const leg = this.legs.at(-1);
    if (leg === undefined) return;
    const spanMs = to.tMs - from.tMs;
    const endMs = Math.min(toMs, leg.endedAtMs ?? toMs);
    if (endMs > fromMs) addPart(leg, from, to, (endMs - fromMs) / spanMs, axisDeg(wind, leg.legIndex, from), endMs);
    const ahead = this.ahead;
    if (ahead !== null) {
      const part = (toMs - Math.max(fromMs, ahead.atMs)) / spanMs;
      if (part > 0) addPart(ahead.since, from, to, part, axisDeg(wind, leg.legIndex + 1, from), toMs);
    }
  }
}

/**
 * The start group's boats with each leg's rank at its end (by the time the end was
 * passed; equal times share a rank) and its gap to the first boat to end it.
 */
export function rankLegs<B extends { legs: readonly LegStats[] }>(boats: readonly B[]): (Omit<B, "legs"> & { legs: RankedLegStats[] })[] {
  const endsByLeg = new Map<number, number[]>();
  for (const boat of boats) {
    for (const leg of boat.legs) {
      if (leg.endedAtMs === null) continue;
      const ends = endsByLeg.get(leg.legIndex) ?? [];
      ends.push(leg.endedAtMs);
      endsByLeg.set(leg.legIndex, ends);
    }
  }
  for (const ends of endsByLeg.values()) ends.sort((a, b) => a - b);
  return boats.map((boat) => ({
    ...boat,
    legs: boat.legs.map((leg) => {
      const ends = endsByLeg.get(leg.legIndex);
      if (leg.endedAtMs === null || ends === undefined) return { ...leg, rankAtEnd: null, behindLegLeaderSeconds: null };
      const endedAtMs = leg.endedAtMs;
      return { ...leg, rankAtEnd: ends.findIndex((t) => t >= endedAtMs) + 1, behindLegLeaderSeconds: (endedAtMs - ends[0]!) / 1000 };
    }),
  }));
}

/** The leg's VMG axis seen from a point: null for a leg the course (since changed) no longer has. */
function axisDeg(wind: LegWind, legIndex: number, from: LatLon): number | null {
  const leg = wind.legs[legIndex - 1];
  return leg === undefined ? null : vmgAxisDeg(leg, wind.twdDeg, from);
}

/** A straight part of a segment (two neighbouring fixes, so on the local plane): its share of the distance and of the displacement along the axis. */
function addPart(tally: Tally, from: Fix, to: Fix, fraction: number, axis: number | null, toMs: number): void {
  tally.distanceM += fraction * planeDistanceM(from, to);
  if (axis !== null) tally.alongM += fraction * displacementAlongM(from, to, axis);
  tally.coveredToMs = toMs;
}

function countIn(tally: Tally, manoeuvre: Manoeuvre): void {
  if (manoeuvre.kind === "tack") tally.tacks++;
  else tally.gybes++;
}

function emptyTally(atMs: number): Tally {
  return { distanceM: 0, alongM: 0, coveredToMs: atMs, tacks: 0, gybes: 0 };
}

function tallyOf(leg: Leg): Tally {
  return { distanceM: leg.distanceM, alongM: leg.alongM, coveredToMs: leg.coveredToMs, tacks: leg.tacks, gybes: leg.gybes };
}
