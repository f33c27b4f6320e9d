// How long insight detection takes for one start group and one detection window:
// 100 boats x 5 minutes at 1 Hz from the simulated benchmark race, in its busiest
// window (the most mark roundings, then the most samples).
//
// Baseline, measured in the same run on the same input: iterating every sample of the
// window once and computing one haversine per sample (to the windward mark): the least
// any detection that looked at each fix at all could cost. Compare the ratio across
// machines; the milliseconds are this machine's. Detection reads no fixes: mark
// roundings are the step passings the analytics engine already keeps (handed in, here
// computed once beforehand by the scenario path), so a window costs its own facts
// (docs/decisions.md, "Mark roundings are step passings").
//
//   npm run bench:insights             (RUNS=200 npm run bench:insights for more runs)

import { haversineDistanceM } from "../src/domain/geo.js";
import type { DetectionInput } from "../src/domain/detection-input.js";
import type { Track } from "../src/domain/scenario.js";
import { DETECTION_WINDOW_MS, detectFacts } from "../src/insights/detect.js";
import type { Fact } from "../src/domain/facts.js";
import { detectionInputFromScenario, scenarioPassings } from "../src/insights/scenario-input.js";
import { BENCHMARK_OPTIONS, simulateScenario } from "../src/sim/index.js";

const RUNS = Number(process.env.RUNS ?? 50);
const WARM_UP = 10;

const scenario = simulateScenario(BENCHMARK_OPTIONS);
const event = scenario.events[0]!;
const race = event.races[0]!;
const group = race.startGroups[0]!;
const gunMs = Date.parse(group.startTimeUtc!);

// The busiest window of the race, among those ending on whole 5 minutes after the gun:
// the most mark roundings (with the passings the race ends knowing), then the most
// samples. Its input then holds the passings known at its end.
const known = scenarioPassings(group, Number.POSITIVE_INFINITY);
// Generation runs once a minute per race, so the code is rarely hot: the first call of
// the process (the first window of the race) is timed too.
let busiestToMs = NaN;
let busiest = -1;
let firstCallMs = NaN;
for (let toMs = gunMs + DETECTION_WINDOW_MS; toMs <= gunMs + 180 * 60_000; toMs += DETECTION_WINDOW_MS) {
  const candidate = detectionInputFromScenario(race.id, group, event.entries, toMs - DETECTION_WINDOW_MS, toMs, known);
  let found: Fact[] = [];
  const ms = time(() => (found = detectFacts(candidate)));
  if (Number.isNaN(firstCallMs)) firstCallMs = ms;
  const roundings = found.filter((f) => f.kind === "markRounding").length;
  const score = roundings * 1e6 + windowSlices(candidate).reduce((n, slice) => n + slice.to - slice.from, 0);
  if (score > busiest) [busiestToMs, busiest] = [toMs, score];
}
const window: DetectionInput = detectionInputFromScenario(race.id, group, event.entries, busiestToMs - DETECTION_WINDOW_MS, busiestToMs);
const slices = windowSlices(window);
const mark = window.courses[0]!.steps.find((s) => s.kind === "mark")!.marks[0]!;
const samples = slices.reduce((n, slice) => n + slice.to - slice.from, 0);

const facts = detectFacts(window);
const kinds = new Map<string, number>();
for (const f of facts) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
console.log(
  `window: ${window.boats.size} boats, ${samples.toLocaleString("en")} samples in (${minutesAfterGun(window.fromMs)}, ${minutesAfterGun(window.toMs)}] min after the gun, ` +
    `${window.passings.length.toLocaleString("en")} passings handed in, ${window.courses.length} course versions, ` +
    `${facts.length} facts (${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")})`,
);

let sink = 0;
const detection: number[] = [];
const baseline: number[] = [];
for (let run = 0; run < WARM_UP + RUNS; run++) {
  const d = time(() => (sink += detectFacts(window).length));
  const b = time(() => (sink += haversineEverySample()));
  if (run >= WARM_UP) {
    detection.push(d);
    baseline.push(b);
  }
}

const detectionMedian = median(detection);
const baselineMedian = median(baseline);
console.log(`
median of ${RUNS} runs (after ${WARM_UP} warm-up runs)
  detectFacts, 100 boats x 5 minutes             ${detectionMedian.toFixed(2)} ms   (p90 ${percentile(detection, 0.9).toFixed(2)} ms)
  baseline (one haversine per sample)            ${baselineMedian.toFixed(2)} ms
  ratio detection / baseline                     ${(detectionMedian / baselineMedian).toFixed(2)}
  first call of the process (cold)              ${firstCallMs.toFixed(2)} ms
(${sink > 0 ? "checksum ok" : "no work?"})`);

/** Each track's samples in the window (fromMs, toMs], as index ranges: found before the timing, as a reader would hand them. */
function windowSlices(input: DetectionInput): { track: Track; from: number; to: number }[] {
  return group.tracks!.map((track) => ({ track, from: upperBound(track.t, input.fromMs), to: upperBound(track.t, input.toMs) }));
}

function haversineEverySample(): number {
  let sum = 0;
  for (const { track, from, to } of slices) {
    for (let i = from; i < to; i++) sum += haversineDistanceM(mark, { lat: track.lat[i]!, lon: track.lon[i]! });
  }
  return sum;
}

/** The first index whose value is greater than `value` (values ascending). */
function upperBound(values: readonly number[], value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function time(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function minutesAfterGun(ms: number): number {
  return Math.round((ms - gunMs) / 60_000);
}
