// What an ingested batch of GPS fixes must look like, and which of its fixes may be
// written: the shape rules that refuse the whole batch (INVALID_ARGUMENT naming the
// field) and the per-fix rules that refuse one fix with its reason. Pure: times are
// epoch ms, the stored state comes in as arguments.

import { CAPTURE_BEFORE_GUN_MS, captureWindow, dataAsOf, inCaptureWindow } from "./race-time.js";
import { settledEdge } from "./track-window.js";
import { isUuid } from "./uuid.js";

/** Most boats and fixes one request may carry: about 3 minutes of 100 boats at 1 Hz. */
export const MAX_BOATS_PER_BATCH = 1000;
export const MAX_FIXES_PER_BATCH = 20_000;
/**
 * Most fixes one LoadRecordedTracks call may carry: a boat at 1 Hz for 27 hours, or 10
 * boats for 2.7 hours; as protobuf about 4 MB, under the 8 MiB message limit.
 */
export const MAX_RECORDED_FIXES = 100_000;
/** How far a sample time may lie ahead of the server's clock (phone clocks drift). */
export const FUTURE_TOLERANCE_MS = 5000;
/**
 * How much earlier than the settled edge a late fix is already refused. It covers the
 * time from the check to the end of the commit on the primary: up to COMMIT_DEADLINE_MS
 * to reach COMMIT, then the commit itself (COMMIT_ALLOWANCE_MS), and clock differences
 * between instances (CLOCK_SKEW_ALLOWANCE_MS), so no reader of the primary can have
 * served the window as immutable before the fix became visible. What a writer cannot
 * bound, the reader holds: a replica's lag and a just-shortened delay (readerSlackMs,
 * track-window.ts). docs/decisions.md, "Device data, locks and the margin".
 */
export const SETTLED_MARGIN_MS = 10_000;
/** A write checked against the settled edge that is not ready to commit within this long after its checks is rolled back. */
export const COMMIT_DEADLINE_MS = 5000;
/** The time a commit may take (a redo log write and flush: milliseconds). It cannot be undone once sent, so this is an allowance, not a check. */
export const COMMIT_ALLOWANCE_MS = 3000;
/** The largest clock difference between two instances (NTP keeps them within milliseconds). */
export const CLOCK_SKEW_ALLOWANCE_MS = 2000;
/** How long readers keep a shortened delay's old settled edge: until every batch checked under it has committed. */
export const DELAY_HOLD_MS = COMMIT_DEADLINE_MS + SETTLED_MARGIN_MS;
export const MAX_SOG_KN = 100;
/** Sample times must be real dates: 0 (1970) up to JavaScript's last date. */
const MAX_T = 8.64e15;

export type FixRejection = "UNKNOWN_ENTRY" | "OUT_OF_RANGE" | "OUTSIDE_CAPTURE_WINDOW" | "IN_FUTURE" | "WINDOW_SETTLED" | "CONFLICT";

/** One boat's part of a batch, as the request carries it. */
export interface BoatFixesInput {
  entryId: string;
  t: readonly bigint[];
  lat: readonly number[];
  lon: readonly number[];
  sogKn: readonly number[];
  cogDeg: readonly number[];
  accuracyM: readonly number[];
}

/**
 * The first field that makes the batch malformed, in Connect JSON spelling
 * (`boats[2].t[17]`), or null. Checked: sizes, UUIDs, an entry twice, array lengths,
 * t a real epoch-ms time and strictly ascending.
 */
