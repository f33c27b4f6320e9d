// The race simulator's public face: seeded scenarios and their time slices for live mode.

export {
  simulateScenario,
  simulateRace,
  estimateLeaderSeconds,
  DEFAULT_SIMULATE_OPTIONS,
  BENCHMARK_OPTIONS,
  DEMO_OPTIONS,
  type SimulateOptions,
} from "./simulate.js";
export { PRESTART_MS } from "./boats.js";
export { rngFor, uuidFrom, Rng, type Seed } from "./random.js";
export { sliceScenario, groupFinishedAtMs } from "./slice.js";
export { COURSE_LAYOUTS, type CourseLayout } from "./course.js";
export {
  meanVmgKn,
  PASSING_RADIUS_M,
  type BoatTruth,
  type LegKind,
  type RaceTruth,
  type StartGroupTruth,
  type TruthManoeuvre,
  type TruthPassing,
  type TruthSamples,
} from "./truth.js";
