import { describe, expect, it } from "vitest";
import { angleDifferenceDegrees, destinationPoint, haversineDistanceM, initialBearingDeg, type LatLon } from "../../src/domain/geo.js";
import type { CourseVersionData, DetectionInput, LiveOrderData, PassingData, WindData } from "../../src/domain/detection-input.js";
import { GAIN_BUCKET_MS, detectFacts, detectMarkRoundings } from "../../src/insights/detect.js";
import type { BoatRef, Fact } from "../../src/domain/facts.js";
import { factId } from "../../src/insights/fact-id.js";
import { detectionInputFromScenario, scenarioPassings } from "../../src/insights/scenario-input.js";
import { simulateRace, simulateScenario } from "../../src/sim/index.js";
import { BoatAnalytics } from "../../src/domain/analytics/boat-analytics.js";
import type { StepPassing } from "../../src/domain/analytics/passings.js";
import { captureWindow, inCaptureWindow } from "../../src/domain/race-time.js";
import type { StartGroup } from "../../src/domain/scenario.js";

// 10:00:00Z, on a 5-minute bucket boundary.
const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);
const S = 1000;
const MIN = 60_000;
const RACE = "race-1";
const GROUP = "group-1";
const BOAT_IDS = ["a", "b", "c", "d", "e", "f", "g", "h"] as const;
const boats = new Map<string, BoatRef>(
  BOAT_IDS.map((id, i) => [id, { entryId: id, sailNumber: `GBR ${i + 1}`, boatName: `Boat ${id.toUpperCase()}` }]),
);

const MARK: LatLon = { lat: 50.77, lon: -1.3 };
const far = (from: LatLon, bearing: number) => destinationPoint(from, bearing, 400);
const at = (from: LatLon, distanceM: number, bearing = 0) => destinationPoint(from, bearing, distanceM);

/** A detection over (T0, T0 + 5 min] with nothing in it, overridden by `parts`. */
function input(parts: Partial<DetectionInput> = {}): DetectionInput {
  return {
    raceId: RACE,
    startGroupId: GROUP,
    startGroupName: "IRC 1",
    fromMs: T0,
    toMs: T0 + 5 * MIN,
    boats,
    liveOrders: [],
    passings: [],
    courses: [],
    finishes: [],
    wind: [],
    ...parts,
  };
}

function order(asOfMs: number, ranks: Record<string, number | null>): LiveOrderData {
  return { asOfMs, ranks: new Map(Object.entries(ranks)) };
}

/** Parallel arrays, ascending by `t` (epoch ms). */
interface TrackData {
  t: number[];
  lat: number[];
  lon: number[];
}

/**
 * The step passings the analytics find in `tracks` known at `knownAtMs`, by the pure core
 * as the scenario path feeds it (scenario-input.ts): each boat's fixes of its capture
 * window (from gun - 5 min to its finish in `finishMs`), none without a gun.
 */
function passingsOf(
  tracks: ReadonlyMap<string, TrackData>,
  courses: readonly CourseVersionData[],
  gunMs: number | null,
  knownAtMs: number,
  finishMs: ReadonlyMap<string, number> = new Map(),
): PassingData[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const group: StartGroup = {
    id: GROUP,
    name: "IRC 1",
    state: "Started",
    startTimeUtc: gunMs === null ? null : iso(gunMs),
    entryIds: [...tracks.keys()],
    courses: courses.map((c, i) => ({ version: i + 1, appliedFromUtc: iso(c.appliedFromMs), steps: c.steps })),
    finishes: [...finishMs].map(([entryId, ms]) => ({ entryId, finishTimeUtc: iso(ms) })),
    tracks: [...tracks].map(([entryId, tr]) => ({ entryId, t: [...tr.t], lat: [...tr.lat], lon: [...tr.lon] })),
  };
  return scenarioPassings(group, knownAtMs);
}

function track(samples: [number, LatLon][]): TrackData {
  return { t: samples.map(([t]) => t), lat: samples.map(([, p]) => p.lat), lon: samples.map(([, p]) => p.lon) };
}

// A windward-leeward course around MARK: start line 1500 m below it, gate 1000 m below, finish line 1200 m below.
const START = at(MARK, 1500, 180);
const GATE = at(MARK, 1000, 180);
const PORT = at(GATE, 40, 270);
const STBD = at(GATE, 40, 90);
const FINISH = at(MARK, 1200, 180);

/** Start, Windward 1, Leeward gate (marks `gateHalfWidthM` either side of GATE), Windward 2, Finish. */
function raceCourse(appliedFromMs: number, gateHalfWidthM = 40, windward: LatLon = MARK): CourseVersionData {
  const line = (kind: "start" | "finish", label: string, centre: LatLon, keys: [string, string]) => ({
    kind,
    label,
    marks: [
      { key: keys[0], ...at(centre, 100, 270) },
      { key: keys[1], ...at(centre, 100, 90) },
    ],
  });
  const windwardStep = (label: string) => ({ kind: "mark" as const, label, marks: [{ key: "windward", ...windward }] });
  return {
    appliedFromMs,
    steps: [
      line("start", "Start", START, ["pin", "committee"]),
      windwardStep("Windward 1"),
      {
        kind: "gate",
        label: "Leeward gate",
        marks: [
          { key: "gate-port", ...at(GATE, gateHalfWidthM, 270) },
          { key: "gate-stbd", ...at(GATE, gateHalfWidthM, 90) },
        ],
      },
      windwardStep("Windward 2"),
      line("finish", "Finish", FINISH, ["finish-pin", "finish-committee"]),
    ],
  };
}

