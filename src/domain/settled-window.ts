// What a settled track window keeps: a window served as immutable must answer the same
// bytes for ever, so whatever it shows of a boat (whether the boat is there, its sail
// number and name, its points) may not change once a window holding one of the boat's
// points may have been served that way. Pure: which writes would break that; the
// callers read the stored state and name the field. Times are epoch ms.

import { captureWindow, type CaptureWindow } from "./race-time.js";

/** What decides whether anyone may read an event's tracks. */
export interface EventSharing {
  published: boolean;
  trackingShared: boolean;
  legacy: boolean;
}

/**
 * Whether clients may read the event's track windows (reads/race-access.ts: published,
 * not legacy, tracking shared). Windows settle only for readers: until an event has once
 * been readable, none of its windows can have been served, so recorded tracks may still
 * be loaded into it (ingest/recorded-tracks.ts).
 */
export function tracksReadable(event: EventSharing): boolean {
  return event.published && event.trackingShared && !event.legacy;
}

/**
 * The part of a boat's capture window whose points settled windows may have served:
 * the window cut at `settledBeforeMs` (fix-rules.ts settledBefore). Null when empty:
 * no settled window can have shown the boat.
 */
export function settledRange(gunMs: number | null, boatFinishMs: number | null, settledBeforeMs: number): CaptureWindow | null {
  const window = captureWindow(gunMs, boatFinishMs);
  if (window === null) return null;
  const untilMs = Math.min(window.untilMs, settledBeforeMs);
  return untilMs > window.fromMs ? { fromMs: window.fromMs, untilMs } : null;
}

/**
 * The points a new phone finish at `finishMs` would take out of settled windows: those
 * of the boat's settled range (settledRange, with its stored finish) after it. Null
 * when none (a finish at or after the stored one changes nothing served).
 */
export function finishCut(finishMs: number, settled: CaptureWindow | null): CaptureWindow | null {
  if (settled === null) return null;
  const fromMs = Math.max(settled.fromMs, finishMs + 1);
  return settled.untilMs > fromMs ? { fromMs, untilMs: settled.untilMs } : null;
}

/** What a track page shows of an entry in a start group, and what decides whether it is shown. */
export interface BoatShown {
  member: boolean;
  approved: boolean;
  hasPhone: boolean;
  sailNumber: string;
  boatName: string;
}

export type BoatField = keyof BoatShown;

/** A boat is on a track page when it is a member of the group, approved and carrying a phone. */
export function isShown(boat: BoatShown): boolean {
  return boat.member && boat.approved && boat.hasPhone;
}

/**
 * The first field whose change would change settled windows showing (or, when not
 * shown, able to show) a boat with points in them; null when the windows stay as they
 * are. A boat that stays hidden may change freely; one that stays shown keeps its sail
 * number and name; one whose visibility flips is named by the field that flips it.
 */
export function settledBoatChange(stored: BoatShown, after: BoatShown): BoatField | null {
  if (isShown(stored) !== isShown(after)) {
    for (const field of ["member", "approved", "hasPhone"] as const) if (stored[field] !== after[field]) return field;
  }
  if (!isShown(stored)) return null;
  if (stored.sailNumber !== after.sailNumber) return "sailNumber";
  if (stored.boatName !== after.boatName) return "boatName";
  return null;
}
