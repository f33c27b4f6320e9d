// Mark roundings for the commentary feed: which boats' tracks enter the 50 m zone of a
// rounding mark of the course applied at each GPS sample. Pure, no I/O; a sample far
// from every mark costs a few comparisons against each mark's box and allocates nothing.
//
// Distances are haversine on a sphere of mean radius (src/domain/geo.ts). Against the
// WGS84 ellipsoid that errs by at most ~0.5 %, i.e. under 25 cm at 50 m: far below the
// metres of phone GPS noise, so it cannot move a sample across the zone's edge in any
// way that the GPS itself would not.

import { haversineDistanceM, metresPerDegree } from "../domain/geo.js";
import { TRACK_LOOKBACK_MS, type CourseVersionData, type TrackData } from "../domain/detection-input.js";
import type { CourseMark } from "../domain/scenario.js";

/** A boat "rounds" a mark when its track enters this radius of it. */
export const ROUNDING_RADIUS_M = 50;
/** At most this many boats per mark per detection window: the first to arrive. */
export const ROUNDINGS_PER_MARK = 3;
/**
 * An entry counts only when the boat was outside the zone for this long before it, so
 * GPS noise on the zone's edge (a boat passing ~50 m off) makes one rounding, not
 * several. The caller reads tracks from this long before the window, so that every
 * window judges an entry from the same samples and gives it the same answer.
 */
export const ROUNDING_REENTRY_MS = TRACK_LOOKBACK_MS;

export interface Rounding {
  entryId: string;
  /** The zone's key (see RoundingZone). */
  zoneKey: string;
  /** The step's label, or the entered mark's key when the step has none. */
  markLabel: string;
  atMs: number;
}

/** One mark of a zone, with the box around its circle that pre-filters samples. */
interface ZoneMark {
  key: string;
  lat: number;
  lon: number;
  halfLatDeg: number;
  halfLonDeg: number;
}

/**
 * Where a boat rounds: the circle around a step's mark, or for a gate the two circles
 * together (a boat goes round one of them, and often passes within 50 m of the other:
 * one rounding, not two).
 */
export interface RoundingZone {
  /** The mark's key, or a gate's keys joined by "+": counts the boats per mark. */
  key: string;
  /** The step's label; null: the entered mark's key names it. */
  label: string | null;
  /** The labels of every step that rounds this zone, in the course's order (the windward mark of lap 1, lap 2...). */
  stepLabels: (string | null)[];
  marks: ZoneMark[];
}

interface PreparedVersion {
  appliedFromMs: number;
  zones: RoundingZone[];
}

/**
 * The rounding zones of a course version: each `mark` step and each `gate` step (start
 * and finish line ends are not rounded), once per set of marks; a mark used by several
 * steps (the windward mark of every lap) is one zone, with each step's label.
 */
export function roundingZones(course: CourseVersionData): RoundingZone[] {
  const zones = new Map<string, RoundingZone>();
  for (const step of course.steps) {
    if ((step.kind !== "mark" && step.kind !== "gate") || step.marks.length === 0) continue;
    const identity = JSON.stringify(step.marks.map((m) => [m.key, m.lat, m.lon]));
    const zone = zones.get(identity);
    if (zone) zone.stepLabels.push(step.label);
    else
      zones.set(identity, {
        key: step.marks.map((m) => m.key).join("+"),
        label: step.label,
        stepLabels: [step.label],
        marks: step.marks.map(zoneMark),
      });
  }
  return [...zones.values()];
}

/**
 * The label of the step a boat rounds when it enters `zone` for the n-th time in its
 * race (`entries`, counted on its track since its capture window opened): a mark that
 * serves several steps is named for the one being rounded. Past the last step, the
 * last; without the boat's history (`entries` null), the first.
 */
export function roundedStepLabel(zone: RoundingZone, entries: number | null, enteredKey: string): string {
  const index = entries === null ? 0 : Math.min(Math.max(entries, 1), zone.stepLabels.length) - 1;
  return zone.stepLabels[index] ?? enteredKey;
}

/** How often the track enters the zone at or before `untilMs`, by the rule of detectRoundings. */
export function zoneEntries(zone: RoundingZone, track: TrackData, untilMs: number): number {
  let count = 0;
  const end = upperBound(track.t, untilMs);
  for (let i = 1; i < end; i++) {
    if (markWithin(zone, track.lat[i] as number, track.lon[i] as number) === null) continue;
    if (markWithin(zone, track.lat[i - 1] as number, track.lon[i - 1] as number) !== null) continue;
    if (!insideSince(zone, track, i - 2, (track.t[i] as number) - ROUNDING_REENTRY_MS)) count++;
  }
  return count;
}