/** Fixes every second from `startMs`, sailing straight from waypoint to waypoint at 5 m/s (about 10 knots). */
function sail(startMs: number, waypoints: LatLon[]): TrackData {
  const out: TrackData = { t: [], lat: [], lon: [] };
  let [here, ...rest] = waypoints;
  let t = startMs;
  for (const next of rest) {
    const bearing = initialBearingDeg(here!, next);
    const legM = haversineDistanceM(here!, next);
    for (let doneM = 0; doneM < legM; doneM += 5, t += S) push(out, t, destinationPoint(here!, bearing, doneM));
    here = next;
  }
  push(out, t, here!);
  return out;
}

function push(track: TrackData, t: number, p: LatLon): void {
  track.t.push(t);
  track.lat.push(p.lat);
  track.lon.push(p.lon);
}

/** The track's fixes with fromMs <= t <= toMs, as a new track. */
function slice(track: TrackData, fromMs: number, toMs = Number.POSITIVE_INFINITY): TrackData {
  const out: TrackData = { t: [], lat: [], lon: [] };
  for (let k = 0; k < track.t.length; k++) {
    if (track.t[k]! >= fromMs && track.t[k]! <= toMs) push(out, track.t[k]!, { lat: track.lat[k]!, lon: track.lon[k]! });
  }
  return out;
}

/** The time of the track's first fix after `afterMs` within 50 m of `mark`. */
function firstInside(track: TrackData, mark: LatLon, afterMs: number): number {
  for (let k = 0; k < track.t.length; k++) {
    if (track.t[k]! > afterMs && haversineDistanceM(mark, { lat: track.lat[k]!, lon: track.lon[k]! }) <= 50) return track.t[k]!;
  }
  throw new Error("never within 50 m");
}

const ofKind = (facts: Fact[], kind: Fact["kind"]) => facts.filter((f) => f.kind === kind);
const boatsOf = (f: Fact) => f.boats.map((b) => b.entryId);

describe("leadChange", () => {
  it("reports a new leader against the baseline reading, boats [new, previous], at the reading's time", () => {
    const facts = detectFacts(
      input({
        liveOrders: [
          order(T0 - 20 * S, { a: 1, b: 2, c: 3 }),
          order(T0 + 20 * S, { a: 1, b: 2, c: 3 }),
          order(T0 + 40 * S, { b: 1, a: 2, c: 3 }),
        ],
      }),
    );
    expect(facts).toHaveLength(1);
    const fact = facts[0]!;
    expect(fact).toMatchObject({
      kind: "leadChange",
      atMs: T0 + 40 * S,
      rank: null,
      placesGained: null,
      markLabel: null,
      startGroupId: GROUP,
      startGroupName: "IRC 1",
    });
    expect(fact.boats).toEqual([boats.get("b"), boats.get("a")]);
    expect(fact.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "leadChange", entryIds: ["b", "a"], atMs: T0 + 40 * S }));
  });

  it("reports a change between the baseline and the first reading of the window", () => {
    const facts = detectFacts(input({ liveOrders: [order(T0, { a: 1, b: 2 }), order(T0 + 10 * S, { b: 1, a: 2 })] }));
    expect(ofKind(facts, "leadChange").map(boatsOf)).toEqual([["b", "a"]]);
  });

  it("leaves a change at exactly fromMs to the previous window, and one after toMs to a later one", () => {
    const facts = detectFacts(
      input({ liveOrders: [order(T0 - 10 * S, { a: 1, b: 2 }), order(T0, { b: 1, a: 2 }), order(T0 + 5 * MIN + 1, { a: 1, b: 2 })] }),
    );
    expect(facts).toEqual([]);
  });

  it("does not count a tie forming or resolving at the top as a change", () => {
    const facts = detectFacts(
      input({
        liveOrders: [
          order(T0 - 10 * S, { a: 1, b: 2 }),
          order(T0 + 10 * S, { a: 1, b: 1 }),
          order(T0 + 20 * S, { b: 1, a: 2 }),
          order(T0 + 30 * S, { b: 1, a: 2 }),
        ],
      }),
    );
    expect(facts).toEqual([]);
  });

  it("compares across a reading that ranks nobody first", () => {
    const facts = detectFacts(
      input({
        liveOrders: [order(T0 - 10 * S, { a: 1, b: 2 }), order(T0 + 10 * S, { a: null, b: null }), order(T0 + 20 * S, { b: 1, a: 2 })],
      }),
    );
    expect(ofKind(facts, "leadChange").map((f) => [f.atMs, ...boatsOf(f)])).toEqual([[T0 + 20 * S, "b", "a"]]);
  });
});

