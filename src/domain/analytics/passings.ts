// When a boat passed each step of the course, found from its track one segment at a
// time (the contract's "Passing a step"). The insights' markRounding is meant to use the
// same rule, so the ticker and the analytics never disagree.
//
// A caller feeds the boat's kept fixes (after the jump filter) in time order to
// `consume`, and a phone-recorded finish to `recordFinish` when it has one; each call
// costs the new segment, not the track.

import { haversineDistanceM, type LatLon, planeDistanceM } from "../geo.js";
import type { CourseStep, CourseStepKind } from "../scenario.js";
import { interpolate, nearestPointOnSegment, segmentCrossing, sideOfLine, type TimedPoint } from "./geometry.js";
import { distanceToStepM, stepReferencePoint } from "./course.js";

/** A boat passes a mark (or a gate's mark) when its track comes this close to it. */
export const PASSING_RADIUS_M = 50;
/**
 * "Then makes progress to the next step": the distance to the next step must fall this
 * far below what it was at the first fix inside the radius. GPS noise of a boat luffing
 * at the mark stays under it; any boat sailing on passes it within seconds.
 */
export const MARK_PROGRESS_M = 10;
/**
 * A start or finish line is crossed up to this far beyond either end: phone GPS wanders
 * a few metres, and a boat starting close to an end must not be left unstarted by it.
 */
export const LINE_END_MARGIN_M = 10;

export interface StepPassing {
  /** Numbered from 1 (the start line). */
  stepIndex: number;
  stepKind: CourseStepKind;
  label: string | null;
  atMs: number;
  /** The finish came from the phone, not the track. */
  recorded?: boolean;
}

interface MarkCandidate {
  atMs: number;
  /** Where the boat was at its first fix inside the radius. */
  at: LatLon;
  distanceToNextM: number;
}

export class StepPassings {
  readonly passings: StepPassing[] = [];
  private previous: TimedPoint | null = null;
  private candidate: MarkCandidate | null = null;
  /** Seen after the gun within GPS error over the start line (see `leavingStartBand`). */
  private inStartBand = false;

  /** `gunMs` null: the start group has no gun yet, so nobody starts. */
  constructor(
    private steps: readonly CourseStep[],
    private readonly gunMs: number | null,
  ) {}

  /** The number of steps passed; the boat sails leg `passedCount` (0: not started). */
  get passedCount(): number {
    return this.passings.length;
  }

  /** The first fix inside a mark's radius not yet confirmed by progress: a passing may still be timed there. */
  get pendingSinceMs(): number | null {
    return this.candidate?.atMs ?? null;
  }

  get finished(): boolean {
    return this.passings.at(-1)?.stepKind === "finish";
  }

  /**
   * A new version of the course applies: passings made stay, the steps still ahead are
   * judged against the new one (same numbering, as race committees keep it).
   */
  changeCourse(steps: readonly CourseStep[]): void {
    this.steps = steps;
    // A boat inside the radius as the course changes has reached the mark in force then:
    // its progress is judged toward the new next step.
    const candidate = this.candidate;
    const next = steps[this.passedCount + 1];
    if (candidate !== null) candidate.distanceToNextM = next === undefined ? 0 : distanceToStepM(candidate.at, next);
  }

  /** An independent copy: the passings array is copied, its passings (never changed in place) shared. */
  clone(): StepPassings {
    const copy = new StepPassings(this.steps, this.gunMs);
    copy.passings.push(...this.passings);
    copy.previous = this.previous;
    copy.candidate = this.candidate;
    return copy;
  }

  /** The phone's finish wins over the track's crossing. */
  recordFinish(atMs: number): void {
    if (this.finished) this.passings.pop();
    const stepIndex = this.steps.length;
    this.passings.push({ stepIndex, stepKind: "finish", label: this.steps[stepIndex - 1]?.label ?? null, atMs, recorded: true });
  }

  /** Takes the next kept fix; returns the passings it completed, oldest first. */
  consume(fix: TimedPoint): StepPassing[] {
    const found: StepPassing[] = [];
    const from = this.previous;
    this.previous = fix;
    for (;;) {
      if (this.finished) return found;
      const step = this.steps[this.passedCount];
      if (step === undefined) return found;
      const notBeforeMs = this.passings.at(-1)?.atMs ?? Number.NEGATIVE_INFINITY;
      const atMs = this.passingTime(step, from, fix, notBeforeMs);
      if (atMs === null) return found;
      const passing = { stepIndex: this.passedCount + 1, stepKind: step.kind, label: step.label ?? null, atMs };
      this.passings.push(passing);
      this.candidate = null;
      found.push(passing);
    }
  }

