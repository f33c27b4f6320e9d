import { describe, expect, it } from "vitest";
import { BoatAnalytics } from "../../../src/domain/analytics/boat-analytics.js";
import type { Fix } from "../../../src/domain/analytics/kinematics.js";
import { KNOT_M_PER_S } from "../../../src/domain/analytics/kinematics.js";
import { type LegStats, rankLegs } from "../../../src/domain/analytics/leg-stats.js";
import type { CourseStep } from "../../../src/domain/scenario.js";
import { simulateRace } from "../../../src/sim/index.js";
import { fedState, gunOf, raceFeed } from "./race-feed.js";
import { mark, sail, trackThrough } from "./tracks.js";

type Waypoints = [number, number, number][];

/** Metres along a waypoint path between two times, and its displacement north (east, north), on the plane. */
function pathBetween(path: Waypoints, fromS: number, toS: number): { lengthM: number; northM: number } {
  const pointAt = (s: number): [number, number] => {
    const i = path.findIndex(([t], k) => k + 1 < path.length && s <= path[k + 1]![0] && s >= t);
    const [t0, e0, n0] = path[i]!;
    const [t1, e1, n1] = path[i + 1]!;
    const f = (s - t0) / (t1 - t0);
    return [e0 + (e1 - e0) * f, n0 + (n1 - n0) * f];
  };
  const times = [fromS, ...path.map(([t]) => t).filter((t) => t > fromS && t < toS), toS];
  let lengthM = 0;
  for (let i = 1; i < times.length; i++) {
    const [ea, na] = pointAt(times[i - 1]!);
    const [eb, nb] = pointAt(times[i]!);
    lengthM += Math.hypot(eb - ea, nb - na);
  }
  return { lengthM, northM: pointAt(toS)[1] - pointAt(fromS)[1] };
}

function fed(steps: CourseStep[], fixes: readonly Fix[], untilMs = Number.POSITIVE_INFINITY): BoatAnalytics {
  const boat = new BoatAnalytics({ steps, gunMs: 0 });
  for (const fix of fixes) if (fix.tMs <= untilMs) boat.push(fix, 0);
  return boat;
}

const kn = (metresPerSecond: number) => metresPerSecond / KNOT_M_PER_S;

// A northerly (TWD 0). The boat crosses the start line at 7.5 s (between two fixes), sails
// 4 m/s straight up, is first within 50 m of the windward mark at 145 s, overstands it,
// runs down and crosses the finish line at 299.5 s (between two fixes).
const straight: CourseStep[] = [
  { kind: "start", marks: [mark("pin", -100, 0), mark("boat", 100, 0)] },
  { kind: "mark", label: "W", marks: [mark("w", 0, 599.5)] },
  { kind: "finish", marks: [mark("f1", -100, 100), mark("f2", 100, 100)] },
];
const straightPath: Waypoints = [
  [0, 0, -30],
  [163, 0, 622],
  [169, 24, 622],
  [314, 24, 42],
];

// A beat with three tacks to the windward mark (first within 50 m at 372 s), then a run
// with two gybes to the finish line.
const beatAndRun: CourseStep[] = [
  { kind: "start", marks: [mark("pin", -300, 0), mark("boat", 300, 0)] },
  { kind: "mark", label: "W", marks: [mark("w", 0, 700)] },
  { kind: "finish", marks: [mark("f1", -300, 100), mark("f2", 300, 100)] },
];
const beatAndRunPath: Waypoints = [
  [0, 0, -20],
  [60, 0, 5],
  [154, 200, 205],
  [248, 0, 405],
  [319, 150, 555],
  [380, 20, 685],
  [474, -180, 485],
  [568, 20, 285],
  [662, -180, 85],
];

