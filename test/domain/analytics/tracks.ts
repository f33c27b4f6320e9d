// Synthetic tracks for the analytics' unit tests: a boat sailing straight between
// waypoints on the local plane of one origin, one fix a second.

import type { Fix } from "../../../src/domain/analytics/kinematics.js";
import { offsetByMetres } from "../../../src/domain/geo.js";

export const origin = { lat: 50.77, lon: -1.3 };

export const at = (eastM: number, northM: number) => offsetByMetres(origin, eastM, northM);
export const mark = (key: string, eastM: number, northM: number) => ({ key, ...at(eastM, northM) });

/** Waypoints [seconds, east m, north m]; a fix every whole second from the first to the last. */
export function trackThrough(waypoints: readonly (readonly [number, number, number])[]): Fix[] {
  const fixes: Fix[] = [];
  for (let i = 0; i + 1 < waypoints.length; i++) {
    const [t0, e0, n0] = waypoints[i]!;
    const [t1, e1, n1] = waypoints[i + 1]!;
    const last = i + 2 === waypoints.length;
    for (let t = Math.ceil(t0); last ? t <= t1 : t < t1; t++) {
      const f = (t - t0) / (t1 - t0);
      fixes.push({ ...at(e0 + (e1 - e0) * f, n0 + (n1 - n0) * f), tMs: t * 1000 });
    }
  }
  return fixes;
}

export interface Course {
  seconds: number;
  speedKn: number;
  /** Degrees turned over the stretch, + clockwise; 0 sails straight. */
  turnDeg?: number;
}

/** A boat starting at the origin on `headingDeg`, sailing the stretches in turn; a fix every whole second. */
export function sail(headingDeg: number, stretches: readonly Course[], startSeconds = 0): Fix[] {
  const STEP = 0.05;
  let east = 0;
  let north = 0;
  let heading = headingDeg;
  let t = 0;
  const fixes: Fix[] = [{ ...at(0, 0), tMs: startSeconds * 1000 }];
  for (const { seconds, speedKn, turnDeg = 0 } of stretches) {
    const steps = Math.round(seconds / STEP);
    for (let i = 0; i < steps; i++) {
      heading += (turnDeg / steps) * 0.5;
      const v = speedKn * (1852 / 3600) * STEP;
      east += v * Math.sin((heading * Math.PI) / 180);
      north += v * Math.cos((heading * Math.PI) / 180);
      heading += (turnDeg / steps) * 0.5;
      t = Math.round((t + STEP) * 1e6) / 1e6;
      if (Number.isInteger(t)) fixes.push({ ...at(east, north), tMs: (startSeconds + t) * 1000 });
    }
  }
  return fixes;
}

/** A seeded PRNG (mulberry32), so noisy tracks are the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** Moves each fix by GPS-like noise: uniform in a disc of `radiusM`. */
export function withNoise(fixes: readonly Fix[], radiusM: number, seed: number): Fix[] {
  const random = seededRandom(seed);
  return fixes.map((fix) => {
    const r = radiusM * Math.sqrt(random());
    const a = 2 * Math.PI * random();
    return { ...offsetByMetres(fix, r * Math.sin(a), r * Math.cos(a)), tMs: fix.tMs };
  });
}
