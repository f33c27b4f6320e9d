// Analytics on real, noisy recordings we did not write (signalk-server's samples, see
// test/fixtures/signalk/README.md): imported with `race-api import`, read back over the
// REST track endpoint with a token, and replayed into the pure core (analytics-feed.ts).
// Every expectation is computed from the recordings: the yacht's own GPS course and wind
// instruments, the AIS vessels' own reported speed and course, the reports' timing.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PASSING_RADIUS_M } from "../../src/domain/analytics/passings.js";
import { STALE_AFTER_MS } from "../../src/domain/analytics/progress.js";
import { DEFAULT_MAX_SPEED_KN, speedBetweenKn } from "../../src/domain/analytics/kinematics.js";
import { CLEAR_SIDE_MARGIN_DEG, MIN_MANOEUVRE_SPEED_KN, MIN_TURN_DEG } from "../../src/domain/analytics/manoeuvres.js";
import { angleDifferenceDegrees, haversineDistanceM } from "../../src/domain/geo.js";
import { CAPTURE_AFTER_GUN_MS, CAPTURE_BEFORE_GUN_MS } from "../../src/domain/race-time.js";
import type { StartGroup } from "../../src/domain/scenario.js";
import { type Replay, readServedTracks, replayTrack, type ServedTrack, windInForce } from "../support/analytics-feed.js";
import { bearer } from "../support/api.js";
import { runMain } from "../support/cli.js";
import { useInProcessApi } from "../support/in-process.js";
import { RECORDED_IDS, recordedRaces, vesselEntryId } from "../support/recorded-race.js";
import { type RecordedFix, type TrueWindSample, trueFromApparent } from "../support/signalk-recordings.js";

const recorded = recordedRaces();
const event = recorded.scenario.events.find((e) => e.id === RECORDED_IDS.event)!;
const groups = event.races.map((race) => ({ raceId: race.id, group: race.startGroups[0]! }));
const plakaGroups = groups.filter(({ group }) => group.entryIds.includes(RECORDED_IDS.plakaEntry));
const aisGroup = groups.find(({ group }) => group.id === RECORDED_IDS.aavaGroup)!.group;

const api = useInProcessApi({ client: "overlay" });
/** Served tracks by start group, then entry. */
const served = new Map<string, Map<string, ServedTrack>>();
/** One replay per start group and entry, the first time a test asks. */
const replays = new Map<string, Replay>();

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), "race-api-recorded-")), "recorded.json");
  writeFileSync(file, JSON.stringify(recorded.scenario));
  const imported = await runMain(["import", file], { DATABASE_URL: api.db.url });
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  for (const { raceId, group } of groups) {
    served.set(group.id, await readServedTracks(api.fetch, api.token, raceId, group.id, gunOf(group)));
  }
});

function gunOf(group: StartGroup): number {
  return Date.parse(group.startTimeUtc!);
}

function servedTrack(group: StartGroup, entryId: string): ServedTrack {
  const track = served.get(group.id)?.get(entryId);
  if (track === undefined) throw new Error(`no served track for ${entryId} in ${group.name}`);
  return track;
}

function replayOf(group: StartGroup, entryId: string): Replay {
  const key = `${group.id}/${entryId}`;
  const cached = replays.get(key);
  if (cached !== undefined) return cached;
  const replay = replayTrack(servedTrack(group, entryId), { steps: group.courses![0]!.steps, gunMs: gunOf(group), wind: group.wind! });
  replays.set(key, replay);
  return replay;
}

function fixesOf(track: ServedTrack): RecordedFix[] {
  return track.t.map((tMs, i) => ({
    tMs,
    lat: track.lat[i]!,
    lon: track.lon[i]!,
    sogKn: track.sogKn[i] ?? null,
    cogDeg: track.cogDeg[i] ?? null,
  }));
}

const aisVessels = () =>
  recorded.aava.vessels.map((vessel) => ({ vessel, fixes: fixesOf(servedTrack(aisGroup, vesselEntryId(vessel.mmsi))) }));