describe("markRounding", () => {
  // The boat's race: from 100 m below the start line 10 s before the gun, across it, round
  // the windward mark, through the gate, round the windward mark again, across the finish.
  const G = T0;
  const raceTrack = (startMs = G - 10 * S, gate: LatLon = GATE): TrackData =>
    sail(startMs, [at(START, 100, 180), at(MARK, 20, 90), gate, at(MARK, 20, 90), at(FINISH, 60, 180)]);
  type Tracks = { tracks?: Map<string, TrackData>; gunMs?: number | null; finishMs?: Map<string, number>; knownAtMs?: number };
  /** Detection over (G, G + 30 min] of the passings the analytics find in `tracks`, known at `knownAtMs` (default: toMs). */
  const detect = ({ tracks = new Map(), gunMs = G, finishMs, knownAtMs, ...parts }: Partial<DetectionInput> & Tracks) => {
    const base = input({ fromMs: G, toMs: G + 30 * MIN, courses: [raceCourse(G - 10 * MIN)], ...parts });
    return detectFacts({ ...base, passings: passingsOf(tracks, base.courses, gunMs, knownAtMs ?? base.toMs, finishMs) });
  };
  const roundingsOf = (facts: Fact[]) => ofKind(facts, "markRounding").map((f) => [...boatsOf(f), f.atMs, f.markLabel]);

  it("reports each mark and gate passed, at its first fix inside 50 m, in the course's order; start and finish are no roundings", () => {
    const tr = raceTrack();
    const facts = detect({ tracks: new Map([["a", tr]]) });
    const lap1 = firstInside(tr, MARK, G);
    const gate = Math.min(firstInside(tr, PORT, lap1), firstInside(tr, STBD, lap1));
    const lap2 = firstInside(tr, MARK, gate + 2 * MIN);
    expect(roundingsOf(facts)).toEqual([
      ["a", lap2, "Windward 2"],
      ["a", gate, "Leeward gate"],
      ["a", lap1, "Windward 1"],
    ]);
    expect(facts[2]!.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "markRounding", entryIds: ["a"], atMs: lap1 }));
  });

  it("counts a gate crossed between its marks at the crossing, cut to the millisecond", () => {
    // Straight through the middle of the gate, more than 50 m from either mark: the crossing is the passing.
    const wide = raceCourse(G - 10 * MIN, 120);
    const tr = raceTrack();
    const facts = detect({ courses: [wide], tracks: new Map([["a", tr]]) });
    const gate = ofKind(facts, "markRounding").find((f) => f.markLabel === "Leeward gate")!;
    let i = 1;
    while (!(tr.lat[i]! < GATE.lat && tr.lat[i - 1]! >= GATE.lat)) i++;
    expect(gate.atMs).toBeGreaterThan(tr.t[i - 1]!);
    expect(gate.atMs).toBeLessThanOrEqual(tr.t[i]!);
    expect(Number.isInteger(gate.atMs)).toBe(true);
  });

  it("needs the boat to have started: a track that joins mid-race, or crossed the line only before the gun, rounds nothing", () => {
    const tr = raceTrack();
    const joinsLate = slice(tr, G + 60 * S);
    expect(roundingsOf(detect({ tracks: new Map([["a", joinsLate]]) }))).toEqual([]);
    // The gun a minute after the crossing: over early, never back below the line.
    expect(roundingsOf(detect({ gunMs: G + 70 * S, tracks: new Map([["a", tr]]) }))).toEqual([]);
  });

  it("needs progress to the next step: a boat that stops inside 50 m is reported once it sails on, at its first fix inside", () => {
    const tr = raceTrack();
    const lap1 = firstInside(tr, MARK, G);
    // Up to the first fix inside: not yet a passing; once it has sailed on toward the gate, it is.
    expect(roundingsOf(detect({ toMs: lap1, tracks: new Map([["a", tr]]) }))).toEqual([]);
    expect(roundingsOf(detect({ toMs: lap1 + 40 * S, tracks: new Map([["a", tr]]) }))).toEqual([["a", lap1, "Windward 1"]]);
    const parked = slice(tr, 0, lap1 + 2 * S);
    for (let k = 1; k <= 60; k++) push(parked, lap1 + (2 + k) * S, at(MARK, 30 + (k % 3), 90));
    expect(roundingsOf(detect({ tracks: new Map([["a", parked]]) }))).toEqual([]);
  });

  it("leaves out a fix that jumped: a wild fix beside the mark is no rounding", () => {
    const tr = slice(raceTrack(), 0, G + 150 * S);
    const k = tr.t.length - 20;
    (tr.lat as number[])[k] = at(MARK, 10).lat;
    (tr.lon as number[])[k] = at(MARK, 10).lon;
    expect(roundingsOf(detect({ tracks: new Map([["a", tr]]) }))).toEqual([]);
  });

  it("reports no rounding outside the boat's capture window: after its finish, without a gun", () => {
    const tr = raceTrack();
    const lap1 = firstInside(tr, MARK, G);
    const labels = (parts: Parameters<typeof detect>[0]) => detect({ tracks: new Map([["a", tr]]), ...parts }).map((f) => f.markLabel);
    expect(labels({ finishMs: new Map([["a", lap1 - 1]]) })).toEqual([]);
    expect(labels({ finishMs: new Map([["a", lap1 + 30 * S]]) })).toEqual(["Windward 1"]);
    expect(labels({ gunMs: null })).toEqual([]);
  });

  it("reports a passing in the windows its time lies in once it is known, at its own time with one id: windows that meet lose none", () => {
    const tr = raceTrack();
    const lap1 = firstInside(tr, MARK, G);
    const windward = (fromMs: number, toMs: number, knownAtMs = toMs) =>
      ofKind(detect({ fromMs, toMs, knownAtMs, tracks: new Map([["a", tr]]) }), "markRounding").filter((f) => f.markLabel === "Windward 1");
    // A window ending 5 s after the first fix inside, before the boat has sailed on: not yet known.
    const boundary = lap1 + 5 * S;
    expect(windward(boundary - 5 * MIN, boundary)).toEqual([]);
    // The same window looked at again a minute later (a generation's catch-up): known now, at its own time.
    const later = windward(boundary - 5 * MIN, boundary, boundary + MIN);
    expect(later.map((f) => f.atMs)).toEqual([lap1]);
    expect(later[0]!.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "markRounding", entryIds: ["a"], atMs: lap1 }));
    // Windows that meet, as a catch-up runs them: the passing once. Windows that overlap: the same fact.
    const meeting = [-2, -1, 0, 1, 2].flatMap((k) => windward(boundary + k * 5 * MIN, boundary + (k + 1) * 5 * MIN, boundary + MIN));
    expect(meeting).toEqual(later);
    expect(windward(lap1 - MIN, lap1 + 4 * MIN)).toEqual(later);
    // A passing timed after the window is not this window's, however well known.
    expect(windward(lap1 - 5 * MIN, lap1 - 1, lap1 + 4 * MIN)).toEqual([]);
  });

  it("reports the first 3 boats to pass a mark in a window, ties by entry id; each mark is capped on its own", () => {
    const tracks = new Map([
      ["d", raceTrack(G - 10 * S)],
      ["c", raceTrack(G - 5 * S)],
      ["b", raceTrack(G - 5 * S)],
      ["a", raceTrack(G)],
    ]);
    const facts = detect({ tracks });
    const at1 = (id: string) => firstInside(tracks.get(id)!, MARK, G);
    // b and c tie: facts of one time are ordered by id, so sort by boat here.
    expect(
      roundingsOf(facts)
        .filter(([, , label]) => label === "Windward 1")
        .sort(),
    ).toEqual([
      ["b", at1("b"), "Windward 1"],
      ["c", at1("c"), "Windward 1"],
      ["d", at1("d"), "Windward 1"],
    ]);
    // The windward mark of both laps is one mark: its 3 boats are those of lap 1.
    expect(roundingsOf(facts).filter(([, , label]) => label === "Windward 2")).toEqual([]);
    expect(roundingsOf(facts).filter(([, , label]) => label === "Leeward gate")).toHaveLength(3);
  });

  it("names an unlabelled step by its mark's key, a gate by both its marks' keys", () => {
    const course = raceCourse(G - 10 * MIN);
    for (const step of course.steps) step.label = null;
    const facts = detect({ courses: [course], tracks: new Map([["a", raceTrack(G - 10 * S, at(STBD, 20, 90))]]) });
    expect(ofKind(facts, "markRounding").map((f) => f.markLabel)).toEqual(["windward", "gate-port/gate-stbd", "windward"]);
  });

  it("judges the steps still ahead against the course version applied: a windward mark moved mid-race", () => {
    const moved = at(MARK, 300, 90);
    const tr = sail(G - 10 * S, [at(START, 100, 180), at(MARK, 20, 90), GATE, at(moved, 20, 90), at(FINISH, 60, 180)]);
    const lap1 = firstInside(tr, MARK, G);
    const gate = Math.min(firstInside(tr, PORT, lap1), firstInside(tr, STBD, lap1));
    const version2 = raceCourse(gate + MIN, 40, moved);
    const facts = detect({ courses: [raceCourse(G - 10 * MIN), version2], tracks: new Map([["a", tr]]) });
    expect(roundingsOf(facts)).toEqual([
      ["a", firstInside(tr, moved, gate), "Windward 2"],
      ["a", gate, "Leeward gate"],
      ["a", lap1, "Windward 1"],
    ]);
  });

  it("ignores boats of other groups, and start and finish passings handed in", () => {
    const tr = raceTrack();
    expect(detect({ tracks: new Map([["zz", tr]]) })).toEqual([]);
    const passings = passingsOf(new Map([["a", tr]]), [raceCourse(G - 10 * MIN)], G, G + 30 * MIN);
    expect(passings.map((p) => p.passing.stepKind)).toEqual(["start", "mark", "gate", "mark", "finish"]);
    const lines = passings.filter((p) => p.passing.stepKind === "start" || p.passing.stepKind === "finish");
    expect(detectFacts(input({ fromMs: G - MIN, toMs: G + 30 * MIN, courses: [raceCourse(G - 10 * MIN)], passings: lines }))).toEqual([]);
  });
});

