import { describe, expect, it } from "vitest";
import { captureWindow, dataAsOf, inCaptureWindow } from "../../src/domain/race-time.js";
import { compareSailNumbers } from "../../src/domain/sail-number.js";

const GUN = Date.parse("2026-11-21T10:00:00Z");

describe("dataAsOf", () => {
  it("is now minus the event's delay", () => {
    expect(dataAsOf(GUN, 0)).toBe(GUN);
    expect(dataAsOf(GUN, 120)).toBe(GUN - 120_000);
    expect(dataAsOf(GUN, 600)).toBe(GUN - 600_000);
  });
});

describe("captureWindow", () => {
  it("runs from gun - 5 min (inclusive) to gun + 3 h (exclusive)", () => {
    expect(captureWindow(GUN)).toEqual({ fromMs: GUN - 300_000, untilMs: GUN + 10_800_000 });
    const window = captureWindow(GUN)!;
    expect([GUN - 300_001, GUN - 300_000, GUN + 10_799_999, GUN + 10_800_000].map((t) => inCaptureWindow(window, t))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
  it("ends at the boat's own finish when it is earlier, the finish itself included", () => {
    expect(captureWindow(GUN, GUN + 3_600_000)).toEqual({ fromMs: GUN - 300_000, untilMs: GUN + 3_600_001 });
    expect(inCaptureWindow(captureWindow(GUN, GUN + 3_600_000)!, GUN + 3_600_000)).toBe(true);
    expect(inCaptureWindow(captureWindow(GUN, GUN + 3_600_000)!, GUN + 3_600_001)).toBe(false);
  });
  it("ignores a finish at or after gun + 3 h: gun + 3 h stays out", () => {
    expect(captureWindow(GUN, GUN + 4 * 3_600_000)).toEqual({ fromMs: GUN - 300_000, untilMs: GUN + 10_800_000 });
    expect(captureWindow(GUN, GUN + 10_800_000)).toEqual({ fromMs: GUN - 300_000, untilMs: GUN + 10_800_000 });
  });
  it("does not exist without a gun time", () => {
    expect(captureWindow(null)).toBeNull();
    expect(captureWindow(null, GUN)).toBeNull();
  });
});

describe("compareSailNumbers", () => {
  it("orders naturally: GBR 9 before GBR 10, then by country", () => {
    expect(["GBR 10", "TUR 101", "GBR 9", "GBR 100", "gbr 11", "AUS 7"].sort(compareSailNumbers)).toEqual([
      "AUS 7",
      "GBR 9",
      "GBR 10",
      "gbr 11",
      "GBR 100",
      "TUR 101",
    ]);
  });
  it("is a total order even for names equal but for case", () => {
    expect(compareSailNumbers("GBR 9", "gbr 9")).not.toBe(0);
  });
});
