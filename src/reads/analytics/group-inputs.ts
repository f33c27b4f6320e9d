// What a start group's fixes are judged under: the committee's wind readings and the
// course versions, each in force from its own time, and the boats' phone finishes; and
// a key of the part of them before a moment, so a refresh can tell whether anything a
// boat's analytics were already fed under has changed since.

import type { CourseVersionRecord, WindHistoryRecord } from "../../store/analytics-inputs.js";

export class GroupInputs {
  constructor(
    readonly winds: readonly WindHistoryRecord[],
    readonly courses: readonly CourseVersionRecord[],
    /** Each boat's phone finish by entry id. */
    readonly finishes: ReadonlyMap<number, number>,
  ) {}

  /** The newest reading at or before `tMs` (the contract's wind), or null before the first. */
  windAt(tMs: number): WindHistoryRecord | null {
    let low = 0;
    let high = this.winds.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.winds[mid]!.measuredAtMs <= tMs) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? null : this.winds[low - 1]!;
  }

  /**
   * The wind direction at `tMs`. Before the committee's first reading there is none: NaN
   * makes every leg a reach measured on its rhumb line, and no tack or gybe can be told.
   */
  twdAt(tMs: number): number {
    return this.windAt(tMs)?.twd ?? Number.NaN;
  }

  /** The course version in force at `tMs`, or undefined before the first. */
  courseAt(tMs: number): CourseVersionRecord | undefined {
    return this.courses.findLast((course) => course.appliedFromMs <= tMs);
  }

  /** Everything timed before `untilMs`, as one string: equal keys, equal judgement of the fixes before it. */
  keyBefore(untilMs: number): string {
    const winds = this.winds.filter((wind) => wind.measuredAtMs < untilMs).map((wind) => `${wind.measuredAtMs}:${wind.twd}`);
    const courses = this.courses
      .filter((course) => course.appliedFromMs < untilMs)
      .map((course) => `${course.appliedFromMs}:${JSON.stringify(course.steps)}`);
    const finishes = [...this.finishes].filter(([, atMs]) => atMs < untilMs).sort(([a], [b]) => a - b);
    return JSON.stringify([winds, courses, finishes]);
  }
}
