// A DetectionInput built from a `race-scenario/v1` start group in memory: the same data
// the MySQL reader hands detection, for tests and benchmarks on simulated races.

import type { Entry, StartGroup } from "../domain/scenario.js";
import type { DetectionInput, LiveOrderData, TrackData, WindData } from "../domain/detection-input.js";
import { captureWindow } from "../domain/race-time.js";
import type { BoatRef } from "../domain/facts.js";
import { upperBound } from "./roundings.js";

/**
 * The group's data for the window (fromMs, toMs]: readings and wind from the newest at or
 * before `fromMs` on, fixes from where the capture window opens (gun - 5 min) to `toMs`,
 * every course version applied by `toMs`, finishes in the window.
 */
export function detectionInputFromScenario(
  raceId: string,
  group: StartGroup,
  entries: readonly Entry[],
  fromMs: number,
  toMs: number,
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
  const wind: WindData[] = (group.wind ?? []).map((w) => ({ measuredAtMs: Date.parse(w.measuredAtUtc), twd: w.twd, tws: w.tws ?? null }));

  const gunMs = group.startTimeUtc ? Date.parse(group.startTimeUtc) : null;
  const capture = captureWindow(gunMs);
  const tracks = new Map<string, TrackData>();
  for (const track of group.tracks ?? []) {
    if (capture === null) break;
    const from = upperBound(track.t, capture.fromMs - 1);
    const to = upperBound(track.t, toMs);
    if (to <= from) continue;
    tracks.set(track.entryId, { t: track.t.slice(from, to), lat: track.lat.slice(from, to), lon: track.lon.slice(from, to) });
  }

  return {
    raceId,
    startGroupId: group.id,
    startGroupName: group.name,
    fromMs,
    toMs,
    boats,
    gunMs,
    finishMs: firstFinishes(group, toMs),
    liveOrders: withBaseline(orders, (o) => o.asOfMs, fromMs, toMs),
    tracks,
    courses: (group.courses ?? [])
      .map((c) => ({
        appliedFromMs: Date.parse(c.appliedFromUtc),
        steps: c.steps.map((s) => ({ kind: s.kind, label: s.label ?? null, marks: s.marks.map((m) => ({ ...m })) })),
      }))
      .filter((c) => c.appliedFromMs <= toMs)
      .sort((a, b) => a.appliedFromMs - b.appliedFromMs),
    finishes: (group.finishes ?? [])
      .map((f) => ({ entryId: f.entryId, finishMs: Date.parse(f.finishTimeUtc) }))
      .filter((f) => f.finishMs > fromMs && f.finishMs <= toMs),
    wind: withBaseline(wind, (w) => w.measuredAtMs, fromMs, toMs),
  };
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