describe("BoatAnalytics.legStats", () => {
  it("splits the segments a start and a finish crossing fall in, and gives a leg its known distance, time and speeds", () => {
    const [first, second] = fed(straight, trackThrough(straightPath)).legStats(1_000_000);
    expect(first).toMatchObject({ legIndex: 1, startedAtMs: 7_500, endedAtMs: 145_000, durationSeconds: 137.5, tacks: 0, gybes: 0 });
    expect(first!.distanceSailedM).toBeCloseTo(550, 1);
    expect(first!.avgSogKn!).toBeCloseTo(kn(4), 3);
    expect(first!.avgVmgKn!).toBeCloseTo(kn(4), 3);
    expect(second!.legIndex).toBe(2);
    expect(second!.startedAtMs).toBe(145_000);
    expect(second!.endedAtMs!).toBeCloseTo(299_500, 3);
    expect(second!.durationSeconds).toBeCloseTo(154.5, 3);
    // 72 m on past the mark's first fix inside 50 m, 24 m across, 522 m down to the line.
    expect(second!.distanceSailedM).toBeCloseTo(618, 1);
    // A run measures VMG down the wind: 522 m down less the 72 m up.
    expect(second!.avgVmgKn!).toBeCloseTo(kn(450 / 154.5), 3);
  });

  it("moves what was sailed after the mark's first fix inside 50 m to the next leg once the passing is confirmed", () => {
    const fixes = trackThrough(straightPath);
    // At 180 s the boat is past the mark but has not yet made the 10 m toward the finish that confirm it.
    const before = fed(straight, fixes, 180_000).legStats(180_000);
    expect(before).toHaveLength(1);
    expect(before[0]!.endedAtMs).toBeNull();
    expect(before[0]!.distanceSailedM).toBeCloseTo(550 + 72 + 24 + 4 * 10, 1);
    const after = fed(straight, fixes, 200_000).legStats(200_000);
    expect(after.map((l) => l.endedAtMs)).toEqual([145_000, null]);
    expect(after[0]!.distanceSailedM).toBeCloseTo(550, 1);
    expect(after[1]!.distanceSailedM).toBeCloseTo(72 + 24 + 4 * 30, 1);
  });

  it("runs the open leg's duration to dataAsOf, its averages over the fixes kept", () => {
    const [open, ...rest] = fed(straight, trackThrough(straightPath), 100_000).legStats(120_000);
    expect(rest).toEqual([]);
    expect(open).toMatchObject({ legIndex: 1, endedAtMs: null, durationSeconds: 112.5 });
    // The newest fix (100 s) waits for the jump filter's verdict: the leg's fixes run to 99 s.
    expect(open!.distanceSailedM).toBeCloseTo(4 * (99 - 7.5), 1);
    expect(open!.avgSogKn!).toBeCloseTo(kn(4), 3);
  });

  it("counts each tack and gybe in the leg its time lies in, and sums the beat's and the run's distance", () => {
    const boat = fed(beatAndRun, trackThrough(beatAndRunPath));
    const [beat, run] = boat.legStats(1_000_000);
    expect(boat.manoeuvres.map((m) => m.kind)).toEqual(["tack", "tack", "tack", "gybe", "gybe"]);
    expect(beat).toMatchObject({ legIndex: 1, startedAtMs: 48_000, endedAtMs: 372_000, tacks: 3, gybes: 0 });
    expect(run).toMatchObject({ legIndex: 2, startedAtMs: 372_000, tacks: 0, gybes: 2 });
    const beatPath = pathBetween(beatAndRunPath, 48, 372);
    expect(beat!.distanceSailedM).toBeCloseTo(beatPath.lengthM, 0);
    expect(beat!.avgVmgKn!).toBeCloseTo(kn(beatPath.northM / 324), 2);
    const runPath = pathBetween(beatAndRunPath, 372, run!.endedAtMs! / 1000);
    expect(run!.distanceSailedM).toBeCloseTo(runPath.lengthM, 0);
    expect(run!.avgVmgKn!).toBeCloseTo(kn(-runPath.northM / run!.durationSeconds), 2);
  });

  it("counts a penalty turn as neither a tack nor a gybe", () => {
    const steps: CourseStep[] = [
      { kind: "start", marks: [mark("pin", -100, 10), mark("boat", 100, 10)] },
      { kind: "mark", label: "W", marks: [mark("w", 0, 3000)] },
      { kind: "finish", marks: [mark("f1", -100, 0), mark("f2", 100, 0)] },
    ];
    const boat = fed(
      steps,
      sail(45, [
        { seconds: 60, speedKn: 5 },
        { seconds: 20, speedKn: 4, turnDeg: -360 },
        { seconds: 60, speedKn: 5 },
      ]),
    );
    expect(boat.manoeuvres.map((m) => m.kind)).toEqual(["penaltyTurn"]);
    expect(boat.legStats(200_000)).toMatchObject([{ legIndex: 1, tacks: 0, gybes: 0 }]);
  });

  it("ends the leg at the phone's finish and counts the track up to it", () => {
    const fixes = trackThrough(straightPath);
    const boat = fed(straight, fixes, 240_000);
    boat.recordFinish(250_000);
    for (const fix of fixes) if (fix.tMs > 240_000) boat.push(fix, 0);
    const legs = boat.legStats(1_000_000);
    expect(legs.map((l) => [l.legIndex, l.endedAtMs])).toEqual([
      [1, 145_000],
      [2, 250_000],
    ]);
    // 72 m up, 24 m across, then 81 s down at 4 m/s.
    expect(legs[1]!.distanceSailedM).toBeCloseTo(72 + 24 + 4 * 81, 1);
    expect(boat.passings.at(-1)).toMatchObject({ stepKind: "finish", atMs: 250_000, recorded: true });
  });

  it("has no legs before the start", () => {
    expect(fed(straight, trackThrough(straightPath), 7_000).legStats(7_000)).toEqual([]);
  });
});

