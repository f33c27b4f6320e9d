// A race-scenario/v1 event built from the signalk-server recordings (signalk-recordings.ts):
// the yacht Plaka as one entry sailing races of one capture window each, with a course laid
// on its own turning points and the committee's wind from its instruments; and the AIS
// vessels around Aava as a second race, with the wind of Aava's instruments.

import { destinationPoint, initialBearingDeg, type LatLon, localOffsetM, toDegrees } from "../../src/domain/geo.js";
import { CAPTURE_AFTER_GUN_MS, CAPTURE_BEFORE_GUN_MS } from "../../src/domain/race-time.js";
import type { CourseStep, Entry, Race, Scenario, Track, WindReading } from "../../src/domain/scenario.js";
import { CLUB, identityScenario } from "./api.js";
import { type AavaRecording, type AisVessel, type PlakaRecording, readAava, readPlaka, type RecordedFix } from "./signalk-recordings.js";

/** plaka.log has times of day only: put on the day of the Aava recording, so one event holds both. */
export const PLAKA_DAY_MS = Date.parse("2014-08-15T00:00:00.000Z");
/** The committee posts a reading every 5 minutes: the mean of the instruments over the 5 minutes around it. */
export const READING_EVERY_MS = 5 * 60_000;
/** Below this over the ground a GPS course means little, and the instruments' wind angle is off the bow, not the course. */
export const MIN_COURSE_SPEED_KN = 1.5;
/** Below this the vane wanders and the true wind an instrument computes is mostly its own error. */
export const MIN_WIND_SPEED_KN = 3;
/** A reading needs this many instrument samples that pass both minima (a minute's worth at plaka's 4 s). */
const MIN_SAMPLES_PER_READING = 15;
/** Turning points: where the track leaves the straight line between its neighbours by more than this. */
const TURNING_POINT_TOLERANCE_M = 300;
/** The start and finish lines lie a minute into and before the end of the recorded window, this long each side of the track. */
const LINE_HALF_LENGTH_M = 100;
const LINE_OFFSET_MS = 60_000;

export const RECORDED_IDS = {
  event: "5e000000-0000-4000-8000-000000000001",
  plakaEntry: "5b000000-0000-4000-8000-000000000001",
  aavaRace: "5a000000-0000-4000-8000-0000000000aa",
  aavaGroup: "56000000-0000-4000-8000-0000000000aa",
} as const;

export function plakaRaceId(index: number): string {
  return `5a000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`;
}

export function plakaGroupId(index: number): string {
  return `56000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`;
}

/** An MMSI is nine digits at most, so it fits a uuid's last group. */
export function vesselEntryId(mmsi: number): string {
  return `5c000000-0000-4000-8000-${String(mmsi).padStart(12, "0")}`;
}

export interface RecordedRaces {
  scenario: Scenario;
  plaka: PlakaRecording;
  aava: AavaRecording;
}

/** The identities of api.ts plus the event; the club's tracking bucket opened wide for paging through hours of track. */
export function recordedRaces(): RecordedRaces {
  const plaka = readPlaka(PLAKA_DAY_MS);
  const aava = readAava();
  const scenario = identityScenario();
  scenario.clubs = scenario.clubs.map((club) => ({ ...club, trackingRateLimitPerMinute: 100_000 }));
  const entries: Entry[] = [
    { id: RECORDED_IDS.plakaEntry, sailNumber: "PLAKA", boatName: "Plaka" },
    ...aava.vessels.map((v) => ({ id: vesselEntryId(v.mmsi), sailNumber: String(v.mmsi), boatName: v.name ?? `MMSI ${v.mmsi}` })),
  ];
  scenario.events.push({
    id: RECORDED_IDS.event,
    clubId: CLUB,
    name: "Gulf of Finland, recorded",
    startDate: new Date(PLAKA_DAY_MS).toISOString(),
    trackingShared: true,
    delaySeconds: 0,
    entries,
    races: [...plakaRaces(plaka), aavaRace(aava)],
  });
  return { scenario, plaka, aava };
}

