// The race simulator's public face: seeded scenarios and their time slices for live mode.

export { simulateScenario, estimateLeaderSeconds, DEFAULT_SIMULATE_OPTIONS, BENCHMARK_OPTIONS, type SimulateOptions } from "./simulate.js";
export { PRESTART_MS } from "./boats.js";
export { rngFor, uuidFrom, Rng, type Seed } from "./random.js";
export { sliceScenario, groupFinishedAtMs } from "./slice.js";
