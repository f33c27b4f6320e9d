// `simulateScenario`: one seeded, believable race as a `race-scenario/v1` document, with
// its options, their defaults and the benchmark preset; `simulateRace` adds its ground truth.

import { SCENARIO_FORMAT, type Event, type Scenario, type StartGroup, type Track } from "../domain/scenario.js";
import { angleDifferenceDegrees, type LatLon } from "../domain/geo.js";
import { sailBoat, type BoatRun } from "./boats.js";
import {
  COURSE_LAYOUTS,
  layCourse,
  localFrame,
  moveWindwardMark,
  toCourseVersion,
  type CourseGeometry,
  type CourseLayout,
} from "./course.js";
import { createFleet, type BoatTraits } from "./fleet.js";
import { liveOrderReadings, provisionalResults, type RankedBoat } from "./leaderboard.js";
import { boatSpeedKn, downwindVmgMs, KNOTS_TO_MS, upwindVmgMs } from "./polar.js";
import { rngFor, uuidFrom, type Seed } from "./random.js";
import { TruthRecorder, type RaceTruth, type StartGroupTruth } from "./truth.js";
import { simulateWind } from "./wind.js";

export interface SimulateOptions {
  /** Same seed, same scenario. Default 1. */
  seed?: Seed;
  /** The first start group's gun, epoch ms. Default 2026-11-21T11:00:00Z. */
  gunMs?: number;
  /** Default 2. */
  startGroups?: number;
  /** Default 12. */
  boatsPerGroup?: number;
  /** Each further group's gun comes this much after the previous one. Default 5. */
  startGroupOffsetMinutes?: number;
  /** Rounds of the course. Default 2. */
  laps?: number;
  /** The course's shape (see `CourseLayout`). Default "windwardLeewardGate". */
  layout?: CourseLayout;
  /** Start line to windward mark, metres. Default 2000 (a ~45-60 minute race). */
  legLengthM?: number;
  /** The race stops this long after each group's gun even if boats are still racing. Default 180. */
  durationMinutes?: number;
  /** Event delay, 0-600. Default 0. */
  delaySeconds?: number;
  /** Event tracking opt-in. Default true. */
  trackingShared?: boolean;
  /** Race broadcast flag. Default true. */
  isLive?: boolean;
  /** Middle of the course. Default the central Solent (50.77, -1.30). */
  courseCenter?: LatLon;
  /** Lay course version 2 (windward mark moved) after the big wind shift, when laps >= 2. Default true. */
  courseChange?: boolean;
  /**
   * Boats over the start line at the gun sail back and start again, as the rules make them;
   * otherwise (the default, kept so recorded races stay as they were) they sail on.
   */
  overEarlyReturn?: boolean;
  /** Mean wind direction at the start, degrees. Default drawn from the seed. */
  windDirectionDeg?: number;
  /** Mean wind speed, knots. Default drawn from the seed (9-15). */
  windSpeedKn?: number;
}

type ResolvedOptions = Required<Omit<SimulateOptions, "windDirectionDeg" | "windSpeedKn">> &
  Pick<SimulateOptions, "windDirectionDeg" | "windSpeedKn">;

export const DEFAULT_SIMULATE_OPTIONS: Readonly<ResolvedOptions> = {
  seed: 1,
  gunMs: Date.UTC(2026, 10, 21, 11, 0, 0),
  startGroups: 2,
  boatsPerGroup: 12,
  startGroupOffsetMinutes: 5,
  laps: 2,
  layout: "windwardLeewardGate",
  legLengthM: 2400,
  durationMinutes: 180,
  delaySeconds: 0,
  trackingShared: true,
  isLive: true,
  courseCenter: { lat: 50.77, lon: -1.3 },
  courseChange: true,
  overEarlyReturn: false,
};

/**
 * The demo's race (`race-api demo`, and the overlay's tests of it): two start groups of
 * 12 as the defaults have them, whose boats over the line at the gun come back and start,
 * as the rules make them, so the analytics show every boat racing.
 */
export const DEMO_OPTIONS: SimulateOptions = { seed: "demo", overEarlyReturn: true };

