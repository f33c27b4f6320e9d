// The time rules every race endpoint shares: the delay cut-off and the capture window.

/** How long before the gun a start group's capture window opens. */
export const CAPTURE_BEFORE_GUN_MS = 5 * 60_000;
/** How long after the gun a start group's capture window closes. */
export const CAPTURE_AFTER_GUN_MS = 3 * 3600_000;

/** `dataAsOf`: nothing in an answer is newer than now minus the event's delay. */
export function dataAsOf(nowMs: number, delaySeconds: number): number {
  return nowMs - delaySeconds * 1000;
}

export interface CaptureWindow {
  /** Inclusive, epoch ms. */
  fromMs: number;
  /** Inclusive, epoch ms. */
  toMs: number;
}

/**
 * A boat's capture window: gun - 5 min to gun + 3 h, or to the boat's own finish when
 * it finished earlier. Null while the group has no gun time.
 */
export function captureWindow(gunMs: number | null, boatFinishMs: number | null = null): CaptureWindow | null {
  if (gunMs === null) return null;
  const closes = gunMs + CAPTURE_AFTER_GUN_MS;
  return { fromMs: gunMs - CAPTURE_BEFORE_GUN_MS, toMs: boatFinishMs === null ? closes : Math.min(boatFinishMs, closes) };
}
