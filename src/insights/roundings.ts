// Mark roundings for the commentary feed: the race analytics' passings of the course's
// marks and gates (domain/analytics/passings.ts), which detection is handed, so the
// ticker and the analytics never disagree about who rounded what and when. Pure, no I/O.

import type { CourseVersionData, PassingData } from "../domain/detection-input.js";

/** At most this many boats per mark per detection window: the first to arrive. */
export const ROUNDINGS_PER_MARK = 3;

export interface Rounding {
  entryId: string;
  /** The step's mark keys joined by "+": the mark the cap counts boats at (every lap's windward mark is one). */
  markKey: string;
  /** The step's label, or its marks' keys joined by "/" when it has none. */
  markLabel: string;
  /** Whole milliseconds: a gate crossing's interpolated time cut as `new Date(atMs)` cuts it. */
  atMs: number;
}

/**
 * The passings of mark and gate steps timed in the window (`fromMs < atMs <= toMs`) by
 * the boats `isGroupBoat` names, at most `ROUNDINGS_PER_MARK` boats per mark (the first
 * to arrive; ties by entry id). Each step is read from the course version in force at
 * the passing's time, the one the analytics judged it under.
 */
export function detectRoundings(
  passings: readonly PassingData[],
  courses: readonly CourseVersionData[],
  fromMs: number,
  toMs: number,
  isGroupBoat: (entryId: string) => boolean,
): Rounding[] {
  const found: Rounding[] = [];
  for (const { entryId, passing } of passings) {
    const atMs = Math.trunc(passing.atMs);
    if ((passing.stepKind !== "mark" && passing.stepKind !== "gate") || atMs <= fromMs || atMs > toMs || !isGroupBoat(entryId)) continue;
    const keys = courses.findLast((course) => course.appliedFromMs <= atMs)?.steps[passing.stepIndex - 1]?.marks.map((m) => m.key) ?? [];
    // Without the step (a gate crossing interpolated to just before a course change), its number names it.
    const markKey = keys.length > 0 ? keys.join("+") : `#${passing.stepIndex}`;
    found.push({ entryId, markKey, markLabel: passing.label ?? (keys.length > 0 ? keys.join("/") : markKey), atMs });
  }
  found.sort((a, b) => a.atMs - b.atMs || compareStrings(a.entryId, b.entryId));
  const boatsPerMark = new Map<string, number>();
  return found.filter((r) => {
    const n = boatsPerMark.get(r.markKey) ?? 0;
    boatsPerMark.set(r.markKey, n + 1);
    return n < ROUNDINGS_PER_MARK;
  });
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
