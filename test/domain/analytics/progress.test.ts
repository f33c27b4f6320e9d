import { describe, expect, it } from "vitest";
import { courseLegs } from "../../../src/domain/analytics/course.js";
import { courseLengthM, courseProgressM, isStale, rankByProgress } from "../../../src/domain/analytics/progress.js";
import type { CourseStep } from "../../../src/domain/scenario.js";
import { at, mark } from "./tracks.js";

// A beat of 1000 m north, a reach of 800 m east, a run back: TWD 0.
const steps: CourseStep[] = [
  { kind: "start", marks: [mark("pin", -100, 0), mark("boat", 100, 0)] },
  { kind: "mark", marks: [mark("w", 0, 1000)] },
  { kind: "mark", marks: [mark("r", 800, 1000)] },
  { kind: "finish", marks: [mark("f1", 700, 0), mark("f2", 900, 0)] },
];
const legs = courseLegs(steps, 0);

describe("courseProgressM", () => {
  it("measures a beat along the wind: tacking sideways gains nothing", () => {
    expect(courseProgressM(legs, 1, at(0, 400), 0)).toBeCloseTo(400, 0);
    expect(courseProgressM(legs, 1, at(-300, 400), 0)).toBeCloseTo(400, 0);
  });

  it("adds completed legs, measures a reach along its rhumb line and a run down the wind", () => {
    expect(courseProgressM(legs, 2, at(300, 1100), 0)).toBeCloseTo(1300, 0);
    expect(courseProgressM(legs, 3, at(850, 600), 0)).toBeCloseTo(1000 + 800 + 400, 0);
    expect(courseLengthM(legs, 0)).toBeCloseTo(2800, 0);
  });

  it("caps progress in a leg at the leg's measure, and counts a boat not started by its distance to the line", () => {
    expect(courseProgressM(legs, 1, at(0, 1100), 0)).toBeCloseTo(1000, 0);
    expect(courseProgressM(legs, 0, at(0, -40), 0, 40)).toBe(-40);
  });

  it("measures a beat along the wind of the moment", () => {
    const shifted = courseLegs(steps, 20);
    expect(courseProgressM(shifted, 1, at(0, 500), 20)).toBeCloseTo(500 * Math.cos((20 * Math.PI) / 180), 0);
  });
});

describe("rankByProgress", () => {
  it("ranks finished boats by finish time ahead of racing boats by progress, with distance and time behind", () => {
    const ranked = rankByProgress([
      { entryId: "racing-near", progressM: 2700, finishedAtMs: null, vmg60Kn: 5 },
      { entryId: "second-home", progressM: 2800, finishedAtMs: 1_090_000, vmg60Kn: 0 },
      { entryId: "first-home", progressM: 2800, finishedAtMs: 1_000_000, vmg60Kn: 0 },
      { entryId: "racing-stopped", progressM: 2500, finishedAtMs: null, vmg60Kn: -0.4 },
    ]);
    expect(ranked.map((b) => [b.entryId, b.progressRank, b.distanceBehindLeaderM])).toEqual([
      ["first-home", 1, 0],
      ["second-home", 2, 0],
      ["racing-near", 3, 100],
      ["racing-stopped", 4, 300],
    ]);
    expect(ranked[1]!.timeBehindLeaderSeconds).toBe(90);
    expect(ranked[2]!.timeBehindLeaderSeconds).toBeCloseTo(100 / (5 * (1852 / 3600)), 6);
    expect(ranked[3]!.timeBehindLeaderSeconds).toBeNull();
  });

  it("gives the leader of a racing fleet zero behind", () => {
    const ranked = rankByProgress([
      { entryId: "b", progressM: 800, finishedAtMs: null, vmg60Kn: null },
      { entryId: "a", progressM: 900, finishedAtMs: null, vmg60Kn: 4 },
    ]);
    expect(ranked.map((b) => [b.entryId, b.distanceBehindLeaderM, b.timeBehindLeaderSeconds])).toEqual([
      ["a", 0, 0],
      ["b", 100, null],
    ]);
  });
});

describe("isStale", () => {
  it("marks a racing boat whose newest fix is more than 30 s older than dataAsOf, never a finished one", () => {
    expect(isStale(70_000, 100_000, false)).toBe(false);
    expect(isStale(69_999, 100_000, false)).toBe(true);
    expect(isStale(null, 100_000, false)).toBe(true);
    expect(isStale(0, 100_000, true)).toBe(false);
  });
});

describe("rankByProgress without a fix", () => {
  it("ranks a boat with no progress yet last, with no gap", () => {
    const ranked = rankByProgress([
      { entryId: "silent", progressM: null, finishedAtMs: null, vmg60Kn: null },
      { entryId: "sailing", progressM: 100, finishedAtMs: null, vmg60Kn: 4 },
    ]);
    expect(ranked.map((b) => [b.entryId, b.distanceBehindLeaderM, b.timeBehindLeaderSeconds])).toEqual([
      ["sailing", 0, 0],
      ["silent", null, null],
    ]);
  });
});
