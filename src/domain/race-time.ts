// The time rules every race endpoint shares: the delay cut-off and the capture window.

/** How long before the gun a start group's capture window opens. */
export const CAPTURE_BEFORE_GUN_MS = 5 * 60_000;
/** How long after the gun a start group's capture window closes. */
export const CAPTURE_AFTER_GUN_MS = 3 * 3600_000;

/** `dataAsOf`: nothing in an answer is newer than now minus the event's delay. */
export function dataAsOf(nowMs: number, delaySeconds: number): number {
  return nowMs - delaySeconds * 1000;
}

/** Half-open: [fromMs, untilMs), epoch ms, as every track page is. */
export interface CaptureWindow {
  /** Inclusive. */
  fromMs: number;
  /** Exclusive. */
  untilMs: number;
}

/**
 * A boat's capture window, the one rule for ingest, live, insights and track: from
 * gun - 5 min (inclusive) to gun + 3 h (exclusive), or to the boat's own finish
 * (inclusive: the fix at the line is its last) when that is earlier. Gun + 3 h is
 * left out because track pages are [since, until) and paging stops at the page whose
 * until reaches it: a fix at gun + 3 h would be live but on no page. Null while the
 * group has no gun time.
 */
export function captureWindow(gunMs: number | null, boatFinishMs: number | null = null): CaptureWindow | null {
  if (gunMs === null) return null;
  const closes = gunMs + CAPTURE_AFTER_GUN_MS;
  return { fromMs: gunMs - CAPTURE_BEFORE_GUN_MS, untilMs: boatFinishMs === null ? closes : Math.min(boatFinishMs + 1, closes) };
}

/** Whether a sample time lies in the window. */
export function inCaptureWindow(window: CaptureWindow, t: number): boolean {
  return t >= window.fromMs && t < window.untilMs;
}