describe("gain", () => {
  // Baseline order E F G H A C D B; now A E C D B F G H.
  const baseline = order(T0 - 15 * S, { e: 1, f: 2, g: 3, h: 4, a: 5, c: 6, d: 7, b: 8 });
  const now = order(T0 + 4 * MIN, { a: 1, e: 2, c: 3, d: 4, b: 5, f: 6, g: 7, h: 8 });

  it("reports the three largest gains of at least 2 places, ties by better current place", () => {
    const facts = detectFacts(
      input({ liveOrders: [baseline, order(T0 + 2 * MIN, { a: 2, e: 1, c: 4, d: 3, b: 5, f: 6, g: 7, h: 8 }), now] }),
    );
    const gains = ofKind(facts, "gain").sort((x, y) => x.rank! - y.rank!);
    // Gains: A +4, C +3, D +3, B +3; B is the tie left out (place 5).
    expect(gains.map((f) => [...boatsOf(f), f.placesGained, f.rank, f.atMs])).toEqual([
      ["a", 4, 1, T0 + 4 * MIN],
      ["c", 3, 3, T0 + 4 * MIN],
      ["d", 3, 4, T0 + 4 * MIN],
    ]);
  });

  it("reports a gain of 2 places, not of 1", () => {
    const facts = detectFacts(
      input({ liveOrders: [order(T0 - S, { a: 3, b: 4, c: 1, d: 2 }), order(T0 + MIN, { a: 1, b: 3, c: 2, d: 4 })] }),
    );
    expect(ofKind(facts, "gain").map((f) => [...boatsOf(f), f.placesGained, f.rank])).toEqual([["a", 2, 1]]);
  });

  it("needs a baseline at or before fromMs and a reading in the window", () => {
    const up = [order(T0 + 10 * S, { a: 5, b: 1 }), order(T0 + 2 * MIN, { a: 1, b: 2 })];
    expect(ofKind(detectFacts(input({ liveOrders: up })), "gain")).toEqual([]);
    const noneInWindow = [order(T0 - MIN, { a: 5 }), order(T0, { a: 1 })];
    expect(ofKind(detectFacts(input({ liveOrders: noneInWindow })), "gain")).toEqual([]);
  });

  it("ignores unranked boats and readings after toMs", () => {
    const facts = detectFacts(
      input({
        liveOrders: [
          order(T0 - S, { a: 5, b: null, c: 3 }),
          order(T0 + MIN, { a: 4, b: 1, c: null }),
          order(T0 + 5 * MIN + 1, { a: 1, b: 2, c: 3 }),
        ],
      }),
    );
    expect(ofKind(facts, "gain")).toEqual([]);
  });

  it("keeps one id per boat per 5-minute bucket across sliding windows", () => {
    const orders = [
      order(T0 - 10 * S, { a: 6, b: 1 }),
      order(T0 + 1 * MIN, { a: 6, b: 1 }),
      order(T0 + 6 * MIN, { a: 3, b: 2 }),
      order(T0 + 8 * MIN, { a: 2, b: 3 }),
      order(T0 + 11 * MIN, { a: 1, b: 4 }),
    ];
    const window = (toMs: number) => ofKind(detectFacts(input({ liveOrders: orders, fromMs: toMs - 5 * MIN, toMs })), "gain");
    const at7 = window(T0 + 7 * MIN);
    const at9 = window(T0 + 9 * MIN);
    const at12 = window(T0 + 12 * MIN);
    expect(at7.map((f) => [f.atMs, f.placesGained])).toEqual([[T0 + 6 * MIN, 3]]);
    expect(at9.map((f) => [f.atMs, f.placesGained])).toEqual([[T0 + 8 * MIN, 4]]);
    // Both newest readings fall in bucket [T0 + 5 min, T0 + 10 min): the same fact, the same id.
    expect(at9[0]!.id).toBe(at7[0]!.id);
    const bucket = Math.floor((T0 + 6 * MIN) / GAIN_BUCKET_MS);
    expect(at7[0]!.id).toBe(
      factId({ raceId: RACE, startGroupId: GROUP, kind: "gain", entryIds: ["a"], atMs: bucket * GAIN_BUCKET_MS, bucket }),
    );
    // The next bucket is a new fact.
    expect(at12.map((f) => f.placesGained)).toEqual([2]);
    expect(at12[0]!.id).not.toBe(at7[0]!.id);
  });
});