export function malformedField(boats: readonly BoatFixesInput[], maxFixes = MAX_FIXES_PER_BATCH): string | null {
  if (boats.length > MAX_BOATS_PER_BATCH) return "boats";
  let fixes = 0;
  const entries = new Set<string>();
  for (const [i, boat] of boats.entries()) {
    const at = `boats[${i}]`;
    if (!isUuid(boat.entryId) || entries.has(boat.entryId.toLowerCase())) return `${at}.entryId`;
    entries.add(boat.entryId.toLowerCase());
    const n = boat.t.length;
    fixes += n;
    if (fixes > maxFixes) return "boats";
    if (boat.lat.length !== n) return `${at}.lat`;
    if (boat.lon.length !== n) return `${at}.lon`;
    // Optional columns: empty (none reported) or one per fix.
    if (boat.sogKn.length !== 0 && boat.sogKn.length !== n) return `${at}.sogKn`;
    if (boat.cogDeg.length !== 0 && boat.cogDeg.length !== n) return `${at}.cogDeg`;
    if (boat.accuracyM.length !== 0 && boat.accuracyM.length !== n) return `${at}.accuracyM`;
    for (let k = 0; k < n; k++) {
      const t = boat.t[k]!;
      if (t < 0n || t > BigInt(MAX_T) || (k > 0 && t <= boat.t[k - 1]!)) return `${at}.t[${k}]`;
    }
  }
  return null;
}

/** Whether a fix's position, speed and course are real values in range; NaN speed or course is "not reported". */
export function inRange(lat: number, lon: number, sogKn: number, cogDeg: number): boolean {
  if (!(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180)) return false;
  if (!Number.isNaN(sogKn) && !(sogKn >= 0 && sogKn <= MAX_SOG_KN)) return false;
  return Number.isNaN(cogDeg) || (cogDeg >= 0 && cogDeg < 360);
}

/**
 * The earliest sample time a fix may still have: a track window ending at least 2
 * minutes before the delayed cut-off is served as immutable, so nothing before that
 * edge (less the margin, and never before an edge an earlier, shorter delay had
 * reached: `floorMs`) may be written any more.
 */
export function settledBefore(nowMs: number, delaySeconds: number, floorMs: number | null): number {
  const edge = settledEdge(dataAsOf(nowMs, delaySeconds)) + SETTLED_MARGIN_MS;
  return floorMs === null ? edge : Math.max(edge, floorMs + SETTLED_MARGIN_MS);
}

/** The settled edge of an event whose tracks were never readable: no window is settled. */
export const NOTHING_SETTLED = Number.NEGATIVE_INFINITY;

/**
 * Whether a group's gun may become `gunMs`: a gun set, moved or cleared changes the
 * capture window, so it may not change once the old window reaches into track windows
 * that may have been served as immutable (before `settledBeforeMs`). Without a gun no
 * window is immutable, so the first gun may be set anywhere.
 */
export function gunMayChange(storedGunMs: number | null, gunMs: number | null, settledBeforeMs: number): boolean {
  if (storedGunMs === null || storedGunMs === gunMs) return true;
  return storedGunMs - CAPTURE_BEFORE_GUN_MS >= settledBeforeMs;
}

/** What a fix is checked against besides itself. */
export interface FixContext {
  nowMs: number;
  /** Fixes before it are WINDOW_SETTLED; NOTHING_SETTLED for an event nobody could read yet. */
  settledBeforeMs: number;
  /** Null while the group has no gun: the capture window is not known yet. */
  gunMs: number | null;
}

/**
 * Why a fix of a known entry, in range and not already stored, may not be written;
 * null when it may. `boatFinishMs` is the boat's earliest phone finish.
 */
export function timeRejection(t: number, context: FixContext, boatFinishMs: number | null): FixRejection | null {
  if (t > context.nowMs + FUTURE_TOLERANCE_MS) return "IN_FUTURE";
  if (t < context.settledBeforeMs) return "WINDOW_SETTLED";
  const window = captureWindow(context.gunMs, boatFinishMs);
  if (window !== null && !inCaptureWindow(window, t)) return "OUTSIDE_CAPTURE_WINDOW";
  return null;
}

/** Optional values as stored: NaN (not reported) and infinities become null. */
export function storedNumber(value: number | undefined): number | null {
  return value === undefined || !Number.isFinite(value) ? null : value;
}