/** Plaka's 4 hours as races of one capture window each (gun - 5 min to gun + 3 h), so the track endpoint serves all of it. */
function plakaRaces(plaka: PlakaRecording): Race[] {
  const readings = committeeWind(plakaWindSamples(plaka), plaka.fixes[0]!.tMs, plaka.fixes.at(-1)!.tMs);
  const races: Race[] = [];
  for (
    let gunMs = plaka.fixes[0]!.tMs + CAPTURE_BEFORE_GUN_MS;
    gunMs - CAPTURE_BEFORE_GUN_MS <= plaka.fixes.at(-1)!.tMs;
    gunMs += CAPTURE_AFTER_GUN_MS
  ) {
    const index = races.length;
    const window = plaka.fixes.filter((f) => f.tMs >= gunMs - CAPTURE_BEFORE_GUN_MS && f.tMs < gunMs + CAPTURE_AFTER_GUN_MS);
    races.push({
      id: plakaRaceId(index),
      raceNo: index + 1,
      name: `Plaka ${index + 1}`,
      isLive: false,
      startGroups: [
        {
          id: plakaGroupId(index),
          name: "Plaka",
          state: "Finished",
          startTimeUtc: new Date(gunMs).toISOString(),
          entryIds: [RECORDED_IDS.plakaEntry],
          courses: [
            { version: 1, appliedFromUtc: new Date(gunMs - CAPTURE_BEFORE_GUN_MS).toISOString(), steps: courseAlong(window, gunMs) },
          ],
          wind: readingsFor(readings, window[0]!.tMs, window.at(-1)!.tMs),
          tracks: [track(RECORDED_IDS.plakaEntry, window)],
        },
      ],
    });
  }
  return races;
}

/** The AIS vessels, Aava's own transponder among them, in one start group whose gun is the recording's first report. */
function aavaRace(aava: AavaRecording): Race {
  const firstMs = Math.min(...aava.vessels.map((v) => v.fixes[0]!.tMs));
  const lastMs = Math.max(...aava.vessels.map((v) => v.fixes.at(-1)!.tMs));
  const own = aava.vessels.find((v) => v.mmsi === aava.ownMmsi)!;
  return {
    id: RECORDED_IDS.aavaRace,
    raceNo: 10,
    name: "Around Aava",
    isLive: false,
    startGroups: [
      {
        id: RECORDED_IDS.aavaGroup,
        name: "AIS",
        state: "Finished",
        startTimeUtc: new Date(firstMs).toISOString(),
        entryIds: aava.vessels.map((v) => vesselEntryId(v.mmsi)),
        courses: [{ version: 1, appliedFromUtc: new Date(firstMs).toISOString(), steps: courseAlong(own.fixes, firstMs) }],
        wind: committeeWind(aava.trueWind, firstMs, lastMs),
        tracks: aava.vessels.map((v: AisVessel) => track(vesselEntryId(v.mmsi), v.fixes)),
      },
    ],
  };
}

/**
 * What a sailor reads as the true wind direction with no compass: the course over the
 * ground plus the instruments' true wind angle (heading taken as the course, so leeway
 * and current are left in), where the course means something and the wind is a wind.
 */
export function plakaWindSamples(plaka: PlakaRecording): { tMs: number; twdDeg: number; twsKn: number }[] {
  const fixAt = new Map(plaka.fixes.map((f) => [f.tMs, f]));
  return plaka.trueWind.flatMap((w) => {
    const fix = fixAt.get(w.tMs);
    if (fix?.cogDeg == null || fix.sogKn == null || fix.sogKn < MIN_COURSE_SPEED_KN || w.twsKn < MIN_WIND_SPEED_KN) return [];
    return [{ tMs: w.tMs, twdDeg: (fix.cogDeg + w.twaDeg + 360) % 360, twsKn: w.twsKn }];
  });
}

/**
 * Readings every 5 minutes from `fromMs`, each the circular mean direction (and mean speed)
 * of the samples in the 5 minutes around it; none where too few samples pass (drifting,
 * at anchor, in a calm): the reading before stays in force, as on the water.
 */
export function committeeWind(
  samples: readonly { tMs: number; twdDeg: number; twsKn: number }[],
  fromMs: number,
  toMs: number,
): WindReading[] {
  const readings: WindReading[] = [];
  for (let atMs = fromMs; atMs <= toMs; atMs += READING_EVERY_MS) {
    const around = samples.filter((s) => Math.abs(s.tMs - atMs) < READING_EVERY_MS / 2);
    if (around.length < MIN_SAMPLES_PER_READING) continue;
    const east = around.reduce((sum, s) => sum + Math.sin((s.twdDeg * Math.PI) / 180), 0);
    const north = around.reduce((sum, s) => sum + Math.cos((s.twdDeg * Math.PI) / 180), 0);
    const twd = Math.round(toDegrees(Math.atan2(east, north)) + 360) % 360;
    const tws = around.reduce((sum, s) => sum + s.twsKn, 0) / around.length;
    readings.push({ measuredAtUtc: new Date(atMs).toISOString(), twd, tws: Math.round(tws * 10) / 10 });
  }
  return readings;
}

