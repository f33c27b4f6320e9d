// When a boat passed each step of the course, found from its track one segment at a
// time (the contract's "Passing a step"). The insights' markRounding is meant to use the
// same rule, so the ticker and the analytics never disagree.
//
// A caller feeds the boat's kept fixes (after the jump filter) in time order to
// `consume`, and a phone-recorded finish to `recordFinish` when it has one; each call
// costs the new segment, not the track.

import { haversineDistanceM, type LatLon } from "../geo.js";
import type { CourseStep, CourseStepKind } from "../scenario.js";
import { segmentCrossing, sideOfLine, type TimedPoint } from "./geometry.js";
import { distanceToStepM, stepReferencePoint } from "./course.js";

/** A boat passes a mark (or a gate's mark) when its track comes this close to it. */
export const PASSING_RADIUS_M = 50;
/**
 * "Then makes progress to the next step": the distance to the next step must fall this
 * far below what it was at the first fix inside the radius. GPS noise of a boat luffing
 * at the mark stays under it; any boat sailing on passes it within seconds.
 */
export const MARK_PROGRESS_M = 10;

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
  distanceToNextM: number;
}

export class StepPassings {
  readonly passings: StepPassing[] = [];
  private previous: TimedPoint | null = null;
  private candidate: MarkCandidate | null = null;

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
    this.candidate = null;
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
        return this.gunMs === null ? null : this.lineCrossing(step, from, fix, Math.max(notBeforeMs, this.gunMs), "away");
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
    const crossing = segmentCrossing(from, fix, a, b);
    if (crossing === null || crossing.atMs < notBeforeMs) return null;
    const neighbour = this.steps[this.passedCount + (side === "away" ? 1 : -1)];
    if (neighbour === undefined) return crossing.atMs;
    const neighbourSide = sideOfLine(stepReferencePoint(neighbour), a, b);
    if (neighbourSide === "on") return crossing.atMs;
    const wantedFrom = side === "toward" ? neighbourSide : neighbourSide === "left" ? "right" : "left";
    return crossing.fromSide === wantedFrom ? crossing.atMs : null;
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
      this.candidate = { atMs: fix.tMs, distanceToNextM: next === undefined ? 0 : distanceToStepM(fix, next) };
      if (next !== undefined) return null;
    }
    if (next !== undefined && distanceToStepM(fix, next) > this.candidate.distanceToNextM - MARK_PROGRESS_M) return null;
    return this.candidate.atMs;
  }
}

function within(p: LatLon, mark: LatLon): boolean {
  return haversineDistanceM(p, mark) <= PASSING_RADIUS_M;
}
