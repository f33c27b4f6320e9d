import { describe, expect, it } from "vitest";
import { angleDifferenceDegrees, destinationPoint, haversineDistanceM, type LatLon } from "../../src/domain/geo.js";
import {
  TRACK_LOOKBACK_MS,
  type CourseVersionData,
  type DetectionInput,
  type LiveOrderData,
  type TrackData,
  type WindData,
} from "../../src/domain/detection-input.js";
import { GAIN_BUCKET_MS, ROUNDING_REENTRY_MS, detectFacts } from "../../src/insights/detect.js";
import type { BoatRef, Fact } from "../../src/domain/facts.js";
import { factId } from "../../src/insights/fact-id.js";
import { detectionInputFromScenario } from "../../src/insights/scenario-input.js";
import { simulateScenario } from "../../src/sim/index.js";

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
    gunMs: T0 - 30 * MIN,
    finishMs: new Map(),
    liveOrders: [],
    tracks: new Map(),
    courses: [],
    finishes: [],
    wind: [],
    ...parts,
  };
}

function order(asOfMs: number, ranks: Record<string, number | null>): LiveOrderData {
  return { asOfMs, ranks: new Map(Object.entries(ranks)) };
}

function track(samples: [number, LatLon][]): TrackData {
  return { t: samples.map(([t]) => t), lat: samples.map(([, p]) => p.lat), lon: samples.map(([, p]) => p.lon) };
}

