// A simulated race as BoatAnalytics takes it: each boat's fixes in time order with the
// wind reading in force at each, the course versions as they apply and the phone's
// finish at its time, so tests can feed the state as a caller does.

import { BoatAnalytics } from "../../../src/domain/analytics/boat-analytics.js";
import type { Fix } from "../../../src/domain/analytics/kinematics.js";
import type { CourseStep, StartGroup } from "../../../src/domain/scenario.js";

export type RaceEvent =
  | { kind: "fix"; fix: Fix; twdDeg: number }
  | { kind: "course"; steps: readonly CourseStep[] }
  | { kind: "finish"; atMs: number };

export interface FedBoat {
  entryId: string;
  /** The course first applied; later versions come as events. */
  steps: readonly CourseStep[];
  events: RaceEvent[];
}

const ms = (utc: string) => Date.parse(utc);

/** The group's gun, epoch ms (null before it is set). */
export function gunOf(group: StartGroup): number | null {
  return group.startTimeUtc === null ? null : ms(group.startTimeUtc);
}

/** Every boat of the group with a track, its events in time order. */
export function raceFeed(group: StartGroup): FedBoat[] {
  const courses = [...(group.courses ?? [])].sort((a, b) => ms(a.appliedFromUtc) - ms(b.appliedFromUtc));
  const wind = [...(group.wind ?? [])].sort((a, b) => ms(a.measuredAtUtc) - ms(b.measuredAtUtc));
  const first = courses[0];
  if (first === undefined || wind.length === 0) throw new Error("a simulated group has a course and wind");
  return (group.tracks ?? []).map((track) => {
    const events: RaceEvent[] = [];
    const finishMs = group.finishes?.find((f) => f.entryId === track.entryId)?.finishTimeUtc;
    let finishPending = finishMs === undefined ? null : ms(finishMs);
    let course = 0;
    let reading = 0;
    track.t.forEach((tMs, i) => {
      while (courses[course + 1] !== undefined && ms(courses[course + 1]!.appliedFromUtc) <= tMs) {
        course++;
        events.push({ kind: "course", steps: courses[course]!.steps });
      }
      while (wind[reading + 1] !== undefined && ms(wind[reading + 1]!.measuredAtUtc) <= tMs) reading++;
      if (finishPending !== null && finishPending <= tMs) {
        events.push({ kind: "finish", atMs: finishPending });
        finishPending = null;
      }
      events.push({ kind: "fix", fix: { lat: track.lat[i]!, lon: track.lon[i]!, tMs }, twdDeg: wind[reading]!.twd });
    });
    if (finishPending !== null) events.push({ kind: "finish", atMs: finishPending });
    return { entryId: track.entryId, steps: first.steps, events };
  });
}

export function apply(boat: BoatAnalytics, events: readonly RaceEvent[]): void {
  for (const event of events) {
    if (event.kind === "fix") boat.push(event.fix, event.twdDeg);
    else if (event.kind === "course") boat.changeCourse(event.steps);
    else boat.recordFinish(event.atMs);
  }
}

/** A fresh state for the boat, fed its events (or those given). */
export function fedState(boat: FedBoat, gunMs: number | null, events: readonly RaceEvent[] = boat.events): BoatAnalytics {
  const state = new BoatAnalytics({ steps: boat.steps, gunMs });
  apply(state, events);
  return state;
}
