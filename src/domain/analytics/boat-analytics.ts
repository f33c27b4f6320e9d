// One boat's analytics state through a race, built incrementally: the jump filter, the
// recent track, its step passings, its manoeuvres and its legs' tallies, and what it shows
// at a moment.
//
// How a caller feeds it: one BoatAnalytics per boat and start group, fixes pushed in time
// order (append only: each push costs the new fix and the last minute of track, never the
// race so far), each with the wind direction in force at the fix (the newest committee
// reading at or before it). When a new course version applies, call `changeCourse` before
// pushing its first fix; a phone-recorded finish goes to `recordFinish`. To answer, call
// `snapshot` with dataAsOf and the wind then, for each boat of the start group, and hand
// the standings to `rankByProgress` (progress.ts). After a restart, rebuild by pushing
// the race's fixes from the database in order. Fixes that late arrivals may still change
// go to a `clone` of the state fed with the settled ones, never to the state itself.

import type { LatLon } from "../geo.js";
import type { CourseStep } from "../scenario.js";
import { type CourseLeg, courseLegs, distanceToStepM, type LegKind, vmgAxisDeg } from "./course.js";
import {
  type Fix,
  JumpFilter,
  DEFAULT_MAX_SPEED_KN,
  dropOlder,
  trueWindAngleDeg,
  velocityOver,
  vmgAlongKn,
  VELOCITY_WINDOW_MS,
} from "./kinematics.js";
import { type LegStats, LegTallies } from "./leg-stats.js";
import { type Manoeuvre, ManoeuvreDetector } from "./manoeuvres.js";
import { PASSING_RADIUS_M, type StepPassing, StepPassings } from "./passings.js";
import { courseLengthM, courseProgressM, isStale, TIME_BEHIND_VMG_WINDOW_MS } from "./progress.js";

export interface BoatSnapshot {
  /** 0 before the start, null after the finish. */
  legIndex: number | null;
  legKind: LegKind | null;
  distanceToNextMarkM: number | null;
  /** Null before the boat's first fix. */
  progressM: number | null;
  sogKn: number | null;
  cogDeg: number | null;
  vmgKn: number | null;
  /** VMG over the last 60 s, for the time behind the leader. */
  vmg60Kn: number | null;
  twaDeg: number | null;
  startedAtMs: number | null;
  finishedAtMs: number | null;
  /** The newest fix kept; null before the first. */
  fixTimeMs: number | null;
  stale: boolean;
  ignoredFixes: number;
  lastManoeuvre: Manoeuvre | null;
}

export interface BoatAnalyticsOptions {
  steps: readonly CourseStep[];
  gunMs: number | null;
  maxSpeedKn?: number;
}

export class BoatAnalytics {
  private found: Manoeuvre[] = [];
  private filter: JumpFilter;
  private stepPassings: StepPassings;
  private detector = new ManoeuvreDetector();
  private tallies = new LegTallies();
  /** The kept fixes of the last minute, for speed, course and VMG. */
  private recent: Fix[] = [];
  private newestReceivedMs: number | null = null;
  private steps: readonly CourseStep[];
  /** The legs under the last wind asked for: the wind changes every few minutes, fixes every second. */
  private legsCache: { steps: readonly CourseStep[]; twdDeg: number; legs: CourseLeg[] } | null = null;

  constructor(options: BoatAnalyticsOptions) {
    this.steps = options.steps;
    this.filter = new JumpFilter(options.maxSpeedKn ?? DEFAULT_MAX_SPEED_KN);
    this.stepPassings = new StepPassings(options.steps, options.gunMs);
  }

  get passings(): readonly StepPassing[] {
    return this.stepPassings.passings;
  }

  /** The manoeuvres reported so far, oldest first. */
  get manoeuvres(): readonly Manoeuvre[] {
    return this.found;
  }

  /** A mark passing not confirmed yet would be timed here (see StepPassings). */
  get pendingPassingSinceMs(): number | null {
    return this.stepPassings.pendingSinceMs;
  }

  changeCourse(steps: readonly CourseStep[]): void {
    this.steps = steps;
    this.stepPassings.changeCourse(steps);
    this.tallies.changeCourse();
  }

  recordFinish(atMs: number): void {
    this.stepPassings.recordFinish(atMs);
    this.tallies.recordFinish(atMs);
  }

  /**
   * An independent copy to push the unsettled tail of fixes into. It costs what the state
   * holds (the last minute of fixes, the detector's windows) and shallow copies of the
   * passings, the manoeuvres and the legs; the original never sees what the copy gets.
   */
  clone(): BoatAnalytics {
    // The parts the constructor builds are replaced by copies of this state's.
    const copy = new BoatAnalytics({ steps: this.steps, gunMs: null });
    copy.found = [...this.found];
    copy.filter = this.filter.clone();
    copy.stepPassings = this.stepPassings.clone();
    copy.detector = this.detector.clone();
    copy.tallies = this.tallies.clone();
    copy.recent = [...this.recent];
    copy.newestReceivedMs = this.newestReceivedMs;
    copy.legsCache = this.legsCache;
    return copy;
  }