function zoneMark(m: CourseMark): ZoneMark {
  // The box is a little larger than the circle: inside it haversine decides exactly.
  const reachM = ROUNDING_RADIUS_M * 1.01 + 1;
  const scale = metresPerDegree(m.lat);
  return {
    key: m.key,
    lat: m.lat,
    lon: m.lon,
    halfLatDeg: reachM / scale.lat,
    // Right at a pole a longitude box means nothing: let every sample through to haversine.
    halfLonDeg: scale.lon > 1 ? reachM / scale.lon : 360,
  };
}

/** The zone's mark within `ROUNDING_RADIUS_M` of the point, or null. */
function markWithin(zone: RoundingZone, lat: number, lon: number): ZoneMark | null {
  for (const mark of zone.marks) {
    if (Math.abs(lat - mark.lat) > mark.halfLatDeg) continue;
    let dLon = lon - mark.lon;
    if (dLon > 180) dLon -= 360;
    else if (dLon < -180) dLon += 360;
    if (Math.abs(dLon) > mark.halfLonDeg) continue;
    // Inclusive, with a micrometre for the rounding of a point laid exactly 50 m off.
    if (haversineDistanceM(mark, { lat, lon }) <= ROUNDING_RADIUS_M + 1e-6) return mark;
  }
  return null;
}

/**
 * Roundings with `fromMs < atMs <= toMs`, at most `ROUNDINGS_PER_MARK` boats per zone
 * (the first to arrive; ties by entry id), one per boat and zone: its first entry.
 *
 * An entry is a sample inside a zone of the course version applied at that sample's
 * time whose previous sample lies outside that same zone (where this version has it),
 * with no sample inside it in the `ROUNDING_REENTRY_MS` before. A track's very first
 * sample has no previous one and is not an entry: a phone switched on beside a mark has
 * not been seen arriving there. Only samples up to `toMs` are read.
 */
export function detectRoundings(
  tracks: ReadonlyMap<string, TrackData>,
  courses: readonly CourseVersionData[],
  fromMs: number,
  toMs: number,
  isGroupBoat: (entryId: string) => boolean = () => true,
  histories: ReadonlyMap<string, TrackData> = new Map(),
): Rounding[] {
  const versions: PreparedVersion[] = [];
  for (const c of courses) {
    if (c.appliedFromMs > toMs) break;
    versions.push({ appliedFromMs: c.appliedFromMs, zones: roundingZones(c) });
  }
  if (versions.length === 0) return [];

  const found: Rounding[] = [];
  for (const [entryId, track] of tracks) {
    if (!isGroupBoat(entryId)) continue;
    const { t, lat, lon } = track;
    const end = upperBound(t, toMs);
    // Index 0 is never an entry (no previous sample); samples up to fromMs are history only.
    let i = Math.max(1, upperBound(t, fromMs));
    let v = 0;
    let rounded: string[] | null = null;
    for (; i < end; i++) {
      const ti = t[i] as number;
      while (v + 1 < versions.length && (versions[v + 1] as PreparedVersion).appliedFromMs <= ti) v++;
      const version = versions[v] as PreparedVersion;
      if (version.appliedFromMs > ti) continue; // before the first course version
      for (const zone of version.zones) {
        const entered = markWithin(zone, lat[i] as number, lon[i] as number);
        if (entered === null || markWithin(zone, lat[i - 1] as number, lon[i - 1] as number) !== null) continue;
        if (rounded?.includes(zone.key) || insideSince(zone, track, i - 2, ti - ROUNDING_REENTRY_MS)) continue;
        (rounded ??= []).push(zone.key);
        const history = zone.stepLabels.length > 1 ? histories.get(entryId) : undefined;
        found.push({
          entryId,
          zoneKey: zone.key,
          markLabel: roundedStepLabel(zone, history ? zoneEntries(zone, history, ti) : null, entered.key),
          atMs: ti,
        });
      }
    }
  }

  found.sort((a, b) => a.atMs - b.atMs || compareStrings(a.entryId, b.entryId));
  const boatsPerZone = new Map<string, number>();
  return found.filter((r) => {
    const n = boatsPerZone.get(r.zoneKey) ?? 0;
    boatsPerZone.set(r.zoneKey, n + 1);
    return n < ROUNDINGS_PER_MARK;
  });
}

/** Whether any sample from index `j` back to time `sinceMs` lies inside the zone. */
function insideSince(zone: RoundingZone, track: TrackData, j: number, sinceMs: number): boolean {
  for (; j >= 0 && (track.t[j] as number) >= sinceMs; j--) {
    if (markWithin(zone, track.lat[j] as number, track.lon[j] as number) !== null) return true;
  }
  return false;
}

/** The first index whose value is greater than `value` (values ascending). */
export function upperBound(values: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