describe("finish", () => {
  it("reports phone finishes in (fromMs, toMs] with the boat's place in the newest reading by toMs", () => {
    const facts = detectFacts(
      input({
        finishes: [
          { entryId: "a", finishMs: T0 },
          { entryId: "b", finishMs: T0 + 1 },
          { entryId: "c", finishMs: T0 + 5 * MIN },
          { entryId: "d", finishMs: T0 + 5 * MIN + 1 },
        ],
        liveOrders: [
          order(T0 - S, { a: 1, b: 3, c: 2 }),
          order(T0 + 2 * MIN, { a: 1, b: 2 }),
          order(T0 + 5 * MIN + 1, { a: 1, b: 3, c: 2 }),
        ],
      }),
    );
    expect(facts.map((f) => [f.kind, ...boatsOf(f), f.atMs, f.rank])).toEqual([
      ["finish", "c", T0 + 5 * MIN, null],
      ["finish", "b", T0 + 1, 2],
    ]);
    expect(facts[1]!.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "finish", entryIds: ["b"], atMs: T0 + 1 }));
  });
});

describe("windShift", () => {
  const shifts = (wind: WindData[]) => detectFacts(input({ wind }));
  const w = (s: number, twd: number, tws: number | null): WindData => ({ measuredAtMs: T0 + s * S, twd, tws });

  it("reports a turn of 10 degrees, not 9, against the previous reading", () => {
    expect(shifts([w(-30, 200, 12), w(60, 209, 12)])).toEqual([]);
    const facts = shifts([w(-30, 200, 12), w(60, 210, 12)]);
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({
      kind: "windShift",
      atMs: T0 + 60 * S,
      boats: [],
      twdFrom: 200,
      twdTo: 210,
      twsFrom: 12,
      twsTo: 12,
      rank: null,
      markLabel: null,
    });
    expect(facts[0]!.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "windShift", entryIds: [], atMs: T0 + 60 * S }));
  });

  it("measures the smallest angle across north: 350 -> 5 is 15 degrees, 355 -> 4 is 9", () => {
    expect(shifts([w(-30, 350, 12), w(60, 5, 12)]).map((f) => [f.twdFrom, f.twdTo])).toEqual([[350, 5]]);
    expect(shifts([w(-30, 355, 12), w(60, 4, 12)])).toEqual([]);
    expect(shifts([w(-30, 5, 12), w(60, 355, 12)]).map((f) => [f.twdFrom, f.twdTo])).toEqual([[5, 355]]);
  });

  it("reports a change of 3 knots, not 2.9, despite binary fractions", () => {
    expect(shifts([w(-30, 200, 5.2), w(60, 203, 8.1)])).toEqual([]);
    expect(8.2 - 5.2).toBeLessThan(3);
    expect(shifts([w(-30, 200, 5.2), w(60, 203, 8.2)]).map((f) => [f.twsFrom, f.twsTo])).toEqual([[5.2, 8.2]]);
    expect(shifts([w(-30, 200, 8.2), w(60, 197, 5.2)]).map((f) => [f.twsFrom, f.twsTo])).toEqual([[8.2, 5.2]]);
  });

  it("compares a direction-only reading by direction only", () => {
    expect(shifts([w(-30, 200, 5), w(60, 205, null), w(120, 206, 15)])).toEqual([]);
    const facts = shifts([w(-30, 200, 12), w(60, 212, null)]);
    expect(facts.map((f) => [f.twdFrom, f.twdTo, f.twsFrom, f.twsTo])).toEqual([[200, 212, 12, null]]);
  });

  it("compares each reading with the one just before it, from the baseline on, up to toMs", () => {
    const facts = shifts([w(-90, 180, 12), w(0, 195, 12), w(100, 196, 12), w(200, 206, 12), w(300, 206, 16), w(301, 250, 12)]);
    expect(facts.map((f) => [f.atMs, f.twdFrom, f.twdTo])).toEqual([
      [T0 + 300 * S, 206, 206],
      [T0 + 200 * S, 196, 206],
    ]);
  });
});