/**
 * 100 boats racing for 3 hours at 1 Hz (~1.08 million fixes): the leaders finish just
 * before the 3 h cap, most of the fleet is still sailing when it stops them (DNF).
 */
export const BENCHMARK_OPTIONS: SimulateOptions = {
  seed: "benchmark",
  startGroups: 1,
  boatsPerGroup: 100,
  laps: 5,
  legLengthM: 3100,
  durationMinutes: 180,
  windSpeedKn: 12,
};

/** The course is laid, and course version 1 applied, this long before the first gun. */
const COURSE_SET_BEFORE_GUN_MS = 10 * 60_000;
/** Provisional results follow the last finish (or the time limit) after this long. */
const RESULTS_AFTER_MS = 2 * 60_000;
const CLUB_NAMES = [
  "Harbour Sailing Club",
  "Seaview Racing Club",
  "Windward Yacht Club",
  "Northshore Sailing Club",
  "Castle Point Yacht Club",
];
/** Handicap fleets, since every boat carries a time correction factor. */
const FLEET_NAMES = ["IRC 1", "IRC 2", "IRC 3", "Club Handicap", "Sportsboats", "Classics"];

export function simulateScenario(options: SimulateOptions = {}): Scenario {
  return simulate(options, false).scenario;
}

/**
 * The same race as `simulateScenario` with the same options (byte for byte), and what
 * each boat really did in it, recorded as it sailed: the truth analytics are tested against.
 */
export function simulateRace(options: SimulateOptions = {}): { scenario: Scenario; truth: RaceTruth } {
  return simulate(options, true) as { scenario: Scenario; truth: RaceTruth };
}

