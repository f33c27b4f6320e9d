// A DetectionInput built from a `race-scenario/v1` start group in memory: the same data
// the MySQL reader and the race analytics hand detection, for tests and benchmarks on
// simulated races. The passings come from the analytics' pure core, fed as the analytics
// engine feeds it, so both paths share the one rule.

import { BoatAnalytics } from "../domain/analytics/boat-analytics.js";
import type { CourseVersionData, DetectionInput, LiveOrderData, PassingData, WindData } from "../domain/detection-input.js";
import type { BoatRef } from "../domain/facts.js";
import { captureWindow, inCaptureWindow } from "../domain/race-time.js";
import type { Entry, StartGroup } from "../domain/scenario.js";

/**
 * The group's data for the window (fromMs, toMs]: readings and wind from the newest at or
 * before `fromMs` on, every course version applied by `toMs`, finishes in the window, and
 * `passings`: by default those known at `toMs` (a later generation passes what it knows).
 */
export function detectionInputFromScenario(
  raceId: string,
  group: StartGroup,
  entries: readonly Entry[],
  fromMs: number,
  toMs: number,
  passings: readonly PassingData[] = scenarioPassings(group, toMs),
): DetectionInput {
  const members = new Set(group.entryIds);
  const boats = new Map<string, BoatRef>();
  for (const e of entries) {
    if (members.has(e.id)) boats.set(e.id, { entryId: e.id, sailNumber: e.sailNumber, boatName: e.boatName });
  }

  const orders: LiveOrderData[] = (group.liveOrder ?? []).map((r) => ({
    asOfMs: Date.parse(r.asOfUtc),
    ranks: new Map(r.rows.map((row) => [row.entryId, row.rank])),
  }));
  const wind = windOf(group);
  const courses = coursesOf(group);

  return {
    raceId,
    startGroupId: group.id,
    startGroupName: group.name,
    fromMs,
    toMs,
    boats,
    liveOrders: withBaseline(orders, (o) => o.asOfMs, fromMs, toMs),
    passings,
    courses: courses.filter((c) => c.appliedFromMs <= toMs),
    finishes: (group.finishes ?? [])
      .map((f) => ({ entryId: f.entryId, finishMs: Date.parse(f.finishTimeUtc) }))
      .filter((f) => f.finishMs > fromMs && f.finishMs <= toMs),
    wind: withBaseline(wind, (w) => w.measuredAtMs, fromMs, toMs),
  };
}

/**
 * Every step passing of the group's boats known at `knownAtMs`, by time: one BoatAnalytics
 * per boat fed as the analytics engine feeds it (reads/analytics/boat-timeline.ts): its
 * fixes in its capture window up to `knownAtMs` in order, each with the committee's wind
 * then, a course version applied before its first fix, then its phone finish.
 */
export function scenarioPassings(group: StartGroup, knownAtMs: number): PassingData[] {
  const gunMs = group.startTimeUtc ? Date.parse(group.startTimeUtc) : null;
  const wind = windOf(group);
  const courses = coursesOf(group);
  const finishes = firstFinishes(group, knownAtMs);
  const passings: PassingData[] = [];
  for (const track of group.tracks ?? []) {
    const finishMs = finishes.get(track.entryId) ?? null;
    const window = captureWindow(gunMs, finishMs);
    if (window === null) break;
    const boat = new BoatAnalytics({ steps: [], gunMs });
    let version = -1;
    let reading = -1;
    for (let k = 0; k < track.t.length && track.t[k]! <= knownAtMs; k++) {
      const tMs = track.t[k]!;
      if (!inCaptureWindow(window, tMs)) continue;
      while (version + 1 < courses.length && courses[version + 1]!.appliedFromMs <= tMs) boat.changeCourse(courses[++version]!.steps);
      while (reading + 1 < wind.length && wind[reading + 1]!.measuredAtMs <= tMs) reading++;
      boat.push({ tMs, lat: track.lat[k]!, lon: track.lon[k]! }, wind[reading]?.twd ?? Number.NaN);
    }
    if (finishMs !== null) boat.recordFinish(finishMs);
    for (const passing of boat.passings) passings.push({ entryId: track.entryId, passing });
  }
  return passings.sort((a, b) => a.passing.atMs - b.passing.atMs);
}

function windOf(group: StartGroup): WindData[] {
  return (group.wind ?? [])
    .map((w) => ({ measuredAtMs: Date.parse(w.measuredAtUtc), twd: w.twd, tws: w.tws ?? null }))
    .sort((a, b) => a.measuredAtMs - b.measuredAtMs);
}

function coursesOf(group: StartGroup): CourseVersionData[] {
  return (group.courses ?? [])
    .map((c) => ({
      appliedFromMs: Date.parse(c.appliedFromUtc),
      steps: c.steps.map((s) => ({ kind: s.kind, label: s.label ?? null, marks: s.marks.map((m) => ({ ...m })) })),
    }))
    .sort((a, b) => a.appliedFromMs - b.appliedFromMs);
}

/** Items in (fromMs, toMs] and the newest at or before fromMs. */
function withBaseline<T>(items: readonly T[], timeOf: (item: T) => number, fromMs: number, toMs: number): T[] {
  const first = items.findIndex((item) => timeOf(item) > fromMs);
  const start = first < 0 ? Math.max(0, items.length - 1) : Math.max(0, first - 1);
  return items.slice(start).filter((item) => timeOf(item) <= toMs);
}

/** Each boat's first phone finish at or before `toMs`. */
function firstFinishes(group: StartGroup, toMs: number): Map<string, number> {
  const first = new Map<string, number>();
  for (const finish of group.finishes ?? []) {
    const ms = Date.parse(finish.finishTimeUtc);
    if (ms <= toMs && ms < (first.get(finish.entryId) ?? Infinity)) first.set(finish.entryId, ms);
  }
  return first;
}