  private passingTime(step: CourseStep, from: TimedPoint | null, fix: TimedPoint, notBeforeMs: number): number | null {
    switch (step.kind) {
      case "start":
        if (this.gunMs === null || fix.tMs < this.gunMs) return null;
        return this.lineCrossing(step, from, fix, Math.max(notBeforeMs, this.gunMs), "away") ?? this.leavingStartBand(step, from, fix);
      case "finish":
        return this.lineCrossing(step, from, fix, notBeforeMs, "toward");
      case "gate":
        return this.gatePassing(step, from, fix, notBeforeMs);
      case "mark":
        return this.markPassing(step, fix);
    }
  }

  /**
   * A line crossed at or after `notBeforeMs` from the right side: the start from the side
   * away from the first leg (the pre-start side), the finish from the side of the step
   * before it (the course side). A crossing the other way is a boat coming back.
   */
  private lineCrossing(
    step: CourseStep,
    from: TimedPoint | null,
    fix: TimedPoint,
    notBeforeMs: number,
    side: "away" | "toward",
  ): number | null {
    const [a, b] = step.marks;
    if (from === null || a === undefined || b === undefined) return null;
    const crossing = segmentCrossing(from, fix, ...widened(a, b));
    if (crossing === null || crossing.atMs < notBeforeMs) return null;
    const neighbour = this.steps[this.passedCount + (side === "away" ? 1 : -1)];
    if (neighbour === undefined) return crossing.atMs;
    const neighbourSide = sideOfLine(stepReferencePoint(neighbour), a, b);
    if (neighbourSide === "on") return crossing.atMs;
    const wantedFrom = side === "toward" ? neighbourSide : neighbourSide === "left" ? "right" : "left";
    return crossing.fromSide === wantedFrom ? crossing.atMs : null;
  }

  /**
   * A boat seen after the gun no further over the start line than GPS error (inside its
   * ends) may have started there unseen: it starts when its track leaves that band up
   * the course, interpolated. A crossing of the line itself, when the track shows one,
   * comes first. Below the line or outside its ends, the band is left behind.
   */
  private leavingStartBand(step: CourseStep, from: TimedPoint | null, fix: TimedPoint): number | null {
    const overM = this.overStartLineM(step, fix);
    if (overM === null || overM < 0) {
      this.inStartBand = false;
      return null;
    }
    if (overM <= LINE_END_MARGIN_M) {
      this.inStartBand = true;
      return null;
    }
    if (!this.inStartBand || from === null) return null;
    const fromOverM = this.overStartLineM(step, from) ?? 0;
    const f = Math.min(1, Math.max(0, (LINE_END_MARGIN_M - fromOverM) / (overM - fromOverM)));
    return from.tMs + (fix.tMs - from.tMs) * f;
  }

  /** How far a point is over the start line toward the first mark (negative below it); null beyond its widened ends. */
  private overStartLineM(step: CourseStep, p: LatLon): number | null {
    const [a, b] = step.marks;
    const next = this.steps[1];
    if (a === undefined || b === undefined || next === undefined) return null;
    const [wa, wb] = widened(a, b);
    const nearest = nearestPointOnSegment(p, wa, wb);
    if (nearest.fraction <= 0 || nearest.fraction >= 1) return null;
    return sideOfLine(p, a, b) === sideOfLine(stepReferencePoint(next), a, b) ? nearest.distanceM : -nearest.distanceM;
  }

  /** Crossing between the gate's marks or coming within the radius of either, whichever first. */
  private gatePassing(step: CourseStep, from: TimedPoint | null, fix: TimedPoint, notBeforeMs: number): number | null {
    const [a, b] = step.marks;
    if (a === undefined || b === undefined) return this.markPassing(step, fix);
    const crossing = from === null ? null : segmentCrossing(from, fix, a, b);
    const crossedMs = crossing !== null && crossing.atMs >= notBeforeMs ? crossing.atMs : null;
    const nearMs = within(fix, a) || within(fix, b) ? fix.tMs : null;
    if (crossedMs === null) return nearMs;
    return nearMs === null ? crossedMs : Math.min(crossedMs, nearMs);
  }

  /** The first fix inside the radius, once the boat has then made progress toward the next step. */
  private markPassing(step: CourseStep, fix: TimedPoint): number | null {
    const next = this.steps[this.passedCount + 1];
    if (this.candidate === null) {
      if (distanceToStepM(fix, step) > PASSING_RADIUS_M) return null;
      this.candidate = { atMs: fix.tMs, at: fix, distanceToNextM: next === undefined ? 0 : distanceToStepM(fix, next) };
      if (next !== undefined) return null;
    }
    if (next !== undefined && distanceToStepM(fix, next) > this.candidate.distanceToNextM - MARK_PROGRESS_M) return null;
    return this.candidate.atMs;
  }
}

/** A line's ends moved out by the margin. */
function widened(a: LatLon, b: LatLon): [LatLon, LatLon] {
  const beyond = LINE_END_MARGIN_M / Math.max(haversineDistanceM(a, b), 1);
  return [interpolate(a, b, -beyond), interpolate(a, b, 1 + beyond)];
}

function within(p: LatLon, mark: LatLon): boolean {
  return planeDistanceM(p, mark) <= PASSING_RADIUS_M;
}
