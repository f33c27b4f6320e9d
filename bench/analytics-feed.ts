// What the analytics cost per fix (issue 30), without the database: the benchmark's
// 100-boat, 3-hour race fed as rows through each boat's BoatTimeline, as a rebuild feeds
// them, against a baseline of the same rows only walked and summed. Prints this
// process's CPU per fix (process.cpuUsage, medians of ROUNDS) and a fingerprint of
// everything the analytics say at the end, so a change that should only be faster can
// be checked to say the same. Run: node --import tsx bench/analytics-feed.ts  (ROUNDS=5)

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { TrackPoint } from "../src/store/fixes.js";
import { BoatTimeline } from "../src/reads/analytics/boat-timeline.js";
import { GroupInputs } from "../src/reads/analytics/group-inputs.js";
import { BENCHMARK_OPTIONS, simulateScenario } from "../src/sim/index.js";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const gunMs = Date.UTC(2025, 5, 1, 12);
const scenario = simulateScenario({ ...BENCHMARK_OPTIONS, gunMs });
const group = scenario.events[0]!.races[0]!.startGroups[0]!;
const winds = (group.wind ?? []).map((w) => ({ measuredAtMs: Date.parse(w.measuredAtUtc), twd: w.twd, tws: null }));
const courses = (group.courses ?? []).map((c, i) => ({
  version: i + 1,
  appliedFromMs: Date.parse(c.appliedFromUtc),
  steps: c.steps as never,
}));
const entryIds = new Map((group.tracks ?? []).map((track, i) => [track.entryId, i + 1]));
const finishes = new Map((group.finishes ?? []).map((f) => [entryIds.get(f.entryId)!, Date.parse(f.finishTimeUtc)]));
const inputs = new GroupInputs(winds, courses, finishes);
/** Rows as the driver returns them, one boat's in time order. */
const rows: TrackPoint[][] = (group.tracks ?? []).map((track) =>
  track.t.map((tMs, i) => ({ entryId: entryIds.get(track.entryId)!, tMs, lat: track.lat[i]!, lon: track.lon[i]! })),
);
const fixCount = rows.reduce((n, r) => n + r.length, 0);
const endMs = Math.max(...rows.map((r) => r.at(-1)!.tMs)) + 1;
const CHUNK_MS = 10 * 60_000;

const cpuS = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Feeds every boat's rows to its timeline in 10-minute chunks, as a rebuild does. */
function rebuild(): BoatTimeline[] {
  const timelines = rows.map(() => new BoatTimeline(gunMs));
  const next = rows.map(() => 0);
  for (let fromMs = gunMs - 20 * 60_000; fromMs < endMs; fromMs += CHUNK_MS) {
    const untilMs = Math.min(endMs, fromMs + CHUNK_MS);
    rows.forEach((own, b) => {
      let i = next[b]!;
      const start = i;
      while (i < own.length && own[i]!.tMs < untilMs) i++;
      next[b] = i;
      timelines[b]!.settle(own.slice(start, i), untilMs, inputs, finishes.get(b + 1) ?? null);
    });
  }
  return timelines;
}

function baseline(): number {
  let sum = 0;
  for (const own of rows) for (const row of own) sum += row.lat + row.lon + row.tMs;
  return sum;
}

function fingerprint(timelines: BoatTimeline[]): string {
  const twd = inputs.twdAt(endMs);
  const said = timelines.map((t) => ({
    snapshot: t.current.snapshot(endMs, twd),
    passings: t.current.passings,
    manoeuvres: t.current.manoeuvres,
    legs: t.current.legStats(endMs),
  }));
  const text = JSON.stringify(said);
  // SAID=file keeps the whole answer, to compare figures within a tolerance.
  if (process.env.SAID) writeFileSync(process.env.SAID, text);
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fed: number[] = [];
const walked: number[] = [];
let print = "";
for (let round = 0; round < ROUNDS; round++) {
  let c0 = cpuS();
  baseline();
  walked.push(cpuS() - c0);
  c0 = cpuS();
  const timelines = rebuild();
  fed.push(cpuS() - c0);
  print = fingerprint(timelines);
  console.log(`round ${round + 1}: fed ${fed.at(-1)!.toFixed(2)} s CPU, walked ${walked.at(-1)!.toFixed(3)} s`);
}
const perFixUs = (median(fed) / fixCount) * 1e6;
console.log(
  `${fixCount} fixes of ${rows.length} boats: ${perFixUs.toFixed(2)} µs CPU per fix fed (median of ${ROUNDS}), ` +
    `${((median(walked) / fixCount) * 1e6).toFixed(3)} µs per fix walked; ratio ${(median(fed) / median(walked)).toFixed(0)}; fingerprint ${print}`,
);
