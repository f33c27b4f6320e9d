import { describe, expect, it } from "vitest";
import type { Fix } from "../../../src/domain/analytics/kinematics.js";
import {
  HEADING_SPAN_MS,
  LONGEST_TURN_MS,
  LOSS_WINDOW_MS,
  type Manoeuvre,
  ManoeuvreDetector,
} from "../../../src/domain/analytics/manoeuvres.js";
import { haversineDistanceM } from "../../../src/domain/geo.js";
import { origin, sail, trackThrough, withNoise } from "./tracks.js";

const NORTHERLY = { twdDeg: 0, axisDeg: 0 };

function detect(fixes: readonly Fix[], wind = NORTHERLY): Manoeuvre[] {
  const detector = new ManoeuvreDetector();
  return fixes.flatMap((fix) => detector.consume(fix, wind));
}

describe("ManoeuvreDetector", () => {
  it("finds a tack: the bow through the wind from port to starboard, at the moment it crossed", () => {
    // Close-hauled on port (COG 045, TWA -45) for 60 s, a 90° turn to port in 6 s, 60 s on starboard.
    const found = detect(
      sail(45, [
        { seconds: 60, speedKn: 6 },
        { seconds: 6, speedKn: 5, turnDeg: -90 },
        { seconds: 60, speedKn: 6 },
      ]),
    );
    expect(found).toHaveLength(1);
    const tack = found[0]!;
    expect(tack.kind).toBe("tack");
    expect(Math.abs(tack.atMs - 63_000)).toBeLessThanOrEqual(2_000);
    expect(tack.cogBeforeDeg).toBeCloseTo(45, -1);
    expect(tack.cogAfterDeg).toBeCloseTo(315, -1);
    expect(tack.durationSeconds).toBeGreaterThan(2);
    expect(tack.durationSeconds).toBeLessThan(15);
  });

  it("finds a gybe: the stern through the wind, both sides downwind", () => {
    const found = detect(
      sail(150, [
        { seconds: 60, speedKn: 7 },
        { seconds: 5, speedKn: 7, turnDeg: 60 },
        { seconds: 60, speedKn: 7 },
      ]),
    );
    expect(found.map((m) => m.kind)).toEqual(["gybe"]);
    expect(Math.abs(found[0]!.atMs - 62_500)).toBeLessThanOrEqual(2_000);
    expect(found[0]!.cogAfterDeg).toBeCloseTo(210, -1);
  });

  it("counts each of a series of tacks", () => {
    const legs = [{ seconds: 45, speedKn: 6 }];
    for (let i = 0; i < 4; i++)
      legs.push({ seconds: 6, speedKn: 5, turnDeg: i % 2 === 0 ? -90 : 90 } as never, { seconds: 45, speedKn: 6 });
    const found = detect(sail(45, legs));
    expect(found.map((m) => m.kind)).toEqual(["tack", "tack", "tack", "tack"]);
  });

  it("reports a 360 as one penalty turn at its start, not as the tack and gybe inside it", () => {
    const found = detect(
      sail(45, [
        { seconds: 60, speedKn: 5 },
        { seconds: 20, speedKn: 4, turnDeg: -360 },
        { seconds: 60, speedKn: 5 },
      ]),
    );
    expect(found.map((m) => m.kind)).toEqual(["penaltyTurn"]);
    expect(Math.abs(found[0]!.atMs - 60_000)).toBeLessThanOrEqual(3_000);
    expect(found[0]!.durationSeconds).toBeGreaterThan(15);
  });

  it("does not make a penalty turn of a slow circle taking more than 60 s", () => {
    const found = detect(
      sail(45, [
        { seconds: 60, speedKn: 5 },
        { seconds: 100, speedKn: 4, turnDeg: -360 },
        { seconds: 60, speedKn: 5 },
      ]),
    );
    expect(found.map((m) => m.kind)).not.toContain("penaltyTurn");
  });

  it("counts no manoeuvre from GPS noise in a straight line, close-hauled or dead downwind", () => {
    for (const [course, seed] of [
      [45, 1],
      [180, 2],
      [0, 3],
    ] as const) {
      expect(detect(withNoise(sail(course, [{ seconds: 600, speedKn: 5 }]), 3, seed))).toEqual([]);
    }
  });

  it("counts no manoeuvre from GPS noise at anchor", () => {
    const anchored = trackThrough([
      [0, 0, 0],
      [1800, 0, 0],
    ]);
    for (let seed = 1; seed <= 5; seed++) expect(detect(withNoise(anchored, 5, seed))).toEqual([]);
  });

  it("holds a few minutes of fixes for a boat stopped for an hour after sailing steadily, not the hour", () => {
    const detector = new ManoeuvreDetector();
    const stopped = sail(45, [
      { seconds: 120, speedKn: 6 },
      { seconds: 3600, speedKn: 0 },
    ]);
    let most = 0;
    for (const fix of stopped) {
      detector.consume(fix, NORTHERLY);
      most = Math.max(most, detector.heldFixes);
    }
    // The longest turn, its loss window and two heading spans: about 3 min 40 s of 1 Hz fixes.
    expect(most).toBeLessThan((LONGEST_TURN_MS + LOSS_WINDOW_MS + 4 * HEADING_SPAN_MS) / 1000);
    expect(stopped.length).toBeGreaterThan(3600);
  });

  it("still finds tacks and gybes through 3 m of GPS noise", () => {
    for (let seed = 1; seed <= 5; seed++) {
      const tacks = sail(45, [
        { seconds: 60, speedKn: 6 },
        { seconds: 6, speedKn: 5, turnDeg: -90 },
        { seconds: 60, speedKn: 6 },
      ]);
      const tack = detect(withNoise(tacks, 3, seed));
      expect(tack.map((m) => m.kind)).toEqual(["tack"]);
      expect(Math.abs(tack[0]!.atMs - 63_000)).toBeLessThanOrEqual(5_000);
      const gybes = sail(150, [
        { seconds: 60, speedKn: 7 },
        { seconds: 5, speedKn: 7, turnDeg: 60 },
        { seconds: 60, speedKn: 7 },
      ]);
      expect(detect(withNoise(gybes, 3, seed + 100)).map((m) => m.kind)).toEqual(["gybe"]);
    }
  });

  it("takes the loss as the distance up the wind axis the boat fell short of its VMG before the turn", () => {
    // 6 kn at COG 045 (VMG 4.24 kn), a tack that stalls to 1 kn, 10 s at 3 kn, then 6 kn again.
    const fixes = sail(45, [
      { seconds: 60, speedKn: 6 },
      { seconds: 6, speedKn: 1, turnDeg: -90 },
      { seconds: 10, speedKn: 3 },
      { seconds: 60, speedKn: 6 },
    ]);
    const tack = detect(fixes)[0]!;
    expect(tack.kind).toBe("tack");
    // At the VMG before (6 kn × cos 45 = 2.18 m/s) the boat would have made 2.18 m/s over
    // the window; it made about 2.8 m in the 6 s turn (1 kn, mean cos 0.9) and 10.9 m in
    // the 10 s at 3 kn (cos 45), then full VMG again: 16 s × 2.18 - 13.7 = 21.2 m lost,
    // whatever the exact ends of the window, as long as it holds the slow part. Headings
    // find the start of a turn made at a crawl a few seconds late (the chord is still the
    // fast part's), which leaves a few metres of the slow turn out: hence the 5 m.
    expect(tack.lossM!).toBeGreaterThan(21.2 - 5);
    expect(tack.lossM!).toBeLessThan(21.2 + 5);
  });

  it("reports a manoeuvre's position where the bow crossed the wind", () => {
    const fixes = sail(45, [
      { seconds: 60, speedKn: 6 },
      { seconds: 6, speedKn: 5, turnDeg: -90 },
      { seconds: 60, speedKn: 6 },
    ]);
    const tack = detect(fixes)[0]!;
    const at63 = fixes.find((f) => f.tMs === 63_000)!;
    expect(haversineDistanceM(tack, at63)).toBeLessThan(10);
    expect(haversineDistanceM(tack, origin)).toBeGreaterThan(150);
  });
});
