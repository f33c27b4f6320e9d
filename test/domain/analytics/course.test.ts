import { describe, expect, it } from "vitest";
import {
  courseLegs,
  distanceToStepM,
  legKindFor,
  legMeasureM,
  progressAxisDeg,
  stepReferencePoint,
  vmgAxisDeg,
} from "../../../src/domain/analytics/course.js";
import { haversineDistanceM, offsetByMetres } from "../../../src/domain/geo.js";
import type { CourseStep } from "../../../src/domain/scenario.js";

const origin = { lat: 50.77, lon: -1.3 };
const at = (eastM: number, northM: number) => offsetByMetres(origin, eastM, northM);
const mark = (key: string, eastM: number, northM: number) => ({ key, ...at(eastM, northM) });

/** Start line across the wind at the bottom, windward mark 1 km north, leeward gate, reach mark east, finish. */
const course: CourseStep[] = [
  { kind: "start", marks: [mark("pin", -100, 0), mark("boat", 100, 0)] },
  { kind: "mark", label: "1", marks: [mark("w", 0, 1000)] },
  { kind: "gate", label: "2", marks: [mark("g1", -40, 100), mark("g2", 40, 100)] },
  { kind: "mark", label: "3", marks: [mark("r", 800, 100)] },
  { kind: "finish", marks: [mark("f1", 800, 200), mark("f2", 800, 400)] },
];

describe("legKindFor", () => {
  it("makes a leg upwind within 45° of the wind, downwind within 45° of the opposite, else a reach", () => {
    expect(legKindFor(0, 0)).toBe("upwind");
    expect(legKindFor(45, 0)).toBe("upwind");
    expect(legKindFor(46, 0)).toBe("reach");
    expect(legKindFor(350, 20)).toBe("upwind");
    expect(legKindFor(135, 0)).toBe("downwind");
    expect(legKindFor(200, 10)).toBe("downwind");
    expect(legKindFor(90, 0)).toBe("reach");
  });
});

describe("courseLegs", () => {
  const legs = courseLegs(course, 0);

  it("numbers the legs from 1 between consecutive steps, aimed at marks and the midpoints of lines and gates", () => {
    expect(legs.map((leg) => leg.legIndex)).toEqual([1, 2, 3, 4]);
    expect(legs.map((leg) => leg.kind)).toEqual(["upwind", "downwind", "reach", "upwind"]);
    expect(legs[0]!.bearingDeg).toBeCloseTo(0, 3);
    expect(legs[0]!.lengthM).toBeCloseTo(1000, 0);
    expect(legs[1]!.lengthM).toBeCloseTo(900, 0);
    expect(legs[2]!.bearingDeg).toBeCloseTo(90, 1);
    expect(haversineDistanceM(legs[3]!.to, at(800, 300))).toBeLessThan(0.01);
  });

  it("changes the legs' kinds with the wind", () => {
    expect(courseLegs(course, 90).map((leg) => leg.kind)).toEqual(["reach", "reach", "upwind", "reach"]);
  });
});

describe("the axes", () => {
  const [beat, run, reach] = courseLegs(course, 10);

  it("measure progress along the wind on beats and runs, along the rhumb line on reaches", () => {
    expect(progressAxisDeg(beat!, 10)).toBe(10);
    expect(progressAxisDeg(run!, 10)).toBe(190);
    expect(progressAxisDeg(reach!, 10)).toBeCloseTo(90, 1);
    expect(legMeasureM(beat!, 10)).toBeCloseTo(1000 * Math.cos((10 * Math.PI) / 180), 0);
    expect(legMeasureM(reach!, 10)).toBeCloseTo(reach!.lengthM, 6);
  });

  it("take VMG toward the next mark on a reach (VMC)", () => {
    expect(vmgAxisDeg(reach!, 10, at(400, 500))).toBeCloseTo(135, 0);
    expect(vmgAxisDeg(beat!, 10, at(400, 500))).toBe(10);
  });
});

describe("a step's point and distance", () => {
  it("is the mark itself, or a line's midpoint and nearest point", () => {
    expect(haversineDistanceM(stepReferencePoint(course[0]!), at(0, 0))).toBeLessThan(0.01);
    expect(distanceToStepM(at(0, 1030), course[1]!)).toBeCloseTo(30, 1);
    expect(distanceToStepM(at(-150, -40), course[0]!)).toBeCloseTo(Math.hypot(50, 40), 1);
    expect(distanceToStepM(at(60, -40), course[0]!)).toBeCloseTo(40, 1);
  });
});
