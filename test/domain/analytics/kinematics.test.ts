import { describe, expect, it } from "vitest";
import {
  dropOlder,
  type Fix,
  JumpFilter,
  KNOT_M_PER_S,
  speedBetweenKn,
  trueWindAngleDeg,
  velocityOver,
  vmgAlongKn,
} from "../../../src/domain/analytics/kinematics.js";
import { offsetByMetres } from "../../../src/domain/geo.js";

const origin = { lat: 50.77, lon: -1.3 };
const fixAt = (tSeconds: number, eastM: number, northM: number): Fix => ({
  ...offsetByMetres(origin, eastM, northM),
  tMs: tSeconds * 1000,
});

/** A boat sailing `speedKn` on `courseDeg`, one fix a second. */
function straightTrack(seconds: number, speedKn: number, courseDeg: number): Fix[] {
  const v = speedKn * KNOT_M_PER_S;
  const rad = (courseDeg * Math.PI) / 180;
  return Array.from({ length: seconds + 1 }, (_, t) => fixAt(t, v * t * Math.sin(rad), v * t * Math.cos(rad)));
}

function keptBy(filter: JumpFilter, fixes: Fix[]): Fix[] {
  return fixes.map((fix) => filter.push(fix)).filter((fix): fix is Fix => fix !== null);
}

describe("dropOlder", () => {
  const window = (...seconds: number[]) => seconds.map((s) => ({ tMs: s * 1000 }));

  it("drops, in place, the entries before the first at or after the time", () => {
    const entries = window(1, 2, 3, 4);
    dropOlder(entries, 2500);
    expect(entries).toEqual(window(3, 4));
    dropOlder(entries, 3000);
    expect(entries).toEqual(window(3, 4));
  });

  it("keeps the newest `keepBefore` of the older entries", () => {
    const entries = window(1, 2, 3, 4, 5);
    dropOlder(entries, 4000, 1);
    expect(entries).toEqual(window(3, 4, 5));
    dropOlder(entries, 3000, 1);
    expect(entries).toEqual(window(3, 4, 5));
  });

  it("drops nothing when no entry is that new, or the window is empty", () => {
    const entries = window(1, 2);
    dropOlder(entries, 9000);
    expect(entries).toEqual(window(1, 2));
    const empty: { tMs: number }[] = [];
    dropOlder(empty, 0);
    expect(empty).toEqual([]);
  });
});

describe("speedBetweenKn", () => {
  it("turns metres per second into knots", () => {
    expect(speedBetweenKn(fixAt(0, 0, 0), fixAt(10, 0, 1852 / 360))).toBeCloseTo(1, 3);
    expect(speedBetweenKn(fixAt(0, 0, 0), fixAt(0, 0, 5))).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("JumpFilter", () => {
  it("leaves out a fix that needs more than 50 kn from both neighbours, and counts it", () => {
    const track = straightTrack(10, 6, 0);
    track[5] = fixAt(5, 500, 15);
    const filter = new JumpFilter();
    const kept = keptBy(filter, track);
    expect(filter.ignored).toBe(1);
    expect(kept.map((fix) => fix.tMs / 1000)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9]);
    expect(filter.pending!.tMs).toBe(10_000);
  });

  it("keeps every fix of a fast but possible track (45 kn)", () => {
    const filter = new JumpFilter();
    expect(keptBy(filter, straightTrack(20, 45, 120))).toHaveLength(20);
    expect(filter.ignored).toBe(0);
  });

  it("leaves out a wild first fix, judged against the only neighbour it has", () => {
    const track = straightTrack(5, 6, 90);
    track[0] = fixAt(0, -3000, 0);
    const filter = new JumpFilter();
    expect(keptBy(filter, track).map((fix) => fix.tMs / 1000)).toEqual([1, 2, 3, 4]);
    expect(filter.ignored).toBe(1);
  });

  it("takes its maximum speed from the event", () => {
    const filter = new JumpFilter(5);
    keptBy(filter, straightTrack(5, 6, 0));
    expect(filter.ignored).toBeGreaterThan(0);
  });

  it("drops repeated and out-of-order fixes without counting them as jumps", () => {
    const track = straightTrack(4, 6, 0);
    const filter = new JumpFilter();
    const kept = keptBy(filter, [track[0]!, track[1]!, track[1]!, track[0]!, track[2]!, track[3]!]);
    expect(kept.map((fix) => fix.tMs / 1000)).toEqual([0, 1, 2]);
    expect(filter.ignored).toBe(0);
  });
});

describe("velocityOver", () => {
  it("gives speed and course from the positions of the last 10 seconds", () => {
    const v = velocityOver(straightTrack(30, 6, 45))!;
    expect(v.sogKn).toBeCloseTo(6, 2);
    expect(v.cogDeg!).toBeCloseTo(45, 1);
  });

  it("looks only at the window: a boat that turned 8 s ago shows the new course", () => {
    const north = straightTrack(20, 6, 0);
    const last = north.at(-1)!;
    const v = 6 * KNOT_M_PER_S;
    const east = Array.from({ length: 12 }, (_, i) => ({ ...offsetByMetres(last, v * (i + 1), 0), tMs: last.tMs + (i + 1) * 1000 }));
    expect(velocityOver([...north, ...east])!.cogDeg!).toBeCloseTo(90, 1);
  });

  it("has no velocity from one fix, and no course at anchor", () => {
    expect(velocityOver([fixAt(0, 0, 0)])).toBeNull();
    expect(velocityOver([fixAt(0, 0, 0), fixAt(5, 0, 0)])).toEqual({ sogKn: 0, cogDeg: null });
  });
});

describe("vmgAlongKn", () => {
  it("projects the velocity on the axis", () => {
    expect(vmgAlongKn({ sogKn: 6, cogDeg: 45 }, 0)).toBeCloseTo(6 * Math.SQRT1_2, 6);
    expect(vmgAlongKn({ sogKn: 6, cogDeg: 180 }, 0)).toBeCloseTo(-6, 6);
    expect(vmgAlongKn({ sogKn: 0, cogDeg: null }, 0)).toBe(0);
  });
});

describe("trueWindAngleDeg", () => {
  it("follows the contract's sign: COG 045 in a northerly is -45 (port tack)", () => {
    expect(trueWindAngleDeg(0, 45)).toBe(-45);
    expect(trueWindAngleDeg(0, 315)).toBe(45);
    expect(trueWindAngleDeg(350, 20)).toBe(-30);
    expect(trueWindAngleDeg(10, 200)).toBe(170);
    expect(trueWindAngleDeg(0, 180)).toBe(180);
  });
});