function simulate(options: SimulateOptions, recordTruth: boolean): { scenario: Scenario; truth: RaceTruth | null } {
  const o: ResolvedOptions = { ...DEFAULT_SIMULATE_OPTIONS, ...withoutUndefined(options) };
  checkOptions(o);
  const seed = o.seed;
  const ids = rngFor(seed, "ids");
  const race = rngFor(seed, "race");
  const names = rngFor(seed, "names");

  const clubId = uuidFrom(ids);
  const eventId = uuidFrom(ids);
  const raceId = uuidFrom(ids);
  const groupIds = Array.from({ length: o.startGroups }, () => uuidFrom(ids));
  const fleet = createFleet(rngFor(seed, "fleet"), ids, { startGroups: o.startGroups, boatsPerGroup: o.boatsPerGroup });

  const guns = groupIds.map((_, g) => o.gunMs + g * o.startGroupOffsetMinutes * 60_000);
  const firstGun = guns[0] as number;
  const lastGun = guns[guns.length - 1] as number;
  const capMs = o.durationMinutes * 60_000;
  const baseTwd = o.windDirectionDeg ?? race.int(0, 359);
  const baseTws = o.windSpeedKn ?? Math.round(race.range(9, 15) * 10) / 10;

  const frame = localFrame(o.courseCenter);
  const courseV1 = layCourse({
    layout: o.layout,
    laps: o.laps,
    legLengthM: o.legLengthM,
    windDeg: baseTwd,
    // Room for every boat on the line: about a boat length and a half each.
    startLineM: Math.max(150, 9 * o.boatsPerGroup),
    appliedFromMs: firstGun - COURSE_SET_BEFORE_GUN_MS,
  });
  const expectedS = estimateLeaderSeconds(courseV1, baseTws);

  const wind = simulateWind(rngFor(seed, "wind"), {
    startMs: courseV1.appliedFromMs,
    endMs: lastGun + capMs + 60_000,
    baseTwdDeg: baseTwd,
    baseTwsKn: baseTws,
    shiftNearMs: Math.max(lastGun + 3 * 60_000, firstGun + race.range(0.22, 0.35) * expectedS * 1000),
  });

  // The committee re-lays the windward mark a few minutes after the shift has settled.
  const courses: CourseGeometry[] = [courseV1];
  const changeAtMs = wind.shift.settledMs + race.int(3, 6) * 60_000;
  if (o.courseChange && o.laps >= 2 && changeAtMs < firstGun + capMs) {
    courses.push(moveWindwardMark(courseV1, baseTwd + wind.shift.deg, Math.round(changeAtMs / 1000) * 1000));
  }
  const totalAt = (atMs: number): number => {
    let total = courseV1.totalM;
    for (const c of courses) if (c.appliedFromMs <= atMs) total = c.totalM;
    return total;
  };

  const groups: StartGroup[] = [];
  const truthGroups: StartGroupTruth[] = [];
  const committee = { timesMs: wind.readingTimesMs, twdDeg: wind.readings.map((r) => r.twd) };
  let raceEndMs = firstGun;
  for (let g = 0; g < o.startGroups; g++) {
    const gunMs = guns[g] as number;
    const capEndMs = gunMs + capMs;
    const boats = fleet[g] as BoatTraits[];
    const readingTimesMs: number[] = [];
    for (let t = gunMs + race.int(10_000, 30_000); t <= capEndMs; t += race.int(10_000, 30_000)) readingTimesMs.push(t);

    const recorders = boats.map((boat) =>
      recordTruth ? new TruthRecorder(boat.entry.id, boat.entry.hasPhone !== false, gunMs, committee, frame, capMs / 1000 + 1) : undefined,
    );
    const runs: BoatRun[] = boats.map((boat, i) =>
      sailBoat(
        boat.entry.id,
        {
          gunMs,
          capEndMs,
          courses,
          wind: wind.field,
          frame,
          readingTimesMs,
          retireAtMs: boat.role === "retires" ? gunMs + Math.round(race.range(0.3, 0.6) * expectedS) * 1000 : null,
          recordsTrack: boat.entry.hasPhone !== false,
          speedFactor: boat.speedFactor * classSpeedFactor(g),
          skill: boat.skill,
          overEarlyReturn: o.overEarlyReturn,
          truth: recorders[i],
        },
        rngFor(seed, "boat", g, i),
        rngFor(seed, "gps", g, i),
      ),
    );

    // The group is over when every boat still racing has finished, or at the time limit.
    const stillRacing = runs.filter((r) => r.retiredMs === null);
    const groupEndMs = stillRacing.every((r) => r.finishMs !== null)
      ? Math.max(gunMs, ...stillRacing.map((r) => r.finishMs as number))
      : capEndMs;
    raceEndMs = Math.max(raceEndMs, groupEndMs);
    if (recordTruth) {
      truthGroups.push({ startGroupId: groupIds[g] as string, gunMs, boats: recorders.map((r) => (r as TruthRecorder).result()) });
    }
    // Keep one reading after the end, showing the final order.
    const lastReading = readingTimesMs.findIndex((t) => t >= groupEndMs);
    const liveTimes = lastReading < 0 ? readingTimesMs : readingTimesMs.slice(0, lastReading + 1);

    const ranked: RankedBoat[] = boats.map((boat, i) => {
      const run = runs[i] as BoatRun;
      return {
        entryId: boat.entry.id,
        approved: boat.entry.approved !== false,
        hasPhone: boat.entry.hasPhone !== false,
        tcf: boat.tcf,
        finishMs: run.finishMs,
        progressM: run.progressM,
      };
    });

    groups.push({
      id: groupIds[g] as string,
      name: FLEET_NAMES[g] ?? `Fleet ${g + 1}`,
      state: "Started",
      startTimeUtc: iso(gunMs),
      finishTimeUtc: null,
      entryIds: boats.map((b) => b.entry.id),
      courses: courses.map((c) => toCourseVersion(c, frame)),
      wind: [],
      liveOrder: liveOrderReadings(ranked, {
        gunMs,
        readingTimesMs: liveTimes,
        totalM: totalAt,
        courseSpeedMs: courseV1.totalM / expectedS,
      }),
      finishes: boats
        .map((boat, i) => ({ boat, run: runs[i] as BoatRun }))
        .filter(({ boat, run }) => boat.entry.hasPhone !== false && run.finishMs !== null)
        .sort((a, b) => (a.run.finishMs as number) - (b.run.finishMs as number))
        .map(({ boat, run }) => ({ entryId: boat.entry.id, finishTimeUtc: iso(run.finishMs as number) })),
      tracks: runs.map((r) => r.track).filter((t): t is Track => t !== null),
      results: provisionalResults(ranked, gunMs, groupEndMs + RESULTS_AFTER_MS),
    });
  }

  // One committee boat reads the wind for every group, until the last group is done.
  const readings = wind.readings.filter((_, i) => (wind.readingTimesMs[i] as number) <= raceEndMs + RESULTS_AFTER_MS);
  for (const group of groups) group.wind = readings.map((r) => ({ ...r }));

  const dayStart = Math.floor(firstGun / 86_400_000) * 86_400_000;
  const event: Event = {
    id: eventId,
    clubId,
    name: `${seasonOf(firstGun)} Series ${new Date(firstGun).getUTCFullYear()}`,
    startDate: iso(dayStart),
    endDate: iso(dayStart + 86_400_000),
    published: true,
    legacy: false,
    trackingShared: o.trackingShared,
    delaySeconds: o.delaySeconds,
    entries: fleet.flat().map((b) => b.entry),
    races: [{ id: raceId, raceNo: 1, name: "Race 1", isLive: o.isLive, startGroups: groups }],
  };
  const scenario: Scenario = {
    format: SCENARIO_FORMAT,
    clubs: [{ id: clubId, name: names.pick(CLUB_NAMES) }],
    clients: [],
    events: [event],
  };
  return { scenario, truth: recordTruth ? { raceId, groups: truthGroups } : null };
}

