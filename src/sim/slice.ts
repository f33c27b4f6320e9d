// Live mode over a recorded scenario: the same metadata, with only the time-keyed data of
// a time window, and each start group as it stood at the window's end. Pure, no I/O.

import type { CourseVersion, Scenario, StartGroup, StartGroupState, Track } from "../domain/scenario.js";

/**
 * The data of `full` in (fromMs, toMs] (`fromMs` null: from the very beginning): wind
 * by `measuredAtUtc`, live order by `asOfUtc`, finishes by `finishTimeUtc`, track points
 * by `t` (tracks with no point in the window are dropped), course versions by
 * `appliedFromUtc` (all applied up to `toMs` when `fromMs` is null), and results by
 * `publishedAtUtc`, only once the group is finished. Club, event, race and entries are
 * passed through. A group's state is the one at `toMs`: "Scheduled" before its gun,
 * "Started" after it, "Finished" from the last finish on (`finishTimeUtc` = that
 * finish); "Postponed" and "Abandoned" are kept as they are.
 */
export function sliceScenario(full: Scenario, fromMs: number | null, toMs: number): Scenario {
  const inWindow = (ms: number): boolean => ms <= toMs && (fromMs === null || ms > fromMs);
  const at = (dateTime: string): number => Date.parse(dateTime);
  return {
    ...full,
    events: full.events.map((event) => ({
      ...event,
      races: event.races.map((race) => ({
        ...race,
        startGroups: race.startGroups.map((group): StartGroup => {
          const { state, finishTimeUtc } = stateAt(group, toMs);
          const sliced: StartGroup = {
            ...group,
            state,
            finishTimeUtc,
            courses: (group.courses ?? []).filter((c: CourseVersion) => inWindow(at(c.appliedFromUtc))),
            wind: (group.wind ?? []).filter((w) => inWindow(at(w.measuredAtUtc))),
            liveOrder: (group.liveOrder ?? []).filter((o) => inWindow(at(o.asOfUtc))),
            finishes: (group.finishes ?? []).filter((f) => inWindow(at(f.finishTimeUtc))),
            tracks: sliceTracks(group.tracks ?? [], fromMs, toMs),
          };
          delete sliced.results;
          if (group.results && state === "Finished" && inWindow(at(group.results.publishedAtUtc))) {
            sliced.results = group.results;
          }
          return sliced;
        }),
      })),
    })),
  };
}

/**
 * When every boat that finishes has finished: the last phone finish or official finish
 * (gun + elapsed of an "OK" result row), or null when no boat finishes at all.
 */
export function groupFinishedAtMs(group: StartGroup): number | null {
  let last: number | null = null;
  for (const f of group.finishes ?? []) last = Math.max(last ?? -Infinity, Date.parse(f.finishTimeUtc));
  if (group.startTimeUtc !== null) {
    const gunMs = Date.parse(group.startTimeUtc);
    for (const row of group.results?.rows ?? []) {
      if (row.status === "OK" && typeof row.elapsedSeconds === "number") {
        last = Math.max(last ?? -Infinity, gunMs + row.elapsedSeconds * 1000);
      }
    }
  }
  return last;
}

function stateAt(group: StartGroup, toMs: number): { state: StartGroupState; finishTimeUtc: string | null } {
  const kept = { state: group.state, finishTimeUtc: group.finishTimeUtc ?? null };
  if (group.startTimeUtc === null || group.state === "Postponed" || group.state === "Abandoned") return kept;
  if (toMs < Date.parse(group.startTimeUtc)) return { state: "Scheduled", finishTimeUtc: null };
  const finishedAt = groupFinishedAtMs(group);
  if (finishedAt !== null && toMs >= finishedAt) return { state: "Finished", finishTimeUtc: new Date(finishedAt).toISOString() };
  return { state: "Started", finishTimeUtc: null };
}

function sliceTracks(tracks: readonly Track[], fromMs: number | null, toMs: number): Track[] {
  const out: Track[] = [];
  for (const track of tracks) {
    const begin = fromMs === null ? 0 : firstAfter(track.t, fromMs);
    const end = firstAfter(track.t, toMs);
    if (end <= begin) continue;
    if (begin === 0 && end === track.t.length) {
      out.push(track);
      continue;
    }
    const part: Track = {
      entryId: track.entryId,
      t: track.t.slice(begin, end),
      lat: track.lat.slice(begin, end),
      lon: track.lon.slice(begin, end),
    };
    if (track.sogKn) part.sogKn = track.sogKn.slice(begin, end);
    if (track.cogDeg) part.cogDeg = track.cogDeg.slice(begin, end);
    if (track.accuracyM) part.accuracyM = track.accuracyM.slice(begin, end);
    out.push(part);
  }
  return out;
}

/** Index of the first value > `ms` in ascending `t` (binary search; tracks are long). */
function firstAfter(t: readonly number[], ms: number): number {
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((t[mid] as number) <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