/** The readings of a window, with the newest before it (still in force at its start). */
function readingsFor(readings: readonly WindReading[], fromMs: number, toMs: number): WindReading[] {
  const before = readings.filter((r) => Date.parse(r.measuredAtUtc) < fromMs).at(-1);
  const inside = readings.filter((r) => Date.parse(r.measuredAtUtc) >= fromMs && Date.parse(r.measuredAtUtc) <= toMs);
  return before === undefined ? inside : [before, ...inside];
}

/**
 * A course the boat sails by construction: a start line across its track a minute after
 * the gun, a rounding mark on each of its turning points, a finish line across its track
 * a minute before its last fix.
 */
export function courseAlong(fixes: readonly RecordedFix[], gunMs: number): CourseStep[] {
  const startIndex = fixes.findIndex((f) => f.tMs >= gunMs + LINE_OFFSET_MS);
  const lastMs = fixes.at(-1)!.tMs;
  const finishIndex = fixes.findLastIndex((f) => f.tMs <= lastMs - LINE_OFFSET_MS);
  const sailed = fixes.slice(startIndex, finishIndex + 1);
  const marks = turningPoints(sailed, TURNING_POINT_TOLERANCE_M).map((p, i) => ({
    kind: "mark" as const,
    label: `Turn ${i + 1}`,
    marks: [{ key: `T${i + 1}`, lat: p.lat, lon: p.lon }],
  }));
  return [
    { kind: "start", label: "Start", marks: lineAcross(fixes, startIndex, "S") },
    ...marks,
    { kind: "finish", label: "Finish", marks: lineAcross(fixes, finishIndex, "F") },
  ];
}

/** A line through fix `index`, square to the track there (its direction over the 30 s around it). */
function lineAcross(fixes: readonly RecordedFix[], index: number, key: string): CourseStep["marks"] {
  const at = fixes[index]!;
  const from = fixes.findLast((f) => f.tMs <= at.tMs - 15_000) ?? fixes[0]!;
  const to = fixes.find((f) => f.tMs >= at.tMs + 15_000) ?? fixes.at(-1)!;
  const along = initialBearingDeg(from, to);
  const [port, starboard] = [destinationPoint(at, along - 90, LINE_HALF_LENGTH_M), destinationPoint(at, along + 90, LINE_HALF_LENGTH_M)];
  return [
    { key: `${key}1`, ...port },
    { key: `${key}2`, ...starboard },
  ];
}

/** The inner vertices Douglas-Peucker keeps of the track at this tolerance: where it turned. */
export function turningPoints(fixes: readonly LatLon[], toleranceM: number): LatLon[] {
  if (fixes.length < 3) return [];
  const origin = fixes[0]!;
  const xy = fixes.map((f) => localOffsetM(origin, f));
  const kept: number[] = [];
  const visit = (first: number, last: number): void => {
    let farthest = -1;
    let farthestM = toleranceM;
    const a = xy[first]!;
    const b = xy[last]!;
    const length = Math.hypot(b.eastM - a.eastM, b.northM - a.northM);
    for (let i = first + 1; i < last; i++) {
      const p = xy[i]!;
      const offM =
        length === 0
          ? Math.hypot(p.eastM - a.eastM, p.northM - a.northM)
          : Math.abs((b.eastM - a.eastM) * (a.northM - p.northM) - (a.eastM - p.eastM) * (b.northM - a.northM)) / length;
      if (offM > farthestM) {
        farthest = i;
        farthestM = offM;
      }
    }
    if (farthest < 0) return;
    visit(first, farthest);
    kept.push(farthest);
    visit(farthest, last);
  };
  visit(0, fixes.length - 1);
  return kept.map((i) => fixes[i]!);
}

function track(entryId: string, fixes: readonly RecordedFix[]): Track {
  return {
    entryId,
    t: fixes.map((f) => f.tMs),
    lat: fixes.map((f) => f.lat),
    lon: fixes.map((f) => f.lon),
    sogKn: fixes.map((f) => f.sogKn),
    cogDeg: fixes.map((f) => f.cogDeg),
  };
}