describe("every kind together", () => {
  const t = (s: number) => T0 + s * S;
  const tracks = new Map([
    [
      "a",
      track([
        [t(100), at(MARK, 60)],
        [t(150), at(MARK, 40)],
        [t(160), at(MARK, 20, 180)],
        [t(170), at(MARK, 70, 180)],
        [t(400), far(MARK, 180)],
      ]),
    ],
    [
      "b",
      track([
        [t(199), at(MARK, 60)],
        [t(200), at(MARK, 40)],
        [t(210), at(MARK, 20, 180)],
        [t(220), at(MARK, 70, 180)],
        [t(400), far(MARK, 180)],
      ]),
    ],
  ]);
  // Rounding the windward mark, then on toward the leeward mark (no start line: the boats are racing).
  const courses: CourseVersionData[] = [
    {
      appliedFromMs: t(-1800),
      steps: [
        { kind: "mark", label: "Windward", marks: [{ key: "windward", ...MARK }] },
        { kind: "mark", label: "Leeward", marks: [{ key: "leeward", ...GATE }] },
      ],
    },
  ];
  const data = (fromMs: number, toMs: number): DetectionInput =>
    input({
      fromMs,
      toMs,
      liveOrders: [
        order(t(-20), { a: 1, b: 2, c: 3, d: 4 }),
        order(t(60), { a: 1, b: 2, c: 3, d: 4 }),
        order(t(150), { b: 1, a: 2, c: 3, d: 4 }),
        order(t(200), { b: 1, d: 2, a: 3, c: 4 }),
        order(t(250), { b: 1, d: 2, a: 3, c: 4 }),
        order(t(300), { b: 1, d: 2, a: 3, c: 4 }),
        order(t(420), { b: 1, d: 2, a: 3, c: 4 }),
      ],
      passings: passingsOf(tracks, courses, T0 - 30 * MIN, toMs),
      courses,
      finishes: [{ entryId: "c", finishMs: t(200) }],
      wind: [
        { measuredAtMs: t(-30), twd: 200, tws: 12 },
        { measuredAtMs: t(150), twd: 215, tws: 12 },
        { measuredAtMs: t(270), twd: 215, tws: 8 },
      ],
    });

  it("orders facts newest first, then by kind, then by id", () => {
    const facts = detectFacts(data(T0, T0 + 5 * MIN));
    expect(facts.map((f) => [f.atMs - T0, f.kind, ...boatsOf(f)])).toEqual([
      [300_000, "gain", "d"],
      [270_000, "windShift"],
      [200_000, "markRounding", "b"],
      [200_000, "finish", "c"],
      [150_000, "leadChange", "b", "a"],
      [150_000, "markRounding", "a"],
      [150_000, "windShift"],
    ]);
    for (let i = 1; i < facts.length; i++) expect(facts[i - 1]!.atMs).toBeGreaterThanOrEqual(facts[i]!.atMs);
    expect(new Set(facts.map((f) => f.id)).size).toBe(facts.length);
    for (const f of facts) expect(f.id).toMatch(/^[0-9a-f]{16}$/);
  });

  it("gives the same event the same id from overlapping windows, and the same facts on every call", () => {
    const first = detectFacts(data(T0, T0 + 5 * MIN));
    const second = detectFacts(data(T0 + 2 * MIN, T0 + 7 * MIN));
    expect(detectFacts(data(T0, T0 + 5 * MIN))).toEqual(first);
    const overlap = (facts: Fact[]) => facts.filter((f) => f.kind !== "gain" && f.atMs > T0 + 2 * MIN && f.atMs <= T0 + 5 * MIN);
    expect(overlap(second)).toEqual(overlap(first));
    expect(overlap(first).length).toBeGreaterThanOrEqual(4);
    // D's gain: newest readings at T0 + 5 min and T0 + 7 min, one bucket, one id.
    const [gainFirst, gainSecond] = [ofKind(first, "gain"), ofKind(second, "gain")];
    expect(gainFirst.map((f) => [...boatsOf(f), f.atMs, f.placesGained])).toEqual([["d", T0 + 5 * MIN, 2]]);
    expect(gainSecond.map((f) => [...boatsOf(f), f.atMs, f.placesGained])).toEqual([["d", T0 + 7 * MIN, 2]]);
    expect(gainSecond[0]!.id).toBe(gainFirst[0]!.id);
  });
});

