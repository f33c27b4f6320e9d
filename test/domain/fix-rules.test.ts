// The ingest rules for fixes at their edges: what makes a batch malformed, and when a
// fix is in the future, settled, or outside its capture window.

import { describe, expect, it } from "vitest";
import {
  CLOCK_SKEW_ALLOWANCE_MS,
  COMMIT_ALLOWANCE_MS,
  COMMIT_DEADLINE_MS,
  DELAY_HOLD_MS,
  FUTURE_TOLERANCE_MS,
  gunMayChange,
  inRange,
  malformedField,
  SETTLED_MARGIN_MS,
  settledBefore,
  timeRejection,
  type BoatFixesInput,
} from "../../src/domain/fix-rules.js";

const ENTRY = "aaaaaaaa-0000-4000-8000-000000000001";
const boat = (t: bigint[], extra: Partial<BoatFixesInput> = {}): BoatFixesInput => ({
  entryId: ENTRY,
  t,
  lat: t.map(() => 1),
  lon: t.map(() => 1),
  sogKn: [],
  cogDeg: [],
  accuracyM: [],
  ...extra,
});

describe("malformedField", () => {
  it("takes aligned arrays with t strictly ascending, and empty optional columns", () => {
    expect(malformedField([boat([1n, 2n, 3n])])).toBeNull();
    expect(malformedField([boat([1n, 2n], { sogKn: [NaN, 1], cogDeg: [], accuracyM: [3, 4] })])).toBeNull();
    expect(malformedField([])).toBeNull();
  });

  it("names the first field at fault", () => {
    expect(malformedField([boat([1n, 1n])])).toBe("boats[0].t[1]");
    expect(malformedField([boat([1n]), boat([2n], { entryId: ENTRY.toUpperCase() })])).toBe("boats[1].entryId");
    expect(malformedField([boat([1n], { lat: [] })])).toBe("boats[0].lat");
    expect(malformedField([boat([1n], { cogDeg: [1, 2] })])).toBe("boats[0].cogDeg");
    expect(malformedField([boat([-1n])])).toBe("boats[0].t[0]");
    expect(malformedField([boat([8_640_000_000_000_001n])])).toBe("boats[0].t[0]");
  });
});

describe("the time rules", () => {
  const now = 1_800_000_000_000;
  const gun = now - 30 * 60_000;
  const context = { nowMs: now, settledBeforeMs: settledBefore(now, 0, null), gunMs: gun };

  it("puts the settled edge at now - delay - 2 min + 10 s, never before a kept floor", () => {
    expect(settledBefore(now, 0, null)).toBe(now - 110_000);
    expect(settledBefore(now, 600, null)).toBe(now - 710_000);
    expect(settledBefore(now, 600, now - 200_000)).toBe(now - 190_000);
    expect(settledBefore(now, 0, now - 900_000)).toBe(now - 110_000);
  });

  it("draws each edge where the rule says", () => {
    expect(timeRejection(now + FUTURE_TOLERANCE_MS, context, null)).toBeNull();
    expect(timeRejection(now + FUTURE_TOLERANCE_MS + 1, context, null)).toBe("IN_FUTURE");
    expect(timeRejection(now - 110_000, context, null)).toBeNull();
    expect(timeRejection(now - 110_001, context, null)).toBe("WINDOW_SETTLED");
    // The capture window ends at the boat's finish, inclusive.
    expect(timeRejection(now - 60_000, context, now - 60_000)).toBeNull();
    expect(timeRejection(now - 59_999, context, now - 60_000)).toBe("OUTSIDE_CAPTURE_WINDOW");
    // A gun ahead: the window opens 5 minutes before it.
    const later = { ...context, gunMs: now + 10 * 60_000 };
    expect(timeRejection(now, later, null)).toBe("OUTSIDE_CAPTURE_WINDOW");
    // No gun: no window known yet, nothing outside it.
    expect(timeRejection(now, { ...context, gunMs: null }, null)).toBeNull();
  });

  it("lets a gun change only while nothing of its window is settled", () => {
    const edge = settledBefore(now, 0, null);
    expect(gunMayChange(null, gun, edge)).toBe(true);
    expect(gunMayChange(gun, gun, edge)).toBe(true);
    expect(gunMayChange(gun, gun + 1000, edge)).toBe(false);
    expect(gunMayChange(gun, null, edge)).toBe(false);
    expect(gunMayChange(now + 10 * 60_000, now + 20 * 60_000, edge)).toBe(true);
    // A gun a minute ahead: its window opened 4 minutes ago, into settled time.
    expect(gunMayChange(now + 60_000, now + 120_000, edge)).toBe(false);
    expect(gunMayChange(edge + 5 * 60_000, null, edge)).toBe(true);
    expect(gunMayChange(edge + 5 * 60_000 - 1, null, edge)).toBe(false);
  });

  it("reads NaN speed or course as not reported, but never a NaN position", () => {
    expect(inRange(1, 1, NaN, NaN)).toBe(true);
    expect(inRange(NaN, 1, 1, 1)).toBe(false);
    expect(inRange(1, 1, Infinity, 1)).toBe(false);
  });
});

describe("the margin", () => {
  it("covers a write from its check to the end of its commit, and the clocks of two instances", () => {
    expect(SETTLED_MARGIN_MS).toBeGreaterThanOrEqual(COMMIT_DEADLINE_MS + COMMIT_ALLOWANCE_MS + CLOCK_SKEW_ALLOWANCE_MS);
  });
  it("holds a shortened delay until a batch checked under the longer one, up to the change's own deadline, has committed", () => {
    expect(DELAY_HOLD_MS).toBeGreaterThanOrEqual(COMMIT_DEADLINE_MS + SETTLED_MARGIN_MS);
  });
});
