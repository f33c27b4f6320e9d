import { describe, expect, it } from "vitest";
import { StepPassings } from "../../../src/domain/analytics/passings.js";
import type { CourseStep } from "../../../src/domain/scenario.js";
import { mark, trackThrough } from "./tracks.js";

// Start and finish on one line across the wind at the bottom, windward mark 1 km up,
// a wide leeward gate (its marks 400 m apart) on the way back.
const line = [mark("pin", -100, 0), mark("boat", 100, 0)];
const windwardLeeward: CourseStep[] = [
  { kind: "start", marks: line },
  { kind: "mark", label: "1", marks: [mark("w", 0, 1000)] },
  { kind: "gate", label: "2", marks: [mark("g1", -200, 100), mark("g2", 200, 100)] },
  { kind: "finish", marks: line },
];
const GUN_MS = 60_000;

function passingsOf(steps: CourseStep[], waypoints: [number, number, number][], gunMs: number | null = GUN_MS) {
  const tracker = new StepPassings(steps, gunMs);
  for (const fix of trackThrough(waypoints)) tracker.consume(fix);
  return tracker;
}

describe("StepPassings", () => {
  it("finds every step of a race: start and gate crossings interpolated, the mark at its first fix inside 50 m, the finish", () => {
    const tracker = passingsOf(windwardLeeward, [
      [0, 0, -50],
      [50, 0, -20],
      [80, 0, 30.5],
      [1040, 0, 990.5],
      [1940, 0, 90.5],
      [2040, 0, -9.5],
    ]);
    const times = tracker.passings.map((p) => p.atMs / 1000);
    expect(tracker.passings.map((p) => [p.stepIndex, p.stepKind, p.label])).toEqual([
      [1, "start", null],
      [2, "mark", "1"],
      [3, "gate", "2"],
      [4, "finish", null],
    ]);
    expect(times[0]).toBeCloseTo(50 + 30 * (20 / 50.5), 6);
    expect(times[1]).toBe(1000);
    expect(times[2]).toBeCloseTo(1930.5, 1);
    expect(times[3]).toBeCloseTo(2030.5, 1);
    expect(tracker.finished).toBe(true);
  });

  it("starts a boat over early only when it has come back and crosses again after the gun", () => {
    const tracker = passingsOf(windwardLeeward, [
      [0, 0, -10],
      [50, 0, 10],
      [100, 0, -10],
      [150, 0, 10],
    ]);
    expect(tracker.passings.map((p) => p.atMs / 1000)).toEqual([125]);
  });

  it("starts nobody while the gun is not set", () => {
    expect(
      passingsOf(
        windwardLeeward,
        [
          [0, 0, -10],
          [100, 0, 10],
        ],
        null,
      ).passedCount,
    ).toBe(0);
  });

  it("does not pass a mark a boat only lingers at, until it makes progress toward the next step", () => {
    const lingering = [
      [0, 0, -20],
      [100, 0, 5],
      [1000, 0, 960],
      [1200, 2, 962],
    ] as [number, number, number][];
    expect(passingsOf(windwardLeeward, lingering).passedCount).toBe(1);
    const rounded = passingsOf(windwardLeeward, [...lingering, [1300, 0, 860]]);
    expect(rounded.passedCount).toBe(2);
    expect(rounded.passings[1]!.atMs).toBeLessThanOrEqual(1000_000);
  });

  it("passes a gate by coming within 50 m of one of its marks when that comes first, from either side", () => {
    const gate: CourseStep[] = [
      { kind: "gate", label: "G", marks: [mark("g1", -40, 100), mark("g2", 40, 100)] },
      { kind: "finish", marks: line },
    ];
    // Down x = 60: within 50 m of g2 once north <= 100 + sqrt(50² - 20²) = 145.8, never between the marks.
    expect(
      passingsOf(gate, [
        [0, 60, 300],
        [300, 60, 0],
      ]).passings[0]!.atMs,
    ).toBe(155_000);
    // Up x = 0 between the marks from the south: the crossing (t = 100.5) precedes the
    // first fix within 50 m of a mark (north >= 70, t >= 71).
    expect(
      passingsOf(gate, [
        [0, 0, -0.5],
        [200, 0, 199.5],
      ]).passings[0]!.atMs,
    ).toBe(71_000);
    // Between marks 400 m apart, only the crossing counts.
    const wide: CourseStep[] = [{ kind: "gate", marks: [mark("a", -200, 100), mark("b", 200, 100)] }, gate[1]!];
    expect(
      passingsOf(wide, [
        [0, 0, 300.5],
        [300, 0, 0.5],
      ]).passings[0]!.atMs,
    ).toBeCloseTo(200_500, 0);
    expect(
      passingsOf(wide, [
        [0, 0, -0.5],
        [300, 0, 299.5],
      ]).passings[0]!.atMs,
    ).toBeCloseTo(100_500, 0);
  });

  it("finishes only across the line from the course side, and the phone's finish wins", () => {
    const steps: CourseStep[] = [
      { kind: "mark", label: "1", marks: [mark("w", 0, 500)] },
      { kind: "finish", marks: [mark("f1", -100, 200), mark("f2", 100, 200)] },
    ];
    // Rounds the mark, sails past the line's end, comes up through it from below (wrong way), then down.
    const tracker = passingsOf(steps, [
      [0, 0, 400],
      [100, 0, 460],
      [200, 150, 150],
      [300, 0, 150.5],
      [400, 0, 250.5],
      [500, 0, 150.5],
    ]);
    expect(tracker.passings.map((p) => p.stepKind)).toEqual(["mark", "finish"]);
    expect(tracker.passings[1]!.atMs).toBeCloseTo(450_500, 0);
    tracker.recordFinish(449_000);
    expect(tracker.passings.map((p) => [p.stepKind, p.atMs, p.recorded ?? false])).toEqual([
      ["mark", 84_000, false],
      ["finish", 449_000, true],
    ]);
  });

  it("judges the steps ahead against a new course version, keeping the passings made", () => {
    const tracker = new StepPassings(windwardLeeward, GUN_MS);
    for (const fix of trackThrough([
      [0, 0, -20],
      [100, 0, 5],
    ]))
      tracker.consume(fix);
    const moved: CourseStep[] = [
      windwardLeeward[0]!,
      { kind: "mark", label: "1", marks: [mark("w2", 300, 1000)] },
      ...windwardLeeward.slice(2),
    ];
    tracker.changeCourse(moved);
    for (const fix of trackThrough([
      [101, 0, 6],
      [1001, 300, 961],
      [1100, 300, 861],
    ]))
      tracker.consume(fix);
    expect(tracker.passings.map((p) => p.stepKind)).toEqual(["start", "mark"]);
    expect(tracker.passings[1]!.atMs).toBeGreaterThan(900_000);
  });

  it("counts a start up to 10 m beyond a line's end, GPS error, but not further out", () => {
    // The pin is at east -100: crossings at -108 and -115.
    const inside = passingsOf(windwardLeeward, [
      [0, -108, -70],
      [100, -108, 30],
    ]);
    expect(inside.passings[0]?.atMs).toBeCloseTo(70_000, -2);
    const outside = passingsOf(windwardLeeward, [
      [0, -115, -70],
      [100, -115, 30],
    ]);
    expect(outside.passings).toEqual([]);
  });

  it("starts a boat seen within GPS error over the line after the gun when it leaves that band up the course", () => {
    // 4 m over at the gun (no crossing after it), then sailing up: 10 m over at 66 s.
    const tracker = passingsOf(windwardLeeward, [
      [0, 0, -30],
      [30, 0, 4],
      [63, 0, 4],
      [163, 0, 104],
    ]);
    expect(tracker.passings[0]?.stepKind).toBe("start");
    expect(tracker.passings[0]!.atMs).toBeCloseTo(69_000, -2);
    // 30 m over at the gun it was simply over early, and has not started.
    expect(
      passingsOf(windwardLeeward, [
        [0, 0, -30],
        [30, 0, 30],
        [63, 0, 30],
        [163, 0, 130],
      ]).passings,
    ).toEqual([]);
  });

  it("keeps a boat inside the mark's 50 m as the course changes, and confirms it toward the new next step", () => {
    const tracker = new StepPassings(windwardLeeward, GUN_MS);
    for (const fix of trackThrough([
      [0, 0, -20],
      [100, 0, 5],
      [1060, 0, 960],
    ]))
      tracker.consume(fix);
    const movedGate: CourseStep[] = [
      ...windwardLeeward.slice(0, 2),
      { kind: "gate", label: "2", marks: [mark("g3", -300, 100), mark("g4", 100, 100)] },
      windwardLeeward[3]!,
    ];
    tracker.changeCourse(movedGate);
    for (const fix of trackThrough([
      [1061, 0, 961],
      [1090, 0, 990],
      [1200, -50, 880],
    ]))
      tracker.consume(fix);
    expect(tracker.passings.map((p) => p.stepKind)).toEqual(["start", "mark"]);
    expect(tracker.passings[1]!.atMs).toBeCloseTo(1_050_000, -3);
  });
});
