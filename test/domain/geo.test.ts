import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  angleDifferenceDegrees,
  destinationPoint,
  haversineDistanceM,
  initialBearingDeg,
  localOffsetM,
  normalizeDegrees,
  offsetByMetres,
  planeDistanceM,
} from "../../src/domain/geo.js";

const solent = { lat: 50.77, lon: -1.3 };

describe("haversineDistanceM", () => {
  it("makes one minute of latitude about one nautical mile", () => {
    const d = haversineDistanceM({ lat: 50, lon: -1.3 }, { lat: 50 + 1 / 60, lon: -1.3 });
    expect(d).toBeGreaterThan(1852 * 0.999);
    expect(d).toBeLessThan(1852 * 1.002);
  });

  it("matches a published great-circle distance (Land's End to John o' Groats, ~968.9 km)", () => {
    const d = haversineDistanceM({ lat: 50.06639, lon: -5.71472 }, { lat: 58.64389, lon: -3.07 });
    expect(d / 1000).toBeCloseTo(968.9, 0);
  });

  it("is zero for the same point and symmetric", () => {
    const b = { lat: 50.8, lon: -1.25 };
    expect(haversineDistanceM(solent, solent)).toBe(0);
    expect(haversineDistanceM(solent, b)).toBeCloseTo(haversineDistanceM(b, solent), 9);
  });
});

describe("planeDistanceM", () => {
  const SEED = 20261126;
  /** A point anywhere up to 70° from the equator, and one `distanceM` from it on any bearing (across the antimeridian too). */
  const pairAt = (distanceM: fc.Arbitrary<number>) =>
    fc
      .tuple(
        fc.double({ min: -70, max: 70, noNaN: true }),
        fc.double({ min: -180, max: 179.999, noNaN: true }),
        fc.double({ min: 0, max: 359.999, noNaN: true }),
        distanceM,
      )
      .map(([lat, lon, bearing, d]) => ({ a: { lat, lon }, b: destinationPoint({ lat, lon }, bearing, d) }));

  it("agrees with haversine within 1e-10 of the distance over the chords between fixes (up to 50 m)", () => {
    fc.assert(
      fc.property(pairAt(fc.double({ min: 0.01, max: 50, noNaN: true })), ({ a, b }) => {
        const exact = haversineDistanceM(a, b);
        expect(Math.abs(planeDistanceM(a, b) - exact)).toBeLessThanOrEqual(1e-10 * exact + 1e-12);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("agrees with haversine within 3e-7 of the distance up to 5 km (a mark across the course)", () => {
    fc.assert(
      fc.property(pairAt(fc.double({ min: 50, max: 5000, noNaN: true })), ({ a, b }) => {
        const exact = haversineDistanceM(a, b);
        expect(Math.abs(planeDistanceM(a, b) - exact)).toBeLessThanOrEqual(3e-7 * exact);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("is zero for the same point, symmetric, and goes the short way across the antimeridian", () => {
    const b = { lat: 50.8, lon: -1.25 };
    expect(planeDistanceM(solent, solent)).toBe(0);
    expect(planeDistanceM(solent, b)).toBe(planeDistanceM(b, solent));
    const east = { lat: -41, lon: 179.9999 };
    const west = { lat: -41, lon: -179.9999 };
    expect(planeDistanceM(east, west)).toBeCloseTo(haversineDistanceM(east, west), 6);
    expect(planeDistanceM(east, west)).toBeLessThan(20);
  });
});

describe("initialBearingDeg", () => {
  it("matches a published initial bearing (Land's End to John o' Groats, 009°07′11″)", () => {
    const bearing = initialBearingDeg({ lat: 50.06639, lon: -5.71472 }, { lat: 58.64389, lon: -3.07 });
    expect(bearing).toBeCloseTo(9 + 7 / 60 + 11 / 3600, 1);
  });

  it("points north, east, south and west", () => {
    expect(initialBearingDeg(solent, { lat: 50.8, lon: -1.3 })).toBeCloseTo(0, 6);
    expect(initialBearingDeg({ lat: 0, lon: 0 }, { lat: 0, lon: 1 })).toBeCloseTo(90, 6);
    expect(initialBearingDeg(solent, { lat: 50.7, lon: -1.3 })).toBeCloseTo(180, 6);
    expect(initialBearingDeg({ lat: 0, lon: 0 }, { lat: 0, lon: -1 })).toBeCloseTo(270, 6);
  });
});

describe("destinationPoint", () => {
  it.each([0, 37, 135, 225, 318])("round-trips distance and bearing %i", (bearing) => {
    const to = destinationPoint(solent, bearing, 2500);
    expect(haversineDistanceM(solent, to)).toBeCloseTo(2500, 6);
    expect(angleDifferenceDegrees(bearing, initialBearingDeg(solent, to))).toBeCloseTo(0, 6);
  });

  it("keeps longitudes in [-180, 180) across the antimeridian", () => {
    const to = destinationPoint({ lat: 0, lon: 179.99 }, 90, 5000);
    expect(to.lon).toBeLessThan(-179.9);
  });
});

describe("local metre offsets", () => {
  it("round-trip and agree with haversine to well under a metre at course scale", () => {
    const p = offsetByMetres(solent, 1500, -2000);
    const back = localOffsetM(solent, p);
    expect(back.eastM).toBeCloseTo(1500, 6);
    expect(back.northM).toBeCloseTo(-2000, 6);
    expect(Math.abs(haversineDistanceM(solent, p) - 2500)).toBeLessThan(0.5);
  });
});

describe("angles", () => {
  it("takes the short way round", () => {
    expect(angleDifferenceDegrees(350, 10)).toBe(20);
    expect(angleDifferenceDegrees(10, 350)).toBe(-20);
    expect(angleDifferenceDegrees(0, 180)).toBe(180);
    expect(normalizeDegrees(-10)).toBe(350);
    expect(normalizeDegrees(725)).toBe(5);
  });
});
