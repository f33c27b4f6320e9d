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
