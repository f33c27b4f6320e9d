// What one detection of the commentary feed's facts reads for one start group: plain
// data the store reads from the database, or insights/scenario-input.ts from a scenario,
// and insights/detect.ts judges.

import type { BoatRef } from "./facts.js";
import type { CourseMark, CourseStepKind } from "./scenario.js";

export interface LiveOrderData {
  asOfMs: number;
  /** entryId -> unofficial live place; null or absent: not ranked. */
  ranks: Map<string, number | null>;
}

export interface FinishData {
  entryId: string;
  finishMs: number;
}

export interface WindData {
  measuredAtMs: number;
  /** True wind direction, degrees. */
  twd: number;
  /** Knots; null for a direction-only reading. */
  tws: number | null;
}

/** What one start group offers one detection. Every list is ascending by its time. */
export interface DetectionInput {
  raceId: string;
  startGroupId: string;
  startGroupName: string;
  /** Window start, exclusive. */
  fromMs: number;
  /** Window end, inclusive: dataAsOf. Nothing after it is used. */
  toMs: number;
  /** The group's boats by entry id; facts about any other entry are not reported. */
  boats: Map<string, BoatRef>;
  /** The group's gun; null: no capture window yet, so no boat's position is used. */
  gunMs: number | null;
  /** Each boat's (first) phone finish at or before `toMs`: its capture window ends there. */
  finishMs: Map<string, number>;
  /** The window's readings plus the newest one at or before `fromMs` (the baseline). */
  liveOrders: LiveOrderData[];
  /**
   * Per boat: its fixes from its capture window's start (gun - 5 min) to `toMs`. A mark
   * rounding is a step passing, and steps are passed in order from the start line, so
   * the whole race so far says which step a boat is on. Detection uses only the fixes
   * inside the boat's capture window; none without a gun.
   */
  tracks: Map<string, TrackData>;
  /** Every version applied at or before `toMs`, ascending by `appliedFromMs`. */
  courses: CourseVersionData[];
  /** Phone finishes; those in the window are reported. */
  finishes: FinishData[];
  /** The window's committee readings plus the newest one before them (the baseline). */
  wind: WindData[];
}

export interface CourseStepData {
  kind: CourseStepKind;
  label: string | null;
  marks: CourseMark[];
}

export interface CourseVersionData {
  /** Epoch ms; the version applies to samples at or after it, until the next one. */
  appliedFromMs: number;
  steps: CourseStepData[];
}

/** Parallel arrays, ascending by `t` (epoch ms). */
export interface TrackData {
  t: ArrayLike<number>;
  lat: ArrayLike<number>;
  lon: ArrayLike<number>;
}
