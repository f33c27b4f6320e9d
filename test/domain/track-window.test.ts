import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CAPTURE_AFTER_GUN_MS, captureWindow, inCaptureWindow } from "../../src/domain/race-time.js";
import {
  overlap,
  readerSlackMs,
  requestedWindow,
  SETTLED_BEFORE_CUTOFF_MS,
  trackWindow,
  TRACK_WINDOW_MAX_MS,
} from "../../src/domain/track-window.js";

const GUN = Date.parse("2026-11-21T10:00:00Z");
const MIN = 60_000;

describe("requestedWindow", () => {
  it("requires since", () => {
    expect(requestedWindow(undefined, undefined)).toBe("since");
    expect(requestedWindow(undefined, GUN)).toBe("since");
  });
  it("defaults until to since + 10 minutes", () => {
    expect(requestedWindow(GUN, undefined)).toEqual({ sinceMs: GUN, untilMs: GUN + TRACK_WINDOW_MAX_MS });
    expect(TRACK_WINDOW_MAX_MS).toBe(10 * MIN);
  });
  it("cuts a longer until to since + 10 minutes and keeps a shorter one", () => {
    expect(requestedWindow(GUN, GUN + 60 * MIN)).toEqual({ sinceMs: GUN, untilMs: GUN + 10 * MIN });
    expect(requestedWindow(GUN, GUN + 10 * MIN)).toEqual({ sinceMs: GUN, untilMs: GUN + 10 * MIN });
    expect(requestedWindow(GUN, GUN + 1)).toEqual({ sinceMs: GUN, untilMs: GUN + 1 });
  });
  it("refuses an until that is not after since", () => {
    expect(requestedWindow(GUN, GUN)).toBe("until");
    expect(requestedWindow(GUN, GUN - 1)).toBe("until");
  });
});

describe("trackWindow", () => {
  const window = (sinceMs: number, untilMs: number) => ({ sinceMs, untilMs });

  it("refuses a since at or after the cut-off", () => {
    expect(trackWindow(window(GUN, GUN + 10 * MIN), GUN, GUN)).toBe("since");
    expect(trackWindow(window(GUN + 1, GUN + 10 * MIN), GUN, GUN)).toBe("since");
    expect(trackWindow(window(GUN - 1, GUN + 10 * MIN), GUN, GUN)).toMatchObject({ sinceMs: GUN - 1, untilMs: GUN });
  });

  it("cuts until silently at the cut-off, and then pages on from it", () => {
    expect(trackWindow(window(GUN, GUN + 10 * MIN), GUN + 4 * MIN, GUN)).toEqual({
      sinceMs: GUN,
      untilMs: GUN + 4 * MIN,
      nextSinceMs: GUN + 4 * MIN,
      immutable: false,
    });
  });

  it("is immutable when it ends at least 2 minutes before the cut-off", () => {
    const cutoff = GUN + 20 * MIN;
    expect(SETTLED_BEFORE_CUTOFF_MS).toBe(2 * MIN);
    expect(trackWindow(window(GUN, cutoff - 2 * MIN), cutoff, GUN)).toMatchObject({ immutable: true });
    expect(trackWindow(window(GUN, cutoff - 2 * MIN + 1), cutoff, GUN)).toMatchObject({ immutable: false });
    expect(trackWindow(window(GUN, cutoff - 3 * MIN), cutoff, GUN)).toMatchObject({ immutable: true });
  });

  it("is immutable only that much earlier for a reader with slack (a lagging replica, a shortened delay)", () => {
    const cutoff = GUN + 20 * MIN;
    expect(trackWindow(window(GUN, cutoff - 2 * MIN - 1500), cutoff, GUN, 1500)).toMatchObject({ immutable: true });
    expect(trackWindow(window(GUN, cutoff - 2 * MIN - 1499), cutoff, GUN, 1500)).toMatchObject({ immutable: false });
  });

  it("ends paging once until is at or after gun + 3 h", () => {
    const end = GUN + CAPTURE_AFTER_GUN_MS;
    const cutoff = end + 60 * MIN;
    expect(trackWindow(window(end - 10 * MIN, end - 1), cutoff, GUN)).toMatchObject({ nextSinceMs: end - 1 });
    expect(trackWindow(window(end - 10 * MIN, end), cutoff, GUN)).toMatchObject({ untilMs: end, nextSinceMs: null });
    expect(trackWindow(window(end + 5 * MIN, end + 15 * MIN), cutoff, GUN)).toMatchObject({ nextSinceMs: null });
  });

  it("ends paging when the cut itself reaches gun + 3 h", () => {
    const end = GUN + CAPTURE_AFTER_GUN_MS;
    expect(trackWindow(window(end - 5 * MIN, end + 5 * MIN), end, GUN)).toMatchObject({
      untilMs: end,
      nextSinceMs: null,
      immutable: false,
    });
  });

  it("pages on without end, and is never immutable, for a group without a gun", () => {
    expect(trackWindow(window(GUN, GUN + 10 * MIN), GUN + 24 * 60 * MIN, null)).toEqual({
      sinceMs: GUN,
      untilMs: GUN + 10 * MIN,
      nextSinceMs: GUN + 10 * MIN,
      immutable: false,
    });
  });
});

