// The words race-scenario/v1, the store and the v1 JSON use for the API's enums (a
// start group's state, a course step's kind, a results status, an insight's kind and
// source, a leg's and a manoeuvre's kind): one table each, read from word to enum by the services, the feed and
// ingest, and from enum to word by the v1 JSON (gateway/v1-json.ts).

import type { DescEnum } from "@bufbuild/protobuf";
import { StartGroupState, StartGroupStateSchema } from "../../gen/racing/v1/common_pb.js";
import { CourseStepKind, CourseStepKindSchema } from "../../gen/racing/v1/ingest_pb.js";
import { InsightKind, InsightKindSchema, InsightSource, InsightSourceSchema } from "../../gen/racing/v1/live_insights_pb.js";
import { LegKind, LegKindSchema, ManoeuvreKind, ManoeuvreKindSchema } from "../../gen/racing/v1/race_analytics_pb.js";
import { ResultStatus, ResultStatusSchema } from "../../gen/racing/v1/results_pb.js";
import type { LegKind as LegKindWord } from "../domain/analytics/course.js";
import type { ManoeuvreKind as ManoeuvreKindWord } from "../domain/analytics/manoeuvres.js";
import type { InsightKind as FactKind } from "../domain/facts.js";
import type { Results, CourseStepKind as StepKindWord, StartGroupState as StateWord } from "../domain/scenario.js";
import type { PhrasedText } from "../store/insights.js";

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

export const RESULT_STATUS_ENUMS: Readonly<Record<Results["status"], ResultStatus>> = {
  provisional: ResultStatus.PROVISIONAL,
  final: ResultStatus.FINAL,
};

export const INSIGHT_KIND_ENUMS: Readonly<Record<FactKind, InsightKind>> = {
  leadChange: InsightKind.LEAD_CHANGE,
  markRounding: InsightKind.MARK_ROUNDING,
  gain: InsightKind.GAIN,
  finish: InsightKind.FINISH,
  windShift: InsightKind.WIND_SHIFT,
};

export const INSIGHT_SOURCE_ENUMS: Readonly<Record<PhrasedText["source"], InsightSource>> = {
  model: InsightSource.MODEL,
  template: InsightSource.TEMPLATE,
};

export const LEG_KIND_ENUMS: Readonly<Record<LegKindWord, LegKind>> = {
  upwind: LegKind.UPWIND,
  downwind: LegKind.DOWNWIND,
  reach: LegKind.REACH,
};

export const MANOEUVRE_KIND_ENUMS: Readonly<Record<ManoeuvreKindWord, ManoeuvreKind>> = {
  tack: ManoeuvreKind.TACK,
  gybe: ManoeuvreKind.GYBE,
  penaltyTurn: ManoeuvreKind.PENALTY_TURN,
};

/** Each table by its enum's descriptor: how the v1 JSON finds the words of an enum field. */
export const WORD_TABLES: ReadonlyMap<DescEnum, Readonly<Record<string, number>>> = new Map<DescEnum, Readonly<Record<string, number>>>([
  [StartGroupStateSchema, STATE_ENUMS],
  [CourseStepKindSchema, STEP_KIND_ENUMS],
  [ResultStatusSchema, RESULT_STATUS_ENUMS],
  [InsightKindSchema, INSIGHT_KIND_ENUMS],
  [InsightSourceSchema, INSIGHT_SOURCE_ENUMS],
  [LegKindSchema, LEG_KIND_ENUMS],
  [ManoeuvreKindSchema, MANOEUVRE_KIND_ENUMS],
]);

/** The word `table` maps to `value`; undefined for UNSPECIFIED and for numbers no word has. */
export function wordOf<Word extends string, Enum>(table: Readonly<Record<Word, Enum>>, value: Enum): Word | undefined {
  return (Object.keys(table) as Word[]).find((word) => table[word] === value);
}
