// Course geometry at race-course scale: displacements projected on an axis (the wind
// axis or a leg's rhumb line), the nearest point of a line segment (a start, finish or
// gate line) and the crossing of such a line by a track segment, with its time and side.
//
// Each computation works on the local tangent plane around one of its own points
// (src/domain/geo.ts's localOffsetM): over the few kilometres of a course that matches
// great-circle figures to about a metre, far inside phone GPS noise.

import { angleDifferenceDegrees, type LatLon, localOffsetM, offsetByMetres, toRadians } from "../geo.js";

/** The metres a displacement from `from` to `to` covers along `bearingDeg` (negative when it goes the other way). */
export function displacementAlongM(from: LatLon, to: LatLon, bearingDeg: number): number {
  const { eastM, northM } = localOffsetM(from, to);
  const b = toRadians(bearingDeg);
  return eastM * Math.sin(b) + northM * Math.cos(b);
}

/** The point halfway along a short segment (a line's or a gate's midpoint). */
export function midpoint(a: LatLon, b: LatLon): LatLon {
  const { eastM, northM } = localOffsetM(a, b);
  return offsetByMetres(a, eastM / 2, northM / 2);
}

/**
 * A point placed `fraction` of the way from a to b (0 at a, 1 at b) on the local plane:
 * there that is the same fraction of the latitude and longitude differences, so no
 * metres are needed.
 */
export function interpolate(a: LatLon, b: LatLon, fraction: number): LatLon {
  return { lat: a.lat + (b.lat - a.lat) * fraction, lon: a.lon + angleDifferenceDegrees(a.lon, b.lon) * fraction };
}

export interface NearestPoint {
  point: LatLon;
  distanceM: number;
  /** Where the nearest point lies on the segment: 0 at its first end, 1 at its second. */
  fraction: number;
}

/** The point of segment a-b nearest to `p`, and how far `p` is from it. */
export function nearestPointOnSegment(p: LatLon, a: LatLon, b: LatLon): NearestPoint {
  const ab = localOffsetM(a, b);
  const ap = localOffsetM(a, p);
  const lengthSq = ab.eastM * ab.eastM + ab.northM * ab.northM;
  const raw = lengthSq === 0 ? 0 : (ap.eastM * ab.eastM + ap.northM * ab.northM) / lengthSq;
  const fraction = Math.min(1, Math.max(0, raw));
  const dx = ap.eastM - ab.eastM * fraction;
  const dy = ap.northM - ab.northM * fraction;
  return { point: offsetByMetres(a, ab.eastM * fraction, ab.northM * fraction), distanceM: Math.hypot(dx, dy), fraction };
}

/** Which side of the directed line a→b a point lies on, looking from a toward b; "on" exactly on it. */
export type LineSide = "left" | "right" | "on";

export function sideOfLine(p: LatLon, a: LatLon, b: LatLon): LineSide {
  const cross = crossOf(localOffsetM(a, b), localOffsetM(a, p));
  return cross > 0 ? "left" : cross < 0 ? "right" : "on";
}

export interface TimedPoint extends LatLon {
  tMs: number;
}

export interface LineCrossing {
  /** Interpolated between the two fixes either side. */
  atMs: number;
  point: LatLon;
  /** The side of a→b the track came from. */
  fromSide: "left" | "right";
}

/**
 * Where the track segment p→q crosses the line segment a-b, or null when it does not.
 * A point exactly on the line counts as on its left, so a track that stops on the line
 * and goes on crosses it once, not twice.
 */
export function segmentCrossing(p: TimedPoint, q: TimedPoint, a: LatLon, b: LatLon): LineCrossing | null {
  const ab = localOffsetM(a, b);
  const ap = localOffsetM(a, p);
  const aq = localOffsetM(a, q);
  const sideP = crossOf(ab, ap);
  const sideQ = crossOf(ab, aq);
  if (sideP >= 0 === sideQ >= 0) return null;
  const t = sideP / (sideP - sideQ);
  const hitEast = ap.eastM + (aq.eastM - ap.eastM) * t;
  const hitNorth = ap.northM + (aq.northM - ap.northM) * t;
  const lengthSq = ab.eastM * ab.eastM + ab.northM * ab.northM;
  const along = lengthSq === 0 ? -1 : (hitEast * ab.eastM + hitNorth * ab.northM) / lengthSq;
  if (along < 0 || along > 1) return null;
  return {
    atMs: p.tMs + (q.tMs - p.tMs) * t,
    point: offsetByMetres(a, hitEast, hitNorth),
    fromSide: sideP >= 0 ? "left" : "right",
  };
}

function crossOf(u: { eastM: number; northM: number }, v: { eastM: number; northM: number }): number {
  return u.eastM * v.northM - u.northM * v.eastM;
}
