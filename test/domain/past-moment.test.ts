// The past-moment and replay rules: which moments may be asked for, which never change,
// the speeds, and where a replay starts and resumes on its 2-second grid.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  eventMoment,
  isPastMoment,
  isSettledMoment,
  MAX_REPLAY_SPEED,
  MIN_REPLAY_SPEED,
  REPLAY_STEP_MS,
  replaySpeed,
  replayStart,
} from "../../src/domain/past-moment.js";
import { SETTLED_BEFORE_CUTOFF_MS } from "../../src/domain/track-window.js";

const CUTOFF = Date.parse("2026-11-21T11:00:00Z");

describe("past moments", () => {
  it("must lie before the cut-off; any earlier time is allowed", () => {
    expect(isPastMoment(CUTOFF - 1, CUTOFF)).toBe(true);
    expect(isPastMoment(CUTOFF, CUTOFF)).toBe(false);
    expect(isPastMoment(CUTOFF + 1, CUTOFF)).toBe(false);
    expect(isPastMoment(0, CUTOFF)).toBe(true);
  });

  it("never change from the settled edge (cut-off minus 2 min) back, less the reader's slack", () => {
    const edge = CUTOFF - SETTLED_BEFORE_CUTOFF_MS;
    expect(isSettledMoment(edge, CUTOFF)).toBe(true);
    expect(isSettledMoment(edge + 1, CUTOFF)).toBe(false);
    expect(isSettledMoment(edge, CUTOFF, 5000)).toBe(false);
    expect(isSettledMoment(edge - 5000, CUTOFF, 5000)).toBe(true);
  });
});

describe("replay speed", () => {
  it("is 1 to 60, fractions allowed, 1 when unset; anything else is refused", () => {
    expect(replaySpeed(undefined)).toBe(1);
    for (const speed of [MIN_REPLAY_SPEED, 2.5, 10, MAX_REPLAY_SPEED]) expect(replaySpeed(speed)).toBe(speed);
    for (const speed of [0, 0.999, -1, 60.001, 61, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(replaySpeed(speed)).toBeNull();
  });
});

describe("the replay's grid", () => {
  it("starts at the grid moment at or before from, and resumes at the first grid moment after the last id, never before from's", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.option(fc.integer({ min: -1e6, max: 4e12 })), (fromMs, resumed) => {
        const start = replayStart(fromMs, resumed === null ? "" : String(resumed));
        const first = fromMs - (fromMs % REPLAY_STEP_MS);
        expect(start % REPLAY_STEP_MS).toBe(0);
        expect(start).toBeGreaterThanOrEqual(first);
        if (resumed === null) expect(start).toBe(first);
        else {
          // After the id, and the first such grid moment unless from's is later.
          expect(start).toBeGreaterThan(Math.min(resumed, start - 1));
          if (start > first) {
            expect(start).toBeGreaterThan(resumed);
            expect(start - REPLAY_STEP_MS).toBeLessThanOrEqual(resumed);
          }
        }
      }),
      { seed: 20261126, numRuns: 2000 },
    );
  });

  it("ignores an id that is no whole number of milliseconds", () => {
    const fromMs = CUTOFF - 61_500;
    for (const id of ["", "abc", "1.5e12", "12 ", "0x10", "99999999999999999999"]) expect(replayStart(fromMs, id)).toBe(CUTOFF - 62_000);
    expect(eventMoment("1795256700000")).toBe(1795256700000);
    expect(eventMoment("live")).toBeNull();
  });
});
