// A boat's motion from its positions: the jump filter that leaves out fixes no boat could
// have reached, speed and course over the last 10 seconds, VMG along an axis and the true
// wind angle. Positions, not the phone's own SOG/COG, which may be missing.

import { angleDifferenceDegrees, haversineDistanceM, initialBearingDeg, type LatLon, planeDistanceM } from "../geo.js";

/** One GPS position at a time, milliseconds since the epoch. */
export interface Fix extends LatLon {
  tMs: number;
}

export const KNOT_M_PER_S = 1852 / 3600;
/** The contract's default maximum speed: a fix that needs more is a jump. */
export const DEFAULT_MAX_SPEED_KN = 50;
/** Speed and course (and so VMG) come from the positions over this window. */
export const VELOCITY_WINDOW_MS = 10_000;

/**
 * The speed in knots needed to go from a to b in the time between them; infinite when no
 * time passed but the position moved. On the local plane: the jump filter asks it twice
 * a fix, about neighbours metres apart (geo.ts's planeDistanceM).
 */
export function speedBetweenKn(a: Fix, b: Fix): number {
  const distanceM = planeDistanceM(a, b);
  const seconds = Math.abs(b.tMs - a.tMs) / 1000;
  if (seconds === 0) return distanceM === 0 ? 0 : Number.POSITIVE_INFINITY;
  return distanceM / seconds / KNOT_M_PER_S;
}

/**
 * Drops the entries of a time-ordered window older than its first entry at or after
 * `fromMs`, but the `keepBefore` newest of them; nothing when no entry is that new. In
 * place, with neither findIndex's closure nor splice's array of the removed: windows
 * slide by one fix a call, a million calls a race.
 */
export function dropOlder(window: { tMs: number }[], fromMs: number, keepBefore = 0): void {
  let first = 0;
  while (first < window.length && window[first]!.tMs < fromMs) first++;
  if (first === window.length) return;
  for (let i = keepBefore; i < first; i++) window.shift();
}

/**
 * The jump filter, fed one fix at a time in time order. A fix is judged when the next
 * one arrives: it is left out when it needs more than the maximum speed both from the
 * last fix kept and to the next fix (from its only neighbour at the track's start), so
 * one wild fix goes and the good fix after it stays. The newest fix waits as `pending`.
 */
export class JumpFilter {
  /** Fixes left out as jumps so far. */
  ignored = 0;
  private lastKept: Fix | null = null;
  private waiting: Fix | null = null;

  constructor(private readonly maxSpeedKn = DEFAULT_MAX_SPEED_KN) {}

  /** The newest fix, not judged yet (it needs its successor). */
  get pending(): Fix | null {
    return this.waiting;
  }

  /**
   * Takes the next fix; returns the previous one when it is kept, else null. A fix not
   * newer than the last one is a repeat or out of order: it is dropped, not counted.
   */
  push(fix: Fix): Fix | null {
    const previous = this.waiting;
    if (previous !== null && fix.tMs <= previous.tMs) return null;
    if (previous === null && this.lastKept !== null && fix.tMs <= this.lastKept.tMs) return null;
    this.waiting = fix;
    if (previous === null) return null;
    const tooFastToNext = speedBetweenKn(previous, fix) > this.maxSpeedKn;
    const tooFastFromLast = this.lastKept === null || speedBetweenKn(this.lastKept, previous) > this.maxSpeedKn;
    if (tooFastToNext && tooFastFromLast) {
      this.ignored++;
      return null;
    }
    this.lastKept = previous;
    return previous;
  }

  /** An independent copy: fixes are never changed in place, so they are shared. */
  clone(): JumpFilter {
    const copy = new JumpFilter(this.maxSpeedKn);
    copy.ignored = this.ignored;
    copy.lastKept = this.lastKept;
    copy.waiting = this.waiting;
    return copy;
  }
}

export interface Velocity {
  sogKn: number;
  /** Null when the boat has not moved over the window. */
  cogDeg: number | null;
}

/**
 * Speed and course over the window ending at `fixes[endIndex]` (the newest by default):
 * from the oldest fix inside the window to that one. Null with fewer than two fixes in it.
 * Scans back from the end only, so it costs the window, not the track.
 */
export function velocityOver(fixes: readonly Fix[], windowMs = VELOCITY_WINDOW_MS, endIndex = fixes.length - 1): Velocity | null {
  const end = fixes[endIndex];
  if (end === undefined) return null;
  let start = endIndex;
  while (start > 0 && fixes[start - 1]!.tMs >= end.tMs - windowMs) start--;
  if (start === endIndex) return null;
  const from = fixes[start]!;
  const distanceM = haversineDistanceM(from, end);
  const sogKn = distanceM / ((end.tMs - from.tMs) / 1000) / KNOT_M_PER_S;
  return { sogKn, cogDeg: distanceM === 0 ? null : initialBearingDeg(from, end) };
}

/** The component of a velocity along an axis (VMG toward the wind or the mark), knots. */
export function vmgAlongKn(velocity: Velocity, axisBearingDeg: number): number {
  if (velocity.cogDeg === null) return 0;
  return velocity.sogKn * Math.cos(((velocity.cogDeg - axisBearingDeg) * Math.PI) / 180);
}

/**
 * True wind angle: TWD minus COG in (-180, 180]. Negative with the wind over the port
 * side (port tack), positive over starboard: COG 045 in a northerly (TWD 0) is -45.
 */
export function trueWindAngleDeg(twdDeg: number, cogDeg: number): number {
  return angleDifferenceDegrees(cogDeg, twdDeg);
}
