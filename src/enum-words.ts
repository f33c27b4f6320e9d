// The words race-scenario/v1 and the store use (a start group's state, a course step's
// kind) as the API's enums, and back: one table each, read one way by the reads and
// the feed, the other by ingest.

import { StartGroupState } from "../gen/racing/v1/common_pb.js";
import { CourseStepKind } from "../gen/racing/v1/ingest_pb.js";
import type { CourseStepKind as StepKindWord, StartGroupState as StateWord } from "./domain/scenario.js";

export const STATE_ENUMS: Readonly<Record<StateWord, StartGroupState>> = {
  Scheduled: StartGroupState.SCHEDULED,
  Started: StartGroupState.STARTED,
  Finished: StartGroupState.FINISHED,
  Postponed: StartGroupState.POSTPONED,
  Abandoned: StartGroupState.ABANDONED,
};

export const STEP_KIND_ENUMS: Readonly<Record<StepKindWord, CourseStepKind>> = {
  start: CourseStepKind.START,
  mark: CourseStepKind.MARK,
  gate: CourseStepKind.GATE,
  finish: CourseStepKind.FINISH,
};

/** The word `table` maps to `value`; undefined for UNSPECIFIED and for numbers no word has. */
export function wordOf<Word extends string, Enum>(table: Readonly<Record<Word, Enum>>, value: Enum): Word | undefined {
  return (Object.keys(table) as Word[]).find((word) => table[word] === value);
}
