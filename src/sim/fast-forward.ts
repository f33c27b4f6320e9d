// A simulated race played faster than real time: every time in it is brought closer to
// a fixed instant by the speed factor, so a race of an hour passes in six minutes at
// speed 10 and a live feed never sends a time that lies in the future. Pure, no I/O.

import type { Scenario, StartGroup, Track } from "../domain/scenario.js";

/** Above this, two fixes a second apart would share a millisecond. */
export const MAX_SPEED = 100;

/**
 * `race` with each time s moved to fixedMs + (s - fixedMs) / speed (whole milliseconds),
 * and the live order's and results' durations divided by `speed` to match. Positions,
 * speeds and courses over ground stay as sailed: at speed N a boat covers its track N
 * times faster than the speed it reports.
 */
export function fastForward(race: Scenario, fixedMs: number, speed: number): Scenario {
  if (!(speed >= 1 && speed <= MAX_SPEED)) throw new RangeError(`speed must be from 1 to ${MAX_SPEED}, got ${speed}`);
  if (speed === 1) return race;
  const ms = (t: number) => Math.round(fixedMs + (t - fixedMs) / speed);
  const iso = (value: string) => new Date(ms(Date.parse(value))).toISOString();
  const seconds = (value: number | null | undefined) => (typeof value === "number" ? Math.round((value / speed) * 10) / 10 : value);
  const group = (g: StartGroup): StartGroup => {
    const moved: StartGroup = {
      ...g,
      startTimeUtc: g.startTimeUtc === null ? null : iso(g.startTimeUtc),
      finishTimeUtc: g.finishTimeUtc ? iso(g.finishTimeUtc) : (g.finishTimeUtc ?? null),
      courses: (g.courses ?? []).map((c) => ({ ...c, appliedFromUtc: iso(c.appliedFromUtc) })),
      wind: (g.wind ?? []).map((w) => ({ ...w, measuredAtUtc: iso(w.measuredAtUtc) })),
      liveOrder: (g.liveOrder ?? []).map((o) => ({
        asOfUtc: iso(o.asOfUtc),
        rows: o.rows.map((r) => ({
          ...r,
          elapsedSeconds: seconds(r.elapsedSeconds),
          correctedSeconds: seconds(r.correctedSeconds),
          deltaSeconds: seconds(r.deltaSeconds),
        })),
      })),
      finishes: (g.finishes ?? []).map((f) => ({ ...f, finishTimeUtc: iso(f.finishTimeUtc) })),
      tracks: (g.tracks ?? []).map((t): Track => ({ ...t, t: t.t.map(ms) })),
    };
    if (g.results) {
      moved.results = {
        ...g.results,
        publishedAtUtc: iso(g.results.publishedAtUtc),
        rows: g.results.rows.map((r) => ({
          ...r,
          elapsedSeconds: seconds(r.elapsedSeconds),
          correctedSeconds: seconds(r.correctedSeconds),
        })),
      };
    }
    return moved;
  };
  return {
    ...race,
    events: race.events.map((event) => ({ ...event, races: event.races.map((r) => ({ ...r, startGroups: r.startGroups.map(group) })) })),
  };
}