/**
 * Each boat's step passings as the analytics find them: a BoatAnalytics fed the boat's
 * fixes of its capture window in order, each with the wind in force, the course version
 * changed before its first fix (boat-analytics.ts says how a caller feeds it).
 */
function analyticsPassings(group: StartGroup): Map<string, readonly StepPassing[]> {
  const gunMs = Date.parse(group.startTimeUtc!);
  const courses = group.courses!.map((c) => ({ appliedFromMs: Date.parse(c.appliedFromUtc), steps: c.steps }));
  const wind = group.wind ?? [];
  const twdAt = (t: number) => [...wind].reverse().find((w) => Date.parse(w.measuredAtUtc) <= t)?.twd ?? wind[0]?.twd ?? 0;
  const passings = new Map<string, readonly StepPassing[]>();
  for (const track of group.tracks!) {
    const finish = group.finishes?.find((f) => f.entryId === track.entryId);
    const window = captureWindow(gunMs, finish ? Date.parse(finish.finishTimeUtc) : null)!;
    let version = 0;
    const boat = new BoatAnalytics({ steps: courses[0]!.steps, gunMs });
    for (let k = 0; k < track.t.length; k++) {
      const tMs = track.t[k]!;
      if (!inCaptureWindow(window, tMs)) continue;
      while (version + 1 < courses.length && courses[version + 1]!.appliedFromMs <= tMs) boat.changeCourse(courses[++version]!.steps);
      boat.push({ tMs, lat: track.lat[k]!, lon: track.lon[k]! }, twdAt(tMs));
    }
    passings.set(track.entryId, boat.passings);
  }
  return passings;
}

