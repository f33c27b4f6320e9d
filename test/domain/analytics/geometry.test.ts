import { describe, expect, it } from "vitest";
import {
  displacementAlongM,
  interpolate,
  midpoint,
  nearestPointOnSegment,
  segmentCrossing,
  sideOfLine,
} from "../../../src/domain/analytics/geometry.js";
import { destinationPoint, haversineDistanceM, initialBearingDeg, offsetByMetres } from "../../../src/domain/geo.js";

const origin = { lat: 50.77, lon: -1.3 };
const at = (eastM: number, northM: number) => offsetByMetres(origin, eastM, northM);
const timed = (eastM: number, northM: number, tMs: number) => ({ ...at(eastM, northM), tMs });

describe("displacementAlongM", () => {
  it("projects a displacement on an axis: full along it, negative against it, cos(angle) across", () => {
    const north100 = at(0, 100);
    expect(displacementAlongM(origin, north100, 0)).toBeCloseTo(100, 6);
    expect(displacementAlongM(origin, north100, 180)).toBeCloseTo(-100, 6);
    expect(displacementAlongM(origin, north100, 90)).toBeCloseTo(0, 6);
    expect(displacementAlongM(origin, north100, 45)).toBeCloseTo(100 * Math.SQRT1_2, 6);
    expect(displacementAlongM(origin, at(30, -40), 90)).toBeCloseTo(30, 6);
  });

  it("gives a leg's great-circle length along its own bearing, to the metre", () => {
    const mark = destinationPoint(origin, 37, 1500);
    const bearing = initialBearingDeg(origin, mark);
    expect(bearing).toBeCloseTo(37, 2);
    expect(Math.abs(displacementAlongM(origin, mark, bearing) - haversineDistanceM(origin, mark))).toBeLessThan(1);
  });
});

describe("midpoint and interpolate", () => {
  it("place points along a segment", () => {
    const a = at(0, 0);
    const b = at(200, 100);
    expect(haversineDistanceM(midpoint(a, b), at(100, 50))).toBeLessThan(0.01);
    expect(haversineDistanceM(interpolate(a, b, 0.25), at(50, 25))).toBeLessThan(0.01);
  });
});

describe("nearestPointOnSegment", () => {
  const a = at(0, 0);
  const b = at(200, 0);

  it("drops a perpendicular inside the segment", () => {
    const nearest = nearestPointOnSegment(at(50, 80), a, b);
    expect(nearest.distanceM).toBeCloseTo(80, 3);
    expect(nearest.fraction).toBeCloseTo(0.25, 6);
    expect(haversineDistanceM(nearest.point, at(50, 0))).toBeLessThan(0.01);
  });

  it("clamps to the nearer end beyond the segment", () => {
    const nearest = nearestPointOnSegment(at(230, 40), a, b);
    expect(nearest.fraction).toBe(1);
    expect(nearest.distanceM).toBeCloseTo(50, 3);
    expect(nearestPointOnSegment(at(-30, -40), a, b).distanceM).toBeCloseTo(50, 3);
  });

  it("treats a segment of no length as its point", () => {
    expect(nearestPointOnSegment(at(30, 40), a, a).distanceM).toBeCloseTo(50, 3);
  });
});

describe("sideOfLine", () => {
  it("tells left from right looking from the first end to the second", () => {
    expect(sideOfLine(at(100, 10), at(0, 0), at(200, 0))).toBe("left");
    expect(sideOfLine(at(100, -10), at(0, 0), at(200, 0))).toBe("right");
  });
});

describe("segmentCrossing", () => {
  // A start line running west to east; the course lies north of it.
  const west = at(0, 0);
  const east = at(200, 0);

  it("finds a crossing from the south (right of west→east) with its interpolated time and point", () => {
    const crossing = segmentCrossing(timed(100, -30, 1_000), timed(100, 10, 11_000), west, east);
    expect(crossing).not.toBeNull();
    expect(crossing!.fromSide).toBe("right");
    expect(crossing!.atMs).toBeCloseTo(8_500, 0);
    expect(haversineDistanceM(crossing!.point, at(100, 0))).toBeLessThan(0.01);
  });

  it("finds the crossing the other way, from the north (left)", () => {
    const crossing = segmentCrossing(timed(50, 20, 0), timed(70, -20, 4_000), west, east);
    expect(crossing!.fromSide).toBe("left");
    expect(crossing!.atMs).toBeCloseTo(2_000, 0);
    expect(haversineDistanceM(crossing!.point, at(60, 0))).toBeLessThan(0.01);
  });

  it("ignores a track that passes beyond the line's ends, runs along it or stays on one side", () => {
    expect(segmentCrossing(timed(250, -10, 0), timed(250, 10, 1_000), west, east)).toBeNull();
    expect(segmentCrossing(timed(-1, -10, 0), timed(-1, 10, 1_000), west, east)).toBeNull();
    expect(segmentCrossing(timed(10, 5, 0), timed(190, 5, 1_000), west, east)).toBeNull();
    expect(segmentCrossing(timed(10, -5, 0), timed(190, -50, 1_000), west, east)).toBeNull();
  });

  it("counts a track that stops on the line and goes on once, whichever way it goes", () => {
    const onLine = { ...at(100, 0), tMs: 1_000 };
    for (const [from, to] of [
      [timed(100, -10, 0), timed(100, 10, 2_000)],
      [timed(100, 10, 0), timed(100, -10, 2_000)],
    ] as const) {
      const crossings = [segmentCrossing(from, onLine, west, east), segmentCrossing(onLine, to, west, east)];
      expect(crossings.filter((c) => c !== null)).toHaveLength(1);
    }
  });
});