  /** Takes the boat's next fix, with the wind direction in force at it. */
  push(fix: Fix, twdDeg: number): void {
    if (this.newestReceivedMs === null || fix.tMs > this.newestReceivedMs) this.newestReceivedMs = fix.tMs;
    const kept = this.filter.push(fix);
    if (kept === null) return;
    const previous = this.recent.at(-1) ?? null;
    this.recent.push(kept);
    // One fix older than the window stays: after a gap of a minute it still starts the next segment.
    dropOlder(this.recent, kept.tMs - TIME_BEHIND_VMG_WINDOW_MS, 1);
    const passed = this.stepPassings.consume(kept);
    this.tallies.take(previous, kept, passed, { legs: this.legs(twdDeg), twdDeg }, this.insideMarkAhead(kept));
    const leg = this.currentLeg(twdDeg);
    const axisDeg = leg === null ? twdDeg : vmgAxisDeg(leg, twdDeg, kept);
    for (const manoeuvre of this.detector.consume(kept, { twdDeg, axisDeg })) {
      this.found.push(manoeuvre);
      this.tallies.count(manoeuvre);
    }
  }

  /** The statistics of each leg the boat started, durations of the leg it is on running to dataAsOf. */
  legStats(dataAsOfMs: number): LegStats[] {
    return this.tallies.stats(dataAsOfMs);
  }

  /** What the boat shows at dataAsOf under the wind then. */
  snapshot(dataAsOfMs: number, twdDeg: number): BoatSnapshot {
    const position: LatLon | undefined = this.recent.at(-1);
    const finish = this.stepPassings.finished ? this.passings.at(-1)! : null;
    const start = this.passings[0]?.stepKind === "start" ? this.passings[0] : null;
    const legs = this.legs(twdDeg);
    const legIndex = finish !== null ? null : this.stepPassings.passedCount;
    const leg = legIndex === null ? null : (legs[legIndex - 1] ?? null);
    const nextStep = legIndex === null ? undefined : this.steps[legIndex];
    const velocity = velocityOver(this.recent, VELOCITY_WINDOW_MS);
    const axisDeg = leg !== null && position !== undefined ? vmgAxisDeg(leg, twdDeg, position) : null;
    const over60 = velocityOver(this.recent, TIME_BEHIND_VMG_WINDOW_MS);
    return {
      legIndex,
      legKind: leg?.kind ?? null,
      distanceToNextMarkM: position !== undefined && nextStep !== undefined ? distanceToStepM(position, nextStep) : null,
      progressM: this.progressM(legs, legIndex, position, twdDeg),
      sogKn: velocity?.sogKn ?? null,
      cogDeg: velocity?.cogDeg ?? null,
      vmgKn: velocity !== null && axisDeg !== null ? vmgAlongKn(velocity, axisDeg) : null,
      vmg60Kn: over60 !== null && axisDeg !== null ? vmgAlongKn(over60, axisDeg) : null,
      // No committee wind yet (NaN): no angle to it.
      twaDeg: velocity?.cogDeg != null && Number.isFinite(twdDeg) ? trueWindAngleDeg(twdDeg, velocity.cogDeg) : null,
      startedAtMs: start?.atMs ?? null,
      finishedAtMs: finish?.atMs ?? null,
      fixTimeMs: position === undefined ? null : this.recent.at(-1)!.tMs,
      stale: isStale(this.newestReceivedMs, dataAsOfMs, finish !== null),
      ignoredFixes: this.filter.ignored,
      lastManoeuvre: this.manoeuvres.at(-1) ?? null,
    };
  }

  /** The contract dates a mark's passing to the first fix inside its radius: the tallies mark that fix. */
  private insideMarkAhead(fix: Fix): boolean {
    const ahead = this.stepPassings.finished ? undefined : this.steps[this.stepPassings.passedCount];
    return ahead?.kind === "mark" && distanceToStepM(fix, ahead) <= PASSING_RADIUS_M;
  }

  private currentLeg(twdDeg: number): CourseLeg | null {
    if (this.stepPassings.finished || this.stepPassings.passedCount === 0) return null;
    return this.legs(twdDeg)[this.stepPassings.passedCount - 1] ?? null;
  }

  private legs(twdDeg: number): CourseLeg[] {
    const cached = this.legsCache;
    if (cached !== null && cached.steps === this.steps && cached.twdDeg === twdDeg) return cached.legs;
    const legs = courseLegs(this.steps, twdDeg);
    this.legsCache = { steps: this.steps, twdDeg, legs };
    return legs;
  }

  private progressM(legs: CourseLeg[], legIndex: number | null, position: LatLon | undefined, twdDeg: number): number | null {
    if (legIndex === null) return courseLengthM(legs, twdDeg);
    if (position === undefined) return null;
    const firstStep = this.steps[0];
    const toStartM = legIndex === 0 && firstStep !== undefined ? distanceToStepM(position, firstStep) : 0;
    return courseProgressM(legs, legIndex, position, twdDeg, toStartM);
  }
}