describe("one capture window for live and track", () => {
  // What the live answer can show of a boat (its fixes inside its capture window, up to
  // dataAsOf) is what the track's pages serve, each fix on exactly one page, however the
  // client pages (from any since before the window, with any spans) until nextSince is
  // null, read at any later cut-off.
  it("serves every fix the live answer can show on exactly one page", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }).map((s) => GUN + s * 1000),
        fc.option(fc.integer({ min: -10 * MIN, max: 4 * 60 * MIN }), { nil: null }),
        // A sample time anywhere, or next to an end of the window (gun - 5 min, gun + 3 h, the finish).
        fc.oneof(
          fc.integer({ min: -20 * MIN, max: 4 * 60 * MIN }).map((ms) => () => ms),
          fc.tuple(fc.constantFrom(-5 * MIN, CAPTURE_AFTER_GUN_MS, null), fc.integer({ min: -2, max: 2 })).map(
            ([edge, by]) =>
              (finish: number | null) =>
                (edge ?? finish ?? CAPTURE_AFTER_GUN_MS) + by,
          ),
        ),
        fc.integer({ min: 0, max: 4 * 60 * MIN }),
        fc.integer({ min: 1, max: 60 * MIN }),
        // Pages in whole minutes from gun - 5 min reach gun + 3 h exactly; other spans do not.
        fc.oneof(
          fc.integer({ min: 0, max: 40 }).map((m) => m * MIN),
          fc.integer({ min: 0, max: 40 * MIN }),
        ),
        fc.oneof(
          fc.array(
            fc.integer({ min: 1, max: 11 }).map((m) => m * MIN),
            { minLength: 1, maxLength: 8 },
          ),
          fc.array(fc.integer({ min: MIN, max: TRACK_WINDOW_MAX_MS + MIN }), { minLength: 1, maxLength: 8 }),
        ),
        (gunMs, finishAfterGun, tAfterGun, liveAfterGun, pagedLater, sinceBefore, spans) => {
          const window = captureWindow(gunMs, finishAfterGun === null ? null : gunMs + finishAfterGun)!;
          const t = gunMs + tAfterGun(finishAfterGun);
          const dataAsOfMs = gunMs + liveAfterGun;
          const pagingCutoffMs = dataAsOfMs + pagedLater;
          let since: number | null = window.fromMs - sinceBefore;
          let pages = 0;
          for (let i = 0; since !== null && since < pagingCutoffMs; i++) {
            const requested = requestedWindow(since, since + spans[i % spans.length]!);
            if (typeof requested === "string") throw new Error(requested);
            const page = trackWindow(requested, pagingCutoffMs, gunMs);
            if (typeof page === "string") throw new Error(page);
            const served = overlap(window, page.sinceMs, page.untilMs);
            if (served && t >= served.fromMs && t < served.untilMs) pages++;
            since = page.nextSinceMs;
          }
          // The live answer seeks the newest fix in the window at or before dataAsOf.
          if (inCaptureWindow(window, t) && t <= dataAsOfMs) expect(pages).toBe(1);
          expect(pages).toBe(inCaptureWindow(window, t) && t < pagingCutoffMs ? 1 : 0);
        },
      ),
      { seed: 20261128, numRuns: 2000 },
    );
  });

  it("leaves gun + 3 h itself out of both: the last page, which reaches it, has served the window", () => {
    const close = GUN + CAPTURE_AFTER_GUN_MS;
    const window = captureWindow(GUN)!;
    expect(inCaptureWindow(window, close)).toBe(false);
    const last = trackWindow({ sinceMs: close - TRACK_WINDOW_MAX_MS, untilMs: close }, close + 60 * MIN, GUN);
    expect(last).toMatchObject({ nextSinceMs: null });
    expect(overlap(window, close - TRACK_WINDOW_MAX_MS, close)).toEqual({ fromMs: close - TRACK_WINDOW_MAX_MS, untilMs: close });
  });
});

describe("overlap", () => {
  const range = { fromMs: 100, untilMs: 200 };
  it("is the common part of two half-open ranges", () => {
    expect(overlap(range, 150, 300)).toEqual({ fromMs: 150, untilMs: 200 });
    expect(overlap(range, 0, 150)).toEqual({ fromMs: 100, untilMs: 150 });
    expect(overlap(range, 120, 130)).toEqual({ fromMs: 120, untilMs: 130 });
  });
  it("is null when they only touch or are apart", () => {
    expect(overlap(range, 200, 300)).toBeNull();
    expect(overlap(range, 0, 100)).toBeNull();
    expect(overlap(range, 300, 400)).toBeNull();
  });
});

describe("readerSlackMs", () => {
  const NOW = GUN + 30 * MIN;
  it("is how far the reader's rows may lag the primary", () => {
    expect(readerSlackMs(0, 60, null, NOW)).toBe(0);
    expect(readerSlackMs(2500, 60, null, NOW)).toBe(2500);
  });
  it("adds a shortened delay's difference while it is held, and nothing once the hold is over", () => {
    const hold = { delaySeconds: 300, untilMs: NOW + 1 };
    expect(readerSlackMs(0, 60, hold, NOW)).toBe(240_000);
    expect(readerSlackMs(700, 60, hold, NOW)).toBe(240_700);
    expect(readerSlackMs(0, 60, hold, NOW + 1)).toBe(0);
    // A hold of a delay no longer than the current one holds nothing back.
    expect(readerSlackMs(0, 300, { delaySeconds: 60, untilMs: NOW + 1 }, NOW)).toBe(0);
  });
});
