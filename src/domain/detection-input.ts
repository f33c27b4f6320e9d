// What one detection of the commentary feed's facts reads for one start group: plain
// data the store reads from the database and the race analytics' step passings (or
// insights/scenario-input.ts builds both from a scenario), which insights/detect.ts judges.

import type { StepPassing } from "./analytics/passings.js";
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
  /** The window's readings plus the newest one at or before `fromMs` (the baseline). */
  liveOrders: LiveOrderData[];
  /**
   * The group's step passings as the race analytics know them (at the generation's
   * dataAsOf, which may be later than `toMs`), by time: a mark rounding is the passing of
   * a mark or gate step. Those timed in the window are reported; any others are ignored.
   */
  passings: readonly PassingData[];
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

/** What the store reads for one detection: all of it but the passings, which come from the race analytics. */
export type RecordedDetectionInput = Omit<DetectionInput, "passings">;

/** A boat's passing of a course step (domain/analytics/passings.ts), by entry id. */
export interface PassingData {
  entryId: string;
  passing: StepPassing;
}

/** Each start group's passings (by start group id), by time. */
export type GroupPassings = ReadonlyMap<string, readonly PassingData[]>;
