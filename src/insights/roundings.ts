// Mark roundings for the commentary feed: the analytics' step passings of the course's
// marks and gates (domain/analytics/passings.ts, its 50 m rule and course steps), found
// by feeding each boat's track as the analytics feed it, so the ticker and the analytics
// never disagree about who rounded what and when. Pure, no I/O.

import type { CourseVersionData, TrackData } from "../domain/detection-input.js";
import { haversineDistanceM } from "../domain/geo.js";
import { JumpFilter } from "../domain/analytics/kinematics.js";
import { type StepPassing, StepPassings } from "../domain/analytics/passings.js";
import type { CourseStep } from "../domain/scenario.js";

/** At most this many boats per mark per detection window: the first to arrive. */
export const ROUNDINGS_PER_MARK = 3;

export interface Rounding {
  entryId: string;
  /** The step's mark keys joined by "+": the mark the cap counts boats at (every lap's windward mark is one). */
  markKey: string;
  /** The step's label, or its mark's key when it has none (a gate's: the mark nearer the boat). */
  markLabel: string;
  /** Whole milliseconds: a gate crossing's interpolated time cut as `new Date(atMs)` cuts it. */
  atMs: number;
  /**
   * When the track showed it: the fix that let the jump filter keep the passing's last fix
   * (a mark's passing is confirmed by progress after its first fix inside).
   */
  knownAtMs: number;
  stepIndex: number;
}

/**
 * The boat's passings of mark and gate steps up to `toMs`, by the analytics' rule and in
 * the analytics' feed order (boat-analytics.ts): every fix from the track's start goes
 * through the jump filter, and each kept fix to StepPassings, under the course version
 * applied at the fix pushed (changeCourse before its first fix). The track must start
 * where the boat's capture window opens, or the steps before would not be known passed.
 * Fixes before the first course version only prime the jump filter.
 */
export function markRoundings(
  entryId: string,
  track: TrackData,
  courses: readonly CourseVersionData[],
  gunMs: number | null,
  toMs: number,
): Rounding[] {
  const filter = new JumpFilter();
  let passings: StepPassings | null = null;
  let steps: readonly CourseStep[] = [];
  let version = -1;
  const found: Rounding[] = [];
  const end = upperBound(track.t, toMs);
  for (let i = 0; i < end; i++) {
    const fix = { tMs: track.t[i] as number, lat: track.lat[i] as number, lon: track.lon[i] as number };
    while (version + 1 < courses.length && (courses[version + 1] as CourseVersionData).appliedFromMs <= fix.tMs) {
      version++;
      steps = judgeable((courses[version] as CourseVersionData).steps);
      if (passings === null) passings = new StepPassings(steps, gunMs);
      else passings.changeCourse(steps);
    }
    const kept = filter.push(fix);
    if (kept === null || passings === null) continue;
    for (const passing of passings.consume(kept)) {
      const step = steps[passing.stepIndex - 1];
      if (step === undefined || (step.kind !== "mark" && step.kind !== "gate")) continue;
      found.push(rounding(entryId, passing, step, kept, fix.tMs));
    }
  }
  return found;
}

/** A course whose every step has its marks (ingest insists on them); any other has no steps to judge. */
function judgeable(steps: readonly CourseStep[]): readonly CourseStep[] {
  return steps.every((step) => step.marks.length > 0) ? steps : [];
}

function rounding(entryId: string, passing: StepPassing, step: CourseStep, at: { lat: number; lon: number }, knownAtMs: number): Rounding {
  let nearest = step.marks[0]!;
  for (const mark of step.marks) if (haversineDistanceM(mark, at) < haversineDistanceM(nearest, at)) nearest = mark;
  return {
    entryId,
    markKey: step.marks.map((m) => m.key).join("+"),
    markLabel: step.label ?? nearest.key,
    atMs: Math.trunc(passing.atMs),
    knownAtMs,
    stepIndex: passing.stepIndex,
  };
}

/**
 * Roundings that became known in the window (`fromMs < knownAtMs <= toMs`) of the boats
 * `isGroupBoat` names, at most `ROUNDINGS_PER_MARK` boats per mark (the first to arrive;
 * ties by entry id). A passing is confirmed after its own time, so windows that merely
 * meet (the catch-up's) each report the passings they learnt: none falls between them.
 * Each track is read from its start (the boat's capture window) to `toMs`, nothing after.
 */
export function detectRoundings(
  tracks: ReadonlyMap<string, TrackData>,
  courses: readonly CourseVersionData[],
  gunMs: number | null,
  fromMs: number,
  toMs: number,
  isGroupBoat: (entryId: string) => boolean = () => true,
): Rounding[] {
  const found: Rounding[] = [];
  for (const [entryId, track] of tracks) {
    if (!isGroupBoat(entryId)) continue;
    for (const r of markRoundings(entryId, track, courses, gunMs, toMs)) if (r.knownAtMs > fromMs) found.push(r);
  }
  found.sort((a, b) => a.atMs - b.atMs || compareStrings(a.entryId, b.entryId));
  const boatsPerMark = new Map<string, number>();
  return found.filter((r) => {
    const n = boatsPerMark.get(r.markKey) ?? 0;
    boatsPerMark.set(r.markKey, n + 1);
    return n < ROUNDINGS_PER_MARK;
  });
}

/** The first index whose value is greater than `value` (values ascending). */
export function upperBound(values: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
