// The track endpoint's paging rules: which window a request reads (since, until and
// their cuts), what the next page starts at and when a window can never change. Which
// fixes a page serves is the capture window (race-time.ts). Pure: times are epoch ms.

import { CAPTURE_AFTER_GUN_MS, captureWindow, type CaptureWindow } from "./race-time.js";

/** Default and longest span of one page. */
export const TRACK_WINDOW_MAX_MS = 10 * 60_000;
/** A window ending at least this long before the delayed cut-off never changes. */
export const SETTLED_BEFORE_CUTOFF_MS = 2 * 60_000;

/** The window a request asks for, after the checks that need no race. */
export interface RequestedWindow {
  sinceMs: number;
  /** Exclusive; already cut to since + 10 minutes. */
  untilMs: number;
}

export interface TrackWindow {
  /** Inclusive. */
  sinceMs: number;
  /** Exclusive; always after sinceMs. */
  untilMs: number;
  /** Null on the last page: until has reached the end of the capture window. */
  nextSinceMs: number | null;
  /** The answer for this window can never change (max-age=3600, kept server-side). */
  immutable: boolean;
}

/** The parameter a window rule refuses. */
export type InvalidParam = "since" | "until";

/** `since` is required; `until` defaults to and is cut at since + 10 minutes, and must be after since. */
export function requestedWindow(sinceMs: number | undefined, untilMs: number | undefined): RequestedWindow | InvalidParam {
  if (sinceMs === undefined) return "since";
  const longest = sinceMs + TRACK_WINDOW_MAX_MS;
  if (untilMs === undefined) return { sinceMs, untilMs: longest };
  if (untilMs <= sinceMs) return "until";
  return { sinceMs, untilMs: Math.min(untilMs, longest) };
}

/**
 * The window served at `cutoffMs` (now minus the event's delay) for a group whose gun
 * is `gunMs`: since must lie before the cut-off, and until is cut silently at it.
 * `nextSince` is until, or null once until reaches gun + 3 h; a group without a gun
 * pages on (its gun may still come). Only a group with a gun has immutable windows:
 * setting the gun later would fill a window that was empty. `slackMs` (readerSlackMs)
 * moves this reader's settled edge earlier.
 */
export function trackWindow(requested: RequestedWindow, cutoffMs: number, gunMs: number | null, slackMs = 0): TrackWindow | InvalidParam {
  if (requested.sinceMs >= cutoffMs) return "since";
  const untilMs = Math.min(requested.untilMs, cutoffMs);
  const closed = gunMs !== null && untilMs >= gunMs + CAPTURE_AFTER_GUN_MS;
  return {
    sinceMs: requested.sinceMs,
    untilMs,
    nextSinceMs: closed ? null : untilMs,
    immutable: gunMs !== null && untilMs <= settledEdge(cutoffMs) - slackMs,
  };
}

/**
 * The window an export of a start group reads: its whole capture window (gun - 5 min
 * to gun + 3 h) as one page, cut at the cut-off, immutable by the same rule as a page
 * (once gun + 3 h lies before the settled edge), so it serves exactly the fixes of the
 * group's pages together. Null while the group has no gun, or before its capture
 * window opens at the cut-off: there is nothing to serve yet.
 */
export function exportWindow(gunMs: number | null, cutoffMs: number, slackMs = 0): TrackWindow | null {
  const capture = captureWindow(gunMs);
  if (capture === null || capture.fromMs >= cutoffMs) return null;
  const window = trackWindow({ sinceMs: capture.fromMs, untilMs: capture.untilMs }, cutoffMs, gunMs, slackMs);
  return typeof window === "string" ? null : window;
}

/**
 * Stored fixes before this time can no longer change at `cutoffMs`: a late fix is
 * refused there (fix-rules.ts), so a window ending by it is immutable, and the part of
 * a window before it may be kept between reads.
 */
export function settledEdge(cutoffMs: number): number {
  return cutoffMs - SETTLED_BEFORE_CUTOFF_MS;
}

/** A longer delay an event had until moments ago, held for readers' settled edge until `untilMs`. */
export interface DelayHold {
  delaySeconds: number;
  untilMs: number;
}

/**
 * How much earlier than settledEdge(cutoff) a reader may call a window settled. The
 * writers' margin (fix-rules.ts) covers a batch's time from its check to its commit
 * and clocks; a reader holds what the writers cannot see: how far its rows may lag the
 * primary (`behindMs`, a read replica's), and a delay made shorter moments ago, which
 * moved the edge later at once while batches checked under the longer delay may still
 * commit (`hold`, until those are done).
 */
export function readerSlackMs(behindMs: number, delaySeconds: number, hold: DelayHold | null, nowMs: number): number {
  const shortened = hold !== null && nowMs < hold.untilMs ? Math.max(0, hold.delaySeconds - delaySeconds) * 1000 : 0;
  return Math.max(0, behindMs) + shortened;
}

/** Half-open range of sample times, epoch ms. */
export type TimeRange = CaptureWindow;

/** The part of `range` inside [sinceMs, untilMs), or null when they do not overlap. */
export function overlap(range: TimeRange, sinceMs: number, untilMs: number): TimeRange | null {
  const fromMs = Math.max(range.fromMs, sinceMs);
  const to = Math.min(range.untilMs, untilMs);
  return fromMs < to ? { fromMs, untilMs: to } : null;
}