const leg = (legIndex: number, startedAtMs: number, endedAtMs: number | null): LegStats => ({
  legIndex,
  startedAtMs,
  endedAtMs,
  durationSeconds: ((endedAtMs ?? 900_000) - startedAtMs) / 1000,
  distanceSailedM: 0,
  avgSogKn: null,
  avgVmgKn: null,
  tacks: 0,
  gybes: 0,
});

describe("rankLegs", () => {
  it("ranks each leg by when its end was passed, with the gap to the first, and nothing for a leg still sailed", () => {
    const ranked = rankLegs([
      { entryId: "a", legs: [leg(1, 0, 300_000), leg(2, 300_000, null)] },
      { entryId: "b", legs: [leg(1, 0, 290_000), leg(2, 290_000, 500_000)] },
      { entryId: "c", legs: [leg(1, 0, 300_000), leg(2, 300_000, 480_000)] },
      { entryId: "d", legs: [leg(1, 0, null)] },
      { entryId: "e", legs: [] },
    ]);
    const view = ranked.map((b) => [b.entryId, b.legs.map((l) => [l.rankAtEnd, l.behindLegLeaderSeconds])]);
    expect(view).toEqual([
      [
        "a",
        [
          [2, 10],
          [null, null],
        ],
      ],
      [
        "b",
        [
          [1, 0],
          [2, 20],
        ],
      ],
      [
        "c",
        [
          [2, 10],
          [1, 0],
        ],
      ],
      ["d", [[null, null]]],
      ["e", []],
    ]);
    expect(ranked[1]!.legs[1]).toMatchObject(leg(2, 290_000, 500_000));
  });
});

describe("legs of a simulated race", () => {
  const { scenario, truth } = simulateRace({ seed: "legs", startGroups: 1, boatsPerGroup: 6, legLengthM: 1000, overEarlyReturn: true });
  const group = scenario.events[0]!.races[0]!.startGroups[0]!;
  const boats = raceFeed(group).map((boat) => ({
    state: fedState(boat, gunOf(group)),
    truth: truth.groups[0]!.boats.find((b) => b.entryId === boat.entryId)!,
  }));

  it("runs each leg from one passing to the next, and counts every tack and gybe once, in the leg its time lies in", () => {
    for (const { state } of boats) {
      const legs = state.legStats(Number.MAX_SAFE_INTEGER);
      expect(legs.length).toBeGreaterThan(0);
      legs.forEach((l, i) => {
        expect(l.startedAtMs).toBe(state.passings[i]!.atMs);
        expect(l.endedAtMs).toBe(state.passings[i + 1]?.atMs ?? null);
        const inLeg = state.manoeuvres.filter((m) => m.atMs >= l.startedAtMs && (l.endedAtMs === null || m.atMs < l.endedAtMs));
        expect(l.tacks).toBe(inLeg.filter((m) => m.kind === "tack").length);
        expect(l.gybes).toBe(inLeg.filter((m) => m.kind === "gybe").length);
      });
    }
  });

  it("matches the simulator's truth: leg times within 3 s, VMG within 0.3 kn, distance a little over the true path (GPS noise)", () => {
    let legsCompared = 0;
    for (const { state, truth: b } of boats) {
      for (const l of state.legStats(Number.MAX_SAFE_INTEGER)) {
        const start = b.passings[l.legIndex - 1];
        const end = b.passings[l.legIndex];
        if (start === undefined || end === undefined || l.endedAtMs === null) continue;
        legsCompared++;
        const seconds = (end.atMs - start.atMs) / 1000;
        expect(Math.abs(l.durationSeconds - seconds)).toBeLessThanOrEqual(3);
        let trueVmgSum = 0;
        let truePathM = 0;
        const s = b.samples;
        for (let i = 1; i < s.tMs.length; i++) {
          if (s.legIndex[i - 1] !== l.legIndex) continue;
          trueVmgSum += s.vmgKn[i - 1]!;
          if (s.legIndex[i] === l.legIndex) truePathM += s.sogKn[i - 1]! * KNOT_M_PER_S;
        }
        expect(Math.abs(l.avgVmgKn! - trueVmgSum / seconds)).toBeLessThanOrEqual(0.3);
        expect(l.distanceSailedM / truePathM).toBeGreaterThan(0.97);
        expect(l.distanceSailedM / truePathM).toBeLessThan(1.12);
      }
    }
    expect(legsCompared).toBeGreaterThan(15);
  });
});
