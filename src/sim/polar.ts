// The simulated boats' speed: a polar-ish curve of boat speed over true wind angle and
// true wind speed, with the upwind and downwind angles the boats steer to.

/** Close-hauled true wind angle: the best upwind VMG of a small keelboat. */
export const UPWIND_TWA_DEG = 42;
/** Running true wind angle: boats gybe downwind at ~150 degrees rather than dead downwind. */
export const DOWNWIND_TWA_DEG = 150;

export const KNOTS_TO_MS = 1852 / 3600;

/** Speed close-hauled, knots: ~5 kn in light air to ~7 kn when powered up. */
export function upwindSpeedKn(twsKn: number): number {
  return clamp(2.9 + 0.28 * twsKn, 3.5, 7.2);
}

/** Speed at the running angle, knots: grows faster with the breeze than upwind speed does. */
export function downwindSpeedKn(twsKn: number): number {
  return clamp(1.6 + 0.52 * twsKn, 4, 10.5);
}

/**
 * Boat speed in knots at `twaDeg` (0-180, either tack). Below the close-hauled angle the
 * sails luff and speed falls away; a floor of 1 kn stands for momentum while shooting
 * head to wind at a mark, so a boat never stalls for good.
 */
export function boatSpeedKn(twaDeg: number, twsKn: number): number {
  const up = upwindSpeedKn(twsKn);
  if (twaDeg < UPWIND_TWA_DEG) {
    // Pinching: speed drops steeply below ~35 degrees.
    const x = twaDeg / UPWIND_TWA_DEG;
    return Math.max(1, up * x * x * x);
  }
  const down = downwindSpeedKn(twsKn);
  const reach = 1.12 * Math.max(up, down);
  if (twaDeg < 90) return up + ((reach - up) * (twaDeg - UPWIND_TWA_DEG)) / (90 - UPWIND_TWA_DEG);
  if (twaDeg < DOWNWIND_TWA_DEG) return reach + ((down - reach) * (twaDeg - 90)) / (DOWNWIND_TWA_DEG - 90);
  // Dead downwind is slower than the running angle, which is why boats gybe.
  return down * (1 - (0.15 * (twaDeg - DOWNWIND_TWA_DEG)) / (180 - DOWNWIND_TWA_DEG));
}

/** Velocity made good upwind, metres per second. */
export function upwindVmgMs(twsKn: number): number {
  return upwindSpeedKn(twsKn) * Math.cos((UPWIND_TWA_DEG * Math.PI) / 180) * KNOTS_TO_MS;
}

/** Velocity made good downwind, metres per second. */
export function downwindVmgMs(twsKn: number): number {
  return downwindSpeedKn(twsKn) * Math.cos(((180 - DOWNWIND_TWA_DEG) * Math.PI) / 180) * KNOTS_TO_MS;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