describe("the recordings, decoded", () => {
  it("makes a fix of every valid GLL sentence and AIS position report, in time order", () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/signalk/${name}`, import.meta.url), "utf8").split("\n");
    const gll = fixture("plaka.nmea").filter((line) => line.startsWith("$GPGLL,") && line.split(",")[6] === "A");
    expect(recorded.plaka.fixes).toHaveLength(gll.length);
    const reports = fixture("aava.n2k").filter((line) => /^[^,]*,[^,]*,12903[89],/.test(line));
    expect(recorded.aava.vessels.reduce((n, v) => n + v.fixes.length, 0)).toBe(reports.length);
    for (const fixes of [recorded.plaka.fixes, ...recorded.aava.vessels.map((v) => v.fixes)]) {
      for (let i = 1; i < fixes.length; i++) expect(fixes[i]!.tMs).toBeGreaterThan(fixes[i - 1]!.tMs);
    }
  });

  it("computes the true wind from the apparent wind as the vector triangle gives it", () => {
    // Head to wind the boat's own speed only takes away; abeam at rest nothing changes.
    expect(trueFromApparent(0, 10, 6)).toEqual({ twaDeg: 0, twsKn: 4 });
    expect(trueFromApparent(-90, 10, 0).twaDeg).toBeCloseTo(-90, 9);
    // 3-4-5: apparent 45 degrees off the bow at 5 * sqrt(2) kn, boat 2 kn: true wind 3 ahead, 5 abeam.
    const wind = trueFromApparent(45, 5 * Math.SQRT2, 2);
    expect(wind.twsKn).toBeCloseTo(Math.hypot(3, 5), 9);
    expect(wind.twaDeg).toBeCloseTo((Math.atan2(5, 3) * 180) / Math.PI, 9);
  });
});

describe("the recordings, imported and served", () => {
  it("serves back every recorded fix of each start group's capture window, as recorded", () => {
    for (const { group } of groups) {
      const gun = gunOf(group);
      for (const track of group.tracks!) {
        const inWindow = track.t.flatMap((t, i) => (t >= gun - CAPTURE_BEFORE_GUN_MS && t < gun + CAPTURE_AFTER_GUN_MS ? [i] : []));
        const { t, lat, lon, sogKn, cogDeg } = servedTrack(group, track.entryId);
        expect({ t, lat, lon, sogKn, cogDeg }).toEqual({
          t: inWindow.map((i) => track.t[i]),
          lat: inWindow.map((i) => track.lat[i]),
          lon: inWindow.map((i) => track.lon[i]),
          sogKn: inWindow.map((i) => track.sogKn![i]),
          cogDeg: inWindow.map((i) => track.cogDeg![i]),
        });
      }
    }
    // Plaka's 4 hours in races of one capture window each, every fix in at least one.
    const plakaServed = new Set(plakaGroups.flatMap(({ group }) => servedTrack(group, RECORDED_IDS.plakaEntry).t));
    expect(plakaServed.size).toBe(recorded.plaka.fixes.length);
  });

  it("passes each step of a course laid on the boat's own turning points where its track does", () => {
    const sailed = [
      ...plakaGroups.map(({ group }) => ({ group, entryId: RECORDED_IDS.plakaEntry })),
      { group: aisGroup, entryId: vesselEntryId(recorded.aava.ownMmsi) },
    ];
    for (const { group, entryId } of sailed) {
      const steps = group.courses![0]!.steps;
      const fixes = fixesOf(servedTrack(group, entryId));
      const passings = replayOf(group, entryId).analytics.passings;
      expect(
        passings.map((p) => p.stepKind),
        group.name,
      ).toEqual(steps.map((s) => s.kind));
      let previousMs = gunOf(group);
      steps.forEach((step, i) => {
        const atMs = passings[i]!.atMs;
        if (step.kind === "mark") {
          // The contract: the first fix within 50 m, after the step before was passed.
          const first = fixes.find((f) => f.tMs >= previousMs && haversineDistanceM(f, step.marks[0]!) <= PASSING_RADIUS_M);
          expect(atMs, `${group.name} ${step.label}`).toBe(first?.tMs);
        } else {
          // A line: crossed between the fix before the boat reached its middle and the fix after it
          // left (an AIS set may report one position twice).
          const middle = { lat: (step.marks[0]!.lat + step.marks[1]!.lat) / 2, lon: (step.marks[0]!.lon + step.marks[1]!.lon) / 2 };
          const onLine = fixes.flatMap((f, j) => (haversineDistanceM(f, middle) < ON_LINE_M ? [j] : []));
          expect(onLine.length, `${group.name} ${step.label}`).toBeGreaterThan(0);
          expect(atMs, `${group.name} ${step.label}`).toBeGreaterThanOrEqual(fixes[onLine[0]! - 1]!.tMs);
          expect(atMs, `${group.name} ${step.label}`).toBeLessThanOrEqual(fixes[onLine.at(-1)! + 1]!.tMs);
        }
        previousMs = atMs;
      });
    }
  });
});

describe("manoeuvres from real, noisy tracks", () => {
  it("counts none for the vessels at anchor or moored, whose GPS wanders all the same", () => {
    const still = aisVessels().filter(({ fixes }) => fixes.every((f) => f.sogKn !== null && f.sogKn <= 0.5));
    const wandering = still.filter(({ fixes }) => pathLengthM(fixes) > 0);
    // What makes this a check: reported still, yet their positions move.
    expect(wandering.length).toBeGreaterThan(0);
    for (const { vessel } of still)
      expect(replayOf(aisGroup, vesselEntryId(vessel.mmsi)).analytics.manoeuvres, vessel.name ?? `${vessel.mmsi}`).toEqual([]);
    // Plaka stopped too (its own GPS says 0.0 kn for minutes), and its position wandered.
    const stops = plakaGroups.flatMap(({ group }) => {
      const fixes = fixesOf(servedTrack(group, RECORDED_IDS.plakaEntry));
      return runs(fixes, (f) => f.sogKn !== null && f.sogKn <= 0.5, 120_000).map((run) => ({ group, run }));
    });
    expect(stops.filter(({ run }) => pathLengthM(run) > 0).length).toBeGreaterThan(0);
    for (const { group, run } of stops) {
      const inside = replayOf(group, RECORDED_IDS.plakaEntry).analytics.manoeuvres.filter(
        (m) => m.atMs >= run[0]!.tMs && m.atMs <= run.at(-1)!.tMs,
      );
      expect(inside).toEqual([]);
    }
  });

  it("counts none on long straight stretches, where the instruments' wind changes sides again and again", () => {
    let instrumentSideChanges = 0;
    for (const { group } of plakaGroups) {
      const fixes = fixesOf(servedTrack(group, RECORDED_IDS.plakaEntry));
      const manoeuvres = replayOf(group, RECORDED_IDS.plakaEntry).analytics.manoeuvres;
      for (const stretch of steadyStretches(fixes, STRAIGHT_MIN_MS)) {
        const [fromMs, toMs] = [stretch[0]!.tMs, stretch.at(-1)!.tMs];
        instrumentSideChanges += sideChanges(recorded.plaka.trueWind.filter((w) => w.tMs >= fromMs && w.tMs <= toMs)).length;
        expect(manoeuvres.filter((m) => m.atMs > fromMs + STRAIGHT_MARGIN_MS && m.atMs < toMs - STRAIGHT_MARGIN_MS)).toEqual([]);
      }
    }
    // Motoring close to the wind, the yacht's instruments put it on one side and the other.
    expect(instrumentSideChanges).toBeGreaterThan(0);
    // Ships holding their course: every reported course within 15 degrees of the first.
    const holding = aisVessels().filter(({ fixes }) => fixes.length > 1 && fixes.some((f) => (f.sogKn ?? 0) > 0.5) && straight(fixes));
    expect(holding.length).toBeGreaterThan(0);
    for (const { vessel } of holding)
      expect(replayOf(aisGroup, vesselEntryId(vessel.mmsi)).analytics.manoeuvres, vessel.name ?? `${vessel.mmsi}`).toEqual([]);
  });

  it("counts only the tacks and gybes Plaka's own instruments show, and every one the committee's wind makes clear", () => {
    const wind = recorded.plaka.trueWind;
    let turnsAcrossTheWind = 0;
    for (const { group } of plakaGroups) {
      const fixes = fixesOf(servedTrack(group, RECORDED_IDS.plakaEntry));
      const counted = replayOf(group, RECORDED_IDS.plakaEntry).analytics.manoeuvres.filter((m) => m.kind !== "penaltyTurn");
      const instrumentChanges = sideChanges(wind.filter((w) => w.tMs >= fixes[0]!.tMs && w.tMs <= fixes.at(-1)!.tMs));
      // Each counted one: the instruments saw the wind change sides within the tolerance, across a real turn of the course.
      for (const m of counted) {
        const change = instrumentChanges.find((c) => Math.abs(c.atMs - m.atMs) <= MATCH_TOLERANCE_MS);
        expect(change, `${m.kind} at ${new Date(m.atMs).toISOString()}`).toBeDefined();
        expect(change!.bow ? "tack" : "gybe").toBe(m.kind);
        expect(courseTurnDeg(fixes, m.atMs)).toBeGreaterThanOrEqual(MIN_TURN_DEG);
      }
      // Each turn across the wind the instruments show between two steady courses is counted, unless
      // the committee's wind (which defines the true wind angle) puts a course in the dead zone.
      const steady = steadyStretches(fixes, STEADY_MIN_MS);
      for (const change of instrumentChanges) {
        const courses = betweenSteadyCourses(steady, change.atMs);
        if (courses === null) continue;
        turnsAcrossTheWind++;
        const found = counted.some((m) => Math.abs(m.atMs - change.atMs) <= MATCH_TOLERANCE_MS);
        expect(found || !clearUnderCommittee(courses, group), new Date(change.atMs).toISOString()).toBe(true);
      }
    }
    expect(turnsAcrossTheWind).toBeGreaterThan(0);
  });
});

describe("jumps", () => {
  it("leaves out exactly the fixes the recordings put beyond the maximum speed from both neighbours: none", () => {
    const tracks = [
      ...plakaGroups.map(({ group }) => ({ group, entryId: RECORDED_IDS.plakaEntry })),
      ...recorded.aava.vessels.map((v) => ({ group: aisGroup, entryId: vesselEntryId(v.mmsi) })),
    ];
    for (const { group, entryId } of tracks) {
      const fixes = fixesOf(servedTrack(group, entryId));
      const beyondReach = fixes.filter(
        (f, i) =>
          (i === 0 || speedBetweenKn(fixes[i - 1]!, f) > DEFAULT_MAX_SPEED_KN) &&
          (i === fixes.length - 1 || speedBetweenKn(f, fixes[i + 1]!) > DEFAULT_MAX_SPEED_KN) &&
          fixes.length > 1,
      ).length;
      const replay = replayOf(group, entryId);
      expect(replay.analytics.snapshot(fixes.at(-1)!.tMs, windInForce(group.wind!, fixes.at(-1)!.tMs)).ignoredFixes).toBe(beyondReach);
    }
  });

  it("(injected, not recorded) leaves out wild fixes put into Plaka's real track, counts them, and sails on as without them", () => {
    const group = plakaGroups[0]!.group;
    const track = servedTrack(group, RECORDED_IDS.plakaEntry);
    // Every 300th fix moved 5 km north: a phone's glitch, in the middle of real GPS noise.
    const wild = new Set(track.t.flatMap((_, i) => (i > 0 && i % 300 === 0 && i < track.t.length - 1 ? [i] : [])));
    const withJumps = { ...track, lat: track.lat.map((lat, i) => (wild.has(i) ? lat + 5000 / 111_195 : lat)) };
    const without = {
      t: track.t.filter((_, i) => !wild.has(i)),
      lat: track.lat.filter((_, i) => !wild.has(i)),
      lon: track.lon.filter((_, i) => !wild.has(i)),
    };
    const options = { steps: group.courses![0]!.steps, gunMs: gunOf(group), wind: group.wind! };
    const jumped = replayTrack(withJumps, options).analytics;
    const clean = replayTrack(without, options).analytics;
    const lastMs = track.t.at(-1)!;
    expect(jumped.snapshot(lastMs, windInForce(group.wind!, lastMs)).ignoredFixes).toBe(wild.size);
    expect(jumped.manoeuvres).toEqual(clean.manoeuvres);
    expect(jumped.passings).toEqual(clean.passings);
  });
});

describe("stale across real coverage gaps", () => {
  it("flags an AIS vessel stale inside every gap of over 30 s between its reports, and not up to 30 s into it", () => {
    let gaps = 0;
    for (const { vessel, fixes } of aisVessels()) {
      const inside: number[] = [];
      const early: number[] = [];
      for (let i = 1; i < fixes.length; i++) {
        const [fromMs, toMs] = [fixes[i - 1]!.tMs, fixes[i]!.tMs];
        if (toMs - fromMs > STALE_AFTER_MS + 2) inside.push(fromMs + STALE_AFTER_MS + (toMs - fromMs - STALE_AFTER_MS) / 2);
        early.push(fromMs + Math.min(STALE_AFTER_MS, (toMs - fromMs) / 2));
      }
      gaps += inside.length;
      const moments = [...inside.map((atMs) => ({ atMs, stale: true })), ...early.map((atMs) => ({ atMs, stale: false }))].sort(
        (a, b) => a.atMs - b.atMs,
      );
      const track = servedTrack(aisGroup, vesselEntryId(vessel.mmsi));
      const { snapshots } = replayTrack(track, {
        steps: aisGroup.courses![0]!.steps,
        gunMs: gunOf(aisGroup),
        wind: aisGroup.wind!,
        snapshotsAt: moments.map((m) => m.atMs),
      });
      expect(
        snapshots.map((s) => s.stale),
        vessel.name ?? `${vessel.mmsi}`,
      ).toEqual(moments.map((m) => m.stale));
    }
    // The recording has them: class B sets report every 30 s and miss some, moored ships every 3 minutes.
    expect(gaps).toBeGreaterThan(0);
  });
});

/**
 * The instruments' and the analytics' moment the wind crossed: MWV's true wind comes every
 * 4 s (2 s either way), the analytics interpolate between headings over 6 s chords of fixes
 * 2-3 s apart (3 s), and the committee's 5-minute mean direction differs from the
 * instruments' of the moment by up to 10 degrees, which a yacht bearing away at about a
 * degree a second crosses 10 s apart.
 */
const MATCH_TOLERANCE_MS = 15_000;
/** A slow turn (a yacht bearing away at 2 kn) takes a minute or more. */
const TURN_WINDOW_MS = 60_000;
/** The line's fix lies on it; this far from its middle, to a millimetre's rounding, is on it. */
const ON_LINE_M = 0.01;
/** A straight stretch: at least this long with every course within STRAIGHT_DEG of its first, at a speed where courses mean something. */
const STRAIGHT_MIN_MS = 120_000;
const STRAIGHT_DEG = 15;
/** A course before or after a turn: held that long (the analytics want 6 s of steady headings, each over 6 s). */
const STEADY_MIN_MS = 20_000;
/** A turn just before or after a stretch shows at its ends (heading chords reach 6 s into it, the turn's steady ends a few more). */
const STRAIGHT_MARGIN_MS = 20_000;
/** The instruments' side before and after a change: the median angle over this long either side, so one sample's flicker is no change. */
const SIDE_WINDOW_MS = 20_000;

function pathLengthM(fixes: readonly RecordedFix[]): number {
  return fixes.slice(1).reduce((sum, f, i) => sum + haversineDistanceM(fixes[i]!, f), 0);
}

/** Maximal runs of consecutive fixes that all satisfy `keep`, at least `minMs` long. */
function runs(fixes: readonly RecordedFix[], keep: (f: RecordedFix) => boolean, minMs: number): RecordedFix[][] {
  const found: RecordedFix[][] = [];
  let current: RecordedFix[] = [];
  for (const f of [...fixes, null]) {
    if (f !== null && keep(f)) current.push(f);
    else {
      if (current.length > 1 && current.at(-1)!.tMs - current[0]!.tMs >= minMs) found.push(current);
      current = [];
    }
  }
  return found;
}

function straight(fixes: readonly RecordedFix[]): boolean {
  const first = fixes[0]!.cogDeg;
  return first !== null && fixes.every((f) => f.cogDeg !== null && Math.abs(angleDifferenceDegrees(first, f.cogDeg)) <= STRAIGHT_DEG);
}

/** Stretches of the yacht's own GPS course held within 15 degrees of their first for `minMs` or more, at speed. */
function steadyStretches(fixes: readonly RecordedFix[], minMs: number): RecordedFix[][] {
  const stretches: RecordedFix[][] = [];
  let current: RecordedFix[] = [];
  const close = () => {
    if (current.length > 1 && current.at(-1)!.tMs - current[0]!.tMs >= minMs) stretches.push(current);
  };
  for (const f of fixes) {
    const atSpeed = f.sogKn !== null && f.sogKn >= MIN_MANOEUVRE_SPEED_KN && f.cogDeg !== null;
    if (atSpeed && (current.length === 0 || straight([current[0]!, f]))) current.push(f);
    else {
      close();
      current = atSpeed ? [f] : [];
    }
  }
  close();
  return stretches;
}

interface SideChange {
  atMs: number;
  /** Through the bow (a tack) rather than the stern (a gybe). */
  bow: boolean;
}

/**
 * Where the instruments' true wind angle changes sign between two samples and stays
 * changed: the median angle of the 20 s before and of the 20 s after lie on two sides.
 */
function sideChanges(samples: readonly TrueWindSample[]): SideChange[] {
  const changes: SideChange[] = [];
  for (let i = 1; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]!, samples[i]!];
    if (Math.sign(a.twaDeg) === Math.sign(b.twaDeg)) continue;
    const before = median(samples.filter((s) => s.tMs <= a.tMs && s.tMs > a.tMs - SIDE_WINDOW_MS).map((s) => s.twaDeg));
    const after = median(samples.filter((s) => s.tMs >= b.tMs && s.tMs < b.tMs + SIDE_WINDOW_MS).map((s) => s.twaDeg));
    if (Math.sign(before) === Math.sign(after)) continue;
    changes.push({ atMs: (a.tMs + b.tMs) / 2, bow: Math.abs(before) + Math.abs(after) < 180 });
  }
  return changes;
}

/** The most the yacht's GPS course (VTG) turned across a moment: from a fix of the minute before to one of the minute after. */
function courseTurnDeg(fixes: readonly RecordedFix[], atMs: number): number {
  const courses = (fromMs: number, toMs: number) =>
    fixes.filter((f) => f.tMs >= fromMs && f.tMs <= toMs && f.cogDeg !== null).map((f) => f.cogDeg!);
  const after = courses(atMs, atMs + TURN_WINDOW_MS);
  return Math.max(0, ...courses(atMs - TURN_WINDOW_MS, atMs).flatMap((a) => after.map((b) => Math.abs(angleDifferenceDegrees(a, b)))));
}

interface CourseAt {
  tMs: number;
  cogDeg: number;
}

/**
 * The courses either side of a change, when it lies between two steady ones: the recorded
 * GPS course held within 15 degrees for 20 s at 1.5 kn or more (its median taken), the
 * one ending and the other starting within a minute of the change (the instruments read
 * the wind off the bow, which turns a little before the course over the ground shows it,
 * hence the tolerance), at least 30 degrees apart. A yacht bearing away from a standstill
 * head to wind has no course before: no tack or gybe.
 */
function betweenSteadyCourses(stretches: readonly RecordedFix[][], atMs: number): [CourseAt, CourseAt] | null {
  const before = stretches.findLast((s) => s.at(-1)!.tMs <= atMs + MATCH_TOLERANCE_MS && s.at(-1)!.tMs >= atMs - TURN_WINDOW_MS);
  if (before === undefined) return null;
  const after = stretches.find((s) => s[0]!.tMs > before.at(-1)!.tMs && s[0]!.tMs <= atMs + TURN_WINDOW_MS);
  if (after === undefined) return null;
  const courses: [CourseAt, CourseAt] = [
    { tMs: before.at(-1)!.tMs, cogDeg: medianCourse(before) },
    { tMs: after[0]!.tMs, cogDeg: medianCourse(after) },
  ];
  return Math.abs(angleDifferenceDegrees(courses[0].cogDeg, courses[1].cogDeg)) >= MIN_TURN_DEG ? courses : null;
}

/** Whether the committee's wind puts both courses clearly on opposite sides (|TWA| within [15, 165]), as the contract needs. */
function clearUnderCommittee(courses: [CourseAt, CourseAt], group: StartGroup): boolean {
  const [before, after] = courses.map((c) => angleDifferenceDegrees(c.cogDeg, windInForce(group.wind!, c.tMs))) as [number, number];
  const clearSide = (deg: number) => Math.abs(deg) >= CLEAR_SIDE_MARGIN_DEG && Math.abs(deg) <= 180 - CLEAR_SIDE_MARGIN_DEG;
  return clearSide(before) && clearSide(after) && Math.sign(before) !== Math.sign(after);
}

/** A stretch's course: its courses all lie within 15 degrees of its first, so their median, unwrapped around it. */
function medianCourse(stretch: readonly RecordedFix[]): number {
  const first = stretch[0]!.cogDeg!;
  return (first + median(stretch.map((f) => angleDifferenceDegrees(first, f.cogDeg!))) + 360) % 360;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe("the analytics endpoints on the recordings", () => {
  /** Every manoeuvre the endpoint pages out for a group, from its window's opening to its close. */
  async function servedManoeuvres(raceId: string, group: StartGroup) {
    const found: { entryId: string; kind: string; atUtc: string; lossM: number | null }[] = [];
    let since: string | null = new Date(gunOf(group) - CAPTURE_BEFORE_GUN_MS).toISOString();
    while (since !== null) {
      const query = new URLSearchParams({ startGroupId: group.id, since });
      const response = await api.fetch(`/api/v1/races/${raceId}/analytics/manoeuvres?${query}`, { headers: bearer(api.token) });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { manoeuvres: typeof found; nextSince: string | null };
      found.push(...page.manoeuvres);
      since = page.nextSince;
    }
    return found;
  }

  it("answer what the core makes of the served tracks: the same manoeuvres, each boat's jumps none", async () => {
    let compared = 0;
    for (const { raceId, group } of groups) {
      // The service judges every fix under the reading in force at it; the replays do too once the first reading applies.
      const firstReadingMs = Date.parse(group.wind![0]!.measuredAtUtc);
      const expected = group.entryIds
        .filter((entryId) => served.get(group.id)?.has(entryId))
        .flatMap((entryId) =>
          replayOf(group, entryId)
            .analytics.manoeuvres.filter((m) => m.atMs > firstReadingMs + 60_000)
            .map((m) => ({ entryId, kind: m.kind, atUtc: new Date(Math.floor(m.atMs)).toISOString() })),
        );
      const answered = (await servedManoeuvres(raceId, group))
        .filter((m) => Date.parse(m.atUtc) > firstReadingMs + 60_000)
        .map(({ entryId, kind, atUtc }) => ({ entryId, kind, atUtc }));
      const byTime = (a: { atUtc: string; entryId: string }, b: { atUtc: string; entryId: string }) =>
        a.atUtc.localeCompare(b.atUtc) || a.entryId.localeCompare(b.entryId);
      expect(answered.sort(byTime), group.name).toEqual(expected.sort(byTime));
      compared += expected.length;

      const response = await api.fetch(`/api/v1/races/${raceId}/analytics?startGroupId=${group.id}`, { headers: bearer(api.token) });
      const analytics = (await response.json()) as { boats: { entryId: string; ignoredFixes: number }[] };
      expect(analytics.boats.length).toBe(served.get(group.id)!.size);
      for (const boat of analytics.boats) expect(boat.ignoredFixes).toBe(0);
    }
    expect(compared).toBeGreaterThan(0);
  });
});
