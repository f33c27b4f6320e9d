// The rules of reading a race at a past moment and of replaying it: which moments may
// be asked for, when an answer at a moment can no longer change, the 2-second grid a
// replay steps on, its speed, and where a resumed replay goes on. Pure: times are epoch ms.

import { settledEdge } from "./track-window.js";

/** A replay's step in race time: a live viewer sees a new state every 2 s. */
export const REPLAY_STEP_MS = 2000;
/** Replay speeds: real time up to an hour of race in a minute. */
export const MIN_REPLAY_SPEED = 1;
export const MAX_REPLAY_SPEED = 60;

/** A past moment must lie before the delayed cut-off (as a track page's since); any earlier time is allowed. */
export function isPastMoment(atMs: number, cutoffMs: number): boolean {
  return atMs < cutoffMs;
}

/**
 * The answer at `atMs` can never change at `cutoffMs`: everything it shows up to the
 * settled edge is refused when late (fix-rules.ts), as for a settled track window.
 * `slackMs` (readerSlackMs) moves this reader's edge earlier.
 */
export function isSettledMoment(atMs: number, cutoffMs: number, slackMs = 0): boolean {
  return atMs <= settledEdge(cutoffMs) - slackMs;
}

/** A speed from 1 to 60 (fractions allowed); undefined is 1. Null: refused. */
export function replaySpeed(speed: number | undefined): number | null {
  if (speed === undefined) return MIN_REPLAY_SPEED;
  return Number.isFinite(speed) && speed >= MIN_REPLAY_SPEED && speed <= MAX_REPLAY_SPEED ? speed : null;
}

/**
 * The first moment a replay sends: the grid moment at or before `fromMs`, or, when it
 * resumes after an event id (a moment), the grid moment after that one. Ids that are
 * no whole number of ms are ignored, as the live stream ignores unknown ids.
 */
export function replayStart(fromMs: number, resumeAfter: string): number {
  const first = Math.floor(fromMs / REPLAY_STEP_MS) * REPLAY_STEP_MS;
  const after = eventMoment(resumeAfter);
  return after === null ? first : Math.max(first, (Math.floor(after / REPLAY_STEP_MS) + 1) * REPLAY_STEP_MS);
}

/** The moment a live or replay event id names (its state's dataAsOf in epoch ms), or null for any other text. */
export function eventMoment(id: string): number | null {
  return /^-?[0-9]{1,16}$/.test(id) ? Number(id) : null;
}