describe("a simulated race", () => {
  const WINDOW = 5 * 60_000;
  const STEP = 60_000;

  /**
   * A generation every minute over the group's race, as generator.ts runs them: all kinds
   * in the window ending at its dataAsOf, mark roundings also in the two before it, with
   * the passings known at that dataAsOf. Facts by id, and every window run.
   */
  function detectAll(scenario: ReturnType<typeof simulateScenario>) {
    const event = scenario.events[0]!;
    const race = event.races[0]!;
    const group = race.startGroups[0]!;
    const gun = Date.parse(group.startTimeUtc!);
    const lastFix = Math.max(...group.tracks!.map((tr) => tr.t[tr.t.length - 1]!));
    const facts = new Map<string, Fact>();
    const windows: { input: DetectionInput; facts: Fact[] }[] = [];
    for (let asOf = gun - 5 * MIN; asOf <= lastFix + STEP; asOf += STEP) {
      const passings = scenarioPassings(group, asOf);
      for (let toMs = asOf; toMs > asOf - 15 * MIN; toMs -= WINDOW) {
        const input = detectionInputFromScenario(race.id, group, event.entries, toMs - WINDOW, toMs, passings);
        const found = toMs === asOf ? detectFacts(input) : detectMarkRoundings(input);
        windows.push({ input, facts: found });
        for (const f of found) {
          const seen = facts.get(f.id);
          // The same id always carries the same event; a gain's numbers and a finish's place
          // may be refreshed by a later reading.
          if (seen && f.kind !== "gain")
            expect({ ...f, rank: f.kind === "finish" ? null : f.rank }).toEqual({ ...seen, rank: f.kind === "finish" ? null : seen.rank });
          facts.set(f.id, f);
        }
      }
    }
    return { group, facts: [...facts.values()], windows };
  }

  const small = simulateScenario({ seed: "insights-detect", startGroups: 1, boatsPerGroup: 3, laps: 2, legLengthM: 1200 });
  const { group, facts, windows } = detectAll(small);

  it("finds two windward and two gate roundings of every boat the analytics see start, and every finish", () => {
    const finishers = (group.finishes ?? []).map((f) => f.entryId);
    const starters = [...analyticsPassings(group).entries()].filter(([, passings]) => passings[0]?.stepKind === "start");
    expect(starters.length).toBeGreaterThanOrEqual(2);
    for (const [entryId] of starters) {
      const mine = ofKind(facts, "markRounding").filter((f) => f.boats[0]!.entryId === entryId);
      expect(mine.filter((f) => f.markLabel === "Windward").length).toBe(2);
      expect(mine.filter((f) => f.markLabel === "Leeward gate").length).toBe(2);
    }
    expect(
      ofKind(facts, "finish")
        .map((f) => f.boats[0]!.entryId)
        .sort(),
    ).toEqual([...finishers].sort());
  });

  it("agrees with the analytics fed apart: the same boats pass the same marks and gates at the same times, within 3 s of the truth", () => {
    // Three boats: the cap of 3 per mark never binds, so every passing is a fact of some window.
    const { scenario, truth } = simulateRace({
      seed: "insights-agree",
      startGroups: 1,
      boatsPerGroup: 3,
      laps: 2,
      legLengthM: 1200,
      overEarlyReturn: true,
    });
    const raced = detectAll(scenario);
    expect(raced.group.courses!.length).toBeGreaterThan(1);
    const fromAnalytics = [...analyticsPassings(raced.group)].flatMap(([entryId, passings]) =>
      passings
        .filter((p) => p.stepKind === "mark" || p.stepKind === "gate")
        .map((p) => [entryId, p.stepIndex, p.label, new Date(p.atMs).toISOString()]),
    );
    const fromInsights = ofKind(raced.facts, "markRounding").map((f) => {
      const entryId = f.boats[0]!.entryId;
      const stepIndex = analyticsPassings(raced.group)
        .get(entryId)!
        .find((p) => Math.trunc(p.atMs) === f.atMs)?.stepIndex;
      return [entryId, stepIndex, f.markLabel, new Date(f.atMs).toISOString()];
    });
    const byBoatAndTime = (a: unknown[], b: unknown[]) =>
      String(a[0]).localeCompare(String(b[0])) || String(a[3]).localeCompare(String(b[3]));
    expect(fromAnalytics.length).toBeGreaterThanOrEqual(3 * 4 - 1);
    expect(fromInsights.sort(byBoatAndTime)).toEqual(fromAnalytics.sort(byBoatAndTime));
    // And the rule is right: each is within 3 s of the simulator's own passing of that step.
    const truthOf = new Map(truth.groups[0]!.boats.map((b) => [b.entryId, b.passings]));
    for (const [entryId, stepIndex, , atUtc] of fromInsights) {
      const passing = truthOf.get(entryId as string)!.find((p) => p.stepIndex === stepIndex)!;
      expect(Math.abs(passing.atMs - Date.parse(atUtc as string))).toBeLessThanOrEqual(3000);
    }
  });

  it("finds the committee's big wind shift", () => {
    const readings = small.events[0]!.races[0]!.startGroups[0]!.wind!;
    const turns = readings
      .slice(1)
      .map((r, i) => ({ atMs: Date.parse(r.measuredAtUtc), turn: Math.abs(angleDifferenceDegrees(readings[i]!.twd, r.twd)) }));
    const big = turns.filter((x) => x.turn >= 10);
    expect(big.length).toBeGreaterThan(0);
    const reported = ofKind(facts, "windShift");
    for (const b of big) {
      if (b.atMs > Math.max(...windows.map((w) => w.input.toMs))) continue;
      expect(
        reported.some((f) => f.atMs === b.atMs && f.twdFrom !== null && Math.abs(angleDifferenceDegrees(f.twdFrom, f.twdTo!)) >= 10),
      ).toBe(true);
    }
  });

  it("keeps to 3 boats per mark in each window of a 12-boat fleet", () => {
    const fleet = detectAll(simulateScenario({ seed: "insights-detect", startGroups: 1, boatsPerGroup: 12, laps: 2, legLengthM: 1200 }));
    let busiest = 0;
    for (const { facts: found } of fleet.windows) {
      const perLabel = new Map<string, number>();
      for (const f of ofKind(found, "markRounding")) perLabel.set(f.markLabel!, (perLabel.get(f.markLabel!) ?? 0) + 1);
      for (const n of perLabel.values()) busiest = Math.max(busiest, n);
      expect(ofKind(found, "gain").length).toBeLessThanOrEqual(3);
    }
    expect(busiest).toBe(3);
    // Each rounding reported is one of the analytics' passings, capped or not.
    const passed = new Set(
      [...analyticsPassings(fleet.group)].flatMap(([entryId, passings]) =>
        passings.map((p) => `${entryId} ${p.label} ${Math.trunc(p.atMs)}`),
      ),
    );
    for (const f of ofKind(fleet.facts, "markRounding")) expect(passed.has(`${f.boats[0]!.entryId} ${f.markLabel} ${f.atMs}`)).toBe(true);
    expect(ofKind(fleet.facts, "leadChange").length).toBeGreaterThan(0);
  });
});