/** A course with a start line, a windward mark at `windward`, an optional gate and a finish line. */
function course(
  appliedFromMs: number,
  windward: LatLon,
  extra: Partial<{
    gate: [LatLon, LatLon];
    gateLabel: string | null;
    startEnd: LatLon;
    finishEnd: LatLon;
    windwardLabel: string | null;
  }> = {},
): CourseVersionData {
  const startEnd = extra.startEnd ?? at(MARK, 2000, 180);
  const finishEnd = extra.finishEnd ?? at(MARK, 2100, 180);
  const steps: CourseVersionData["steps"] = [
    {
      kind: "start",
      label: "Start",
      marks: [
        { key: "pin", ...startEnd },
        { key: "committee", ...at(startEnd, 200, 90) },
      ],
    },
    {
      kind: "mark",
      label: extra.windwardLabel === undefined ? "Windward" : extra.windwardLabel,
      marks: [{ key: "windward", ...windward }],
    },
  ];
  if (extra.gate) {
    steps.push({
      kind: "gate",
      label: extra.gateLabel === undefined ? "Leeward gate" : extra.gateLabel,
      marks: [
        { key: "gate-port", ...extra.gate[0] },
        { key: "gate-stbd", ...extra.gate[1] },
      ],
    });
  }
  steps.push({ kind: "mark", label: "Windward", marks: [{ key: "windward", ...windward }] });
  steps.push({
    kind: "finish",
    label: "Finish",
    marks: [
      { key: "finish-pin", ...finishEnd },
      { key: "finish-committee", ...at(finishEnd, 100, 90) },
    ],
  });
  return { appliedFromMs, steps };
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
  const windwardCourse = [course(T0 - 30 * MIN, MARK)];
  const entering = (distanceM: number, atMs = T0 + 60 * S): TrackData =>
    track([
      [atMs - 2 * S, at(MARK, 70)],
      [atMs - 1 * S, at(MARK, 60)],
      [atMs, at(MARK, distanceM)],
      [atMs + 1 * S, at(MARK, 20)],
    ]);

  it("counts a sample exactly 50 m off as inside, 50.5 m as outside", () => {
    expect(haversineDistanceM(MARK, at(MARK, 50))).toBeCloseTo(50, 6);
    const onEdge = track([
      [T0 + 10 * S, at(MARK, 60)],
      [T0 + 11 * S, at(MARK, 50)],
      [T0 + 12 * S, at(MARK, 60)],
    ]);
    const justOut = track([
      [T0 + 10 * S, at(MARK, 60)],
      [T0 + 11 * S, at(MARK, 50.5)],
      [T0 + 12 * S, at(MARK, 60)],
    ]);
    const facts = detectFacts(
      input({
        courses: windwardCourse,
        tracks: new Map([
          ["a", onEdge],
          ["b", justOut],
        ]),
      }),
    );
    expect(facts.map((f) => [f.kind, ...boatsOf(f), f.atMs, f.markLabel])).toEqual([["markRounding", "a", T0 + 11 * S, "Windward"]]);
    expect(facts[0]!.id).toBe(factId({ raceId: RACE, startGroupId: GROUP, kind: "markRounding", entryIds: ["a"], atMs: T0 + 11 * S }));
  });

  it("reports no rounding from a sample outside the boat's capture window: before gun - 5 min, after its finish, without a gun", () => {
    const tracks = new Map([["a", entering(30)]]);
    const rounded = (parts: Partial<DetectionInput>) =>
      detectFacts(input({ courses: windwardCourse, tracks, ...parts })).map((f) => f.kind);
    expect(rounded({})).toEqual(["markRounding"]);
    // The gun 20 minutes after the window: the boat is sailing to the start.
    expect(rounded({ gunMs: T0 + 25 * MIN })).toEqual([]);
    // The window opens 5 minutes before the gun, inclusive; a sample before it is not even the "outside" an entry needs.
    expect(rounded({ gunMs: T0 + 59 * S + 5 * MIN })).toEqual(["markRounding"]);
    expect(rounded({ gunMs: T0 + 59 * S + 5 * MIN + 1 })).toEqual([]);
    // Finished a second before it reached the mark; the finish itself is still inside.
    expect(rounded({ finishMs: new Map([["a", T0 + 59 * S]]) })).toEqual([]);
    expect(rounded({ finishMs: new Map([["a", T0 + 60 * S]]) })).toEqual(["markRounding"]);
    // Three hours after the gun the window has closed: gun + 3 h itself is out, as on ingest, live and track.
    expect(rounded({ gunMs: T0 + 60 * S - 3 * 60 * MIN - 1 })).toEqual([]);
    expect(rounded({ gunMs: T0 + 60 * S - 3 * 60 * MIN })).toEqual([]);
    expect(rounded({ gunMs: T0 + 60 * S - 3 * 60 * MIN + 1 })).toEqual(["markRounding"]);
    expect(rounded({ gunMs: null })).toEqual([]);
  });

  it("names the step being rounded when one mark serves several: the boat's entries since its capture window opened count the laps", () => {
    const LEEWARD = at(MARK, 1500, 180);
    const laps: CourseVersionData = {
      appliedFromMs: T0 - 60 * MIN,
      steps: [
        { kind: "mark", label: "Windward 1", marks: [{ key: "windward", ...MARK }] },
        { kind: "mark", label: "Leeward", marks: [{ key: "leeward", ...LEEWARD }] },
        { kind: "mark", label: "Windward 2", marks: [{ key: "windward", ...MARK }] },
      ],
    };
    const window = entering(30);
    const enteringAt = (atMs: number): [number, LatLon][] => [
      [atMs - 1 * S, at(MARK, 60)],
      [atMs, at(MARK, 30)],
      [atMs + 10 * S, at(MARK, 400)],
    ];
    const history = (...visits: number[]) => {
      const samples = visits.flatMap(enteringAt);
      return track([
        ...samples,
        ...[0, 1, 2, 3].map((k): [number, LatLon] => [
          window.t[k] as number,
          { lat: window.lat[k] as number, lon: window.lon[k] as number },
        ]),
      ]);
    };
    const label = (histories?: Map<string, TrackData>) =>
      detectFacts(input({ courses: [laps], tracks: new Map([["a", window]]), ...(histories ? { histories } : {}) })).map(
        (f) => f.markLabel,
      );
    expect(label()).toEqual(["Windward 1"]);
    expect(label(new Map([["a", history()]]))).toEqual(["Windward 1"]);
    expect(label(new Map([["a", history(T0 - 20 * MIN)]]))).toEqual(["Windward 2"]);
    // A third time round (a course shortened mid-race): the last step it serves.
    expect(label(new Map([["a", history(T0 - 25 * MIN, T0 - 15 * MIN)]]))).toEqual(["Windward 2"]);
  });

  it("reports the first sample inside, once per boat and mark in a window", () => {
    const t = T0 + 60 * S;
    const inOutIn = track([
      [t - S, at(MARK, 60)],
      [t, at(MARK, 40)],
      [t + S, at(MARK, 30)],
      [t + 60 * S, far(MARK, 0)],
      [t + 130 * S, at(MARK, 60)],
      [t + 131 * S, at(MARK, 40)],
    ]);
    const facts = detectFacts(input({ courses: windwardCourse, tracks: new Map([["a", inOutIn]]) }));
    expect(facts.map((f) => f.atMs)).toEqual([t]);
  });

  it("needs a sample outside before: a boat already inside, or a track that starts inside, has not entered", () => {
    const inside = track([
      [T0 - 5 * S, at(MARK, 30)],
      [T0 + 5 * S, at(MARK, 20)],
    ]);
    const startsInside = track([
      [T0 + 5 * S, at(MARK, 30)],
      [T0 + 6 * S, at(MARK, 20)],
    ]);
    expect(
      detectFacts(
        input({
          courses: windwardCourse,
          tracks: new Map([
            ["a", inside],
            ["b", startsInside],
          ]),
        }),
      ),
    ).toEqual([]);
  });

  it("takes the sample before the window as the previous one, and leaves an entry at exactly fromMs to the previous window", () => {
    const fromBefore = track([
      [T0 - 1 * S, at(MARK, 60)],
      [T0 + 1 * S, at(MARK, 40)],
    ]);
    const atFrom = track([
      [T0 - 1 * S, at(MARK, 60)],
      [T0, at(MARK, 40)],
      [T0 + 1 * S, at(MARK, 30)],
    ]);
    const facts = detectFacts(
      input({
        courses: windwardCourse,
        tracks: new Map([
          ["a", fromBefore],
          ["b", atFrom],
        ]),
      }),
    );
    expect(facts.map((f) => [...boatsOf(f), f.atMs])).toEqual([["a", T0 + 1 * S]]);
  });

  it("reports the first 3 boats to arrive at a mark, ties by entry id", () => {
    const tracks = new Map([
      ["d", entering(40, T0 + 10 * S)],
      ["c", entering(40, T0 + 20 * S)],
      ["b", entering(40, T0 + 20 * S)],
      ["a", entering(40, T0 + 30 * S)],
    ]);
    const facts = detectFacts(input({ courses: windwardCourse, tracks }));
    expect(facts.map((f) => [...boatsOf(f), f.atMs])).toEqual([
      ["b", T0 + 20 * S],
      ["c", T0 + 20 * S],
      ["d", T0 + 10 * S],
    ]);
  });

  it("skips start and finish line ends, and counts either mark of a gate as one rounding of the gate", () => {
    const startEnd = at(MARK, 1500, 180);
    const finishEnd = at(MARK, 1800, 180);
    const port = at(MARK, 1000, 180);
    const stbd = at(port, 70, 90);
    const courses = [course(T0 - 30 * MIN, MARK, { gate: [port, stbd], startEnd, finishEnd })];
    const t = T0 + 60 * S;
    const tracks = new Map([
      [
        "a",
        track([
          [t - S, at(startEnd, 60)],
          [t, at(startEnd, 10)],
          [t + S, at(finishEnd, 60)],
          [t + 2 * S, at(finishEnd, 10)],
        ]),
      ],
      // Within 50 m of the port mark, then of the starboard mark too: one gate rounding.
      [
        "b",
        track([
          [t - S, at(port, 80, 270)],
          [t, at(port, 45, 270)],
          [t + S, at(port, 35, 90)],
          [t + 2 * S, at(stbd, 35, 270)],
          [t + 3 * S, at(stbd, 80, 90)],
        ]),
      ],
      [
        "c",
        track([
          [t - S, at(stbd, 80, 90)],
          [t + 5 * S, at(stbd, 20, 90)],
        ]),
      ],
    ]);
    const facts = detectFacts(input({ courses, tracks }));
    expect(facts.map((f) => [...boatsOf(f), f.atMs, f.markLabel])).toEqual([
      ["c", t + 5 * S, "Leeward gate"],
      ["b", t, "Leeward gate"],
    ]);
  });

  it("names a rounding after the mark key when the step has no label, and caps each zone on its own", () => {
    const port = at(MARK, 1000, 180);
    const stbd = at(port, 70, 90);
    const courses = [course(T0 - 30 * MIN, MARK, { gate: [port, stbd], gateLabel: null, windwardLabel: null })];
    const tracks = new Map<string, TrackData>();
    for (const [i, id] of BOAT_IDS.slice(0, 4).entries()) tracks.set(id, entering(30, T0 + (10 + i) * S));
    tracks.set(
      "e",
      track([
        [T0 + 100 * S, at(stbd, 80, 90)],
        [T0 + 101 * S, at(stbd, 20, 90)],
      ]),
    );
    const facts = detectFacts(input({ courses, tracks }));
    expect(facts.map((f) => [...boatsOf(f), f.markLabel])).toEqual([
      ["e", "gate-stbd"],
      ["c", "windward"],
      ["b", "windward"],
      ["a", "windward"],
    ]);
  });

  it("uses the marks of the course version applied at each sample's time", () => {
    const moved = at(MARK, 600, 90);
    const courses = [course(T0 - 30 * MIN, MARK), course(T0 + 2 * MIN, moved)];
    const tracks = new Map([
      // Before the change: the old mark counts.
      [
        "a",
        track([
          [T0 + 60 * S, at(MARK, 60)],
          [T0 + 61 * S, at(MARK, 40)],
        ]),
      ],
      // After the change: the old position no longer counts, the new one does.
      [
        "b",
        track([
          [T0 + 150 * S, at(MARK, 60)],
          [T0 + 151 * S, at(MARK, 40)],
        ]),
      ],
      [
        "c",
        track([
          [T0 + 150 * S, at(moved, 60)],
          [T0 + 151 * S, at(moved, 40)],
        ]),
      ],
      // Already where the new version lays the mark: the sample before is judged against
      // the new mark too, so the boat has not entered.
      [
        "d",
        track([
          [T0 + 2 * MIN - S, at(moved, 30)],
          [T0 + 2 * MIN, at(moved, 30)],
        ]),
      ],
    ]);
    const facts = detectFacts(input({ courses, tracks }));
    expect(facts.map((f) => [...boatsOf(f), f.atMs])).toEqual([
      ["c", T0 + 151 * S],
      ["a", T0 + 61 * S],
    ]);
    // A version applied after toMs is not used: up to T0 + 2 min the old mark applies.
    const early = detectFacts(input({ courses, tracks, toMs: T0 + 2 * MIN - 1 }));
    expect(early.map(boatsOf)).toEqual([["a"]]);
  });

  it("treats GPS flicker on the zone's edge as one rounding, in overlapping windows too", () => {
    const t = T0 + 100 * S;
    const flicker = track([
      [t - 2 * S, at(MARK, 60)],
      [t - S, at(MARK, 51)],
      [t, at(MARK, 49)],
      [t + S, at(MARK, 51)],
      [t + 2 * S, at(MARK, 49)],
      [t + 3 * S, at(MARK, 51)],
      [t + 30 * S, at(MARK, 60)],
      [t + 40 * S, at(MARK, 49)],
      [t + 200 * S, far(MARK, 90)],
    ]);
    const first = detectFacts(input({ courses: windwardCourse, tracks: new Map([["a", flicker]]) }));
    expect(first.map((f) => f.atMs)).toEqual([t]);
    // A later window starting between the entries sees the minute before it and stays silent.
    const later = detectFacts(
      input({ courses: windwardCourse, tracks: new Map([["a", flicker]]), fromMs: t + 1 * S, toMs: t + 1 * S + 5 * MIN }),
    );
    expect(later).toEqual([]);
    expect(TRACK_LOOKBACK_MS).toBeGreaterThanOrEqual(ROUNDING_REENTRY_MS);
  });

  it("reports a boat entering again after more than a minute outside, in a window of its own", () => {
    const t = T0 + 100 * S;
    const twice = track([
      [t - S, at(MARK, 60)],
      [t, at(MARK, 40)],
      [t + 5 * S, at(MARK, 60)],
      [t + 70 * S, at(MARK, 60)],
      [t + 71 * S, at(MARK, 40)],
    ]);
    const later = detectFacts(
      input({ courses: windwardCourse, tracks: new Map([["a", twice]]), fromMs: t + 10 * S, toMs: t + 10 * S + 5 * MIN }),
    );
    expect(later.map((f) => f.atMs)).toEqual([t + 71 * S]);
  });

  it("reads no sample after toMs, and ignores boats of other groups", () => {
    const late = track([
      [T0 + 5 * MIN, at(MARK, 60)],
      [T0 + 5 * MIN + 1, at(MARK, 40)],
    ]);
    const stranger = entering(40);
    expect(
      detectFacts(
        input({
          courses: windwardCourse,
          tracks: new Map([
            ["a", late],
            ["zz", stranger],
          ]),
        }),
      ),
    ).toEqual([]);
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
      tracks: new Map([
        [
          "a",
          track([
            [t(100), at(MARK, 60)],
            [t(150), at(MARK, 40)],
            [t(400), far(MARK, 0)],
          ]),
        ],
        [
          "b",
          track([
            [t(199), at(MARK, 60)],
            [t(200), at(MARK, 40)],
            [t(400), far(MARK, 0)],
          ]),
        ],
      ]),
      courses: [course(t(-1800), MARK)],
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

describe("a simulated race", () => {
  const WINDOW = 5 * 60_000;
  const STEP = 60_000;

  /** Every window of a generation run every minute over the group's race, facts by id. */
  function detectAll(scenario: ReturnType<typeof simulateScenario>) {
    const event = scenario.events[0]!;
    const race = event.races[0]!;
    const group = race.startGroups[0]!;
    const gun = Date.parse(group.startTimeUtc!);
    const lastFix = Math.max(...group.tracks!.map((tr) => tr.t[tr.t.length - 1]!));
    const facts = new Map<string, Fact>();
    const windows: { input: DetectionInput; facts: Fact[] }[] = [];
    for (let toMs = gun - 5 * MIN; toMs <= lastFix + STEP; toMs += STEP) {
      const input = detectionInputFromScenario(race.id, group, event.entries, toMs - WINDOW, toMs);
      const found = detectFacts(input);
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
    return { group, facts: [...facts.values()], windows };
  }

  const small = simulateScenario({ seed: "insights-detect", startGroups: 1, boatsPerGroup: 3, laps: 2, legLengthM: 1200 });
  const { group, facts, windows } = detectAll(small);

  it("finds the roundings of every boat that sails the course", () => {
    const finishers = (group.finishes ?? []).map((f) => f.entryId);
    expect(finishers.length).toBeGreaterThan(0);
    for (const entryId of finishers) {
      const mine = ofKind(facts, "markRounding").filter((f) => f.boats[0]!.entryId === entryId);
      expect(mine.filter((f) => f.markLabel === "Windward").length).toBeGreaterThanOrEqual(2);
      expect(mine.filter((f) => f.markLabel === "Leeward gate").length).toBeGreaterThanOrEqual(2);
    }
    expect(
      ofKind(facts, "finish")
        .map((f) => f.boats[0]!.entryId)
        .sort(),
    ).toEqual([...finishers].sort());
  });

  it("reports each rounding at a sample inside 50 m of a mark of the applied course, the one before outside", () => {
    const roundings = ofKind(facts, "markRounding");
    expect(roundings.length).toBeGreaterThan(0);
    for (const f of roundings) {
      const tr = group.tracks!.find((x) => x.entryId === f.boats[0]!.entryId)!;
      const i = tr.t.indexOf(f.atMs);
      expect(i).toBeGreaterThan(0);
      const applied = [...group.courses!].reverse().find((c) => Date.parse(c.appliedFromUtc) <= f.atMs)!;
      const marks = applied.steps
        .filter((s) => s.kind === "mark" || s.kind === "gate")
        .filter((s) => s.label === f.markLabel)
        .flatMap((s) => s.marks);
      const distance = (j: number) => Math.min(...marks.map((m) => haversineDistanceM(m, { lat: tr.lat[j]!, lon: tr.lon[j]! })));
      expect(distance(i)).toBeLessThanOrEqual(50);
      expect(distance(i - 1)).toBeGreaterThan(50);
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
      if (b.atMs > windows.at(-1)!.input.toMs) continue;
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
    expect(ofKind(fleet.facts, "leadChange").length).toBeGreaterThan(0);
  });
});