/**
 * The leader's time round the course: each leg at the polar VMG (beats and runs) or
 * straight at the polar speed (reaches), a little above average, plus ~20 s per rounding.
 */
export function estimateLeaderSeconds(course: CourseGeometry, twsKn: number): number {
  let seconds = 0;
  for (let k = 1; k < course.steps.length; k++) {
    const legM = (course.cumulativeM[k] as number) - (course.cumulativeM[k - 1] as number);
    const a = course.steps[k - 1]?.centre ?? { x: 0, y: 0 };
    const b = course.steps[k]?.centre ?? a;
    const off = Math.abs(angleDifferenceDegrees(course.windDeg, (Math.atan2(b.x - a.x, b.y - a.y) * 180) / Math.PI));
    const vmg = off <= 45 ? upwindVmgMs(twsKn) : off >= 135 ? downwindVmgMs(twsKn) : boatSpeedKn(off, twsKn) * KNOTS_TO_MS;
    seconds += legM / (vmg * 1.03) + 20;
  }
  return seconds;
}

/** Later groups are slower fleets, so they spread out like at a real regatta. */
function classSpeedFactor(group: number): number {
  return Math.max(0.8, 1 - 0.05 * group);
}

function checkOptions(o: ResolvedOptions): void {
  const positiveInt = (name: string, v: number): void => {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
  };
  positiveInt("startGroups", o.startGroups);
  positiveInt("boatsPerGroup", o.boatsPerGroup);
  positiveInt("laps", o.laps);
  if (!COURSE_LAYOUTS.includes(o.layout)) throw new RangeError(`layout must be one of ${COURSE_LAYOUTS.join(", ")}, got ${o.layout}`);
  if (!(o.legLengthM >= 500)) throw new RangeError(`legLengthM must be at least 500, got ${o.legLengthM}`);
  if (!(o.durationMinutes > 0)) throw new RangeError(`durationMinutes must be positive, got ${o.durationMinutes}`);
  if (!(o.startGroupOffsetMinutes >= 0)) throw new RangeError("startGroupOffsetMinutes must be >= 0");
  if (!Number.isInteger(o.delaySeconds) || o.delaySeconds < 0 || o.delaySeconds > 600) {
    throw new RangeError(`delaySeconds must be an integer 0-600, got ${o.delaySeconds}`);
  }
  if (!Number.isFinite(o.gunMs)) throw new RangeError("gunMs must be epoch milliseconds");
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function seasonOf(ms: number): string {
  const month = new Date(ms).getUTCMonth();
  return month < 2 || month === 11 ? "Winter" : month < 5 ? "Spring" : month < 8 ? "Summer" : "Autumn";
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
