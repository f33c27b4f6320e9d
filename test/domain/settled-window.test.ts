import { describe, expect, it } from "vitest";
import { finishCut, settledBoatChange, settledRange, type BoatShown } from "../../src/domain/settled-window.js";

const GUN = Date.parse("2026-11-21T10:00:00Z");
const MIN = 60_000;

describe("settledRange", () => {
  it("is the capture window cut at the settled edge", () => {
    expect(settledRange(GUN, null, GUN + 30 * MIN)).toEqual({ fromMs: GUN - 5 * MIN, untilMs: GUN + 30 * MIN });
    expect(settledRange(GUN, GUN + 10 * MIN, GUN + 30 * MIN)).toEqual({ fromMs: GUN - 5 * MIN, untilMs: GUN + 10 * MIN + 1 });
    expect(settledRange(GUN, null, GUN + 5 * 60 * MIN)).toEqual({ fromMs: GUN - 5 * MIN, untilMs: GUN + 3 * 60 * MIN });
  });
  it("is null without a gun or before the window opens", () => {
    expect(settledRange(null, null, GUN)).toBeNull();
    expect(settledRange(GUN, null, GUN - 5 * MIN)).toBeNull();
  });
});

describe("finishCut", () => {
  const settled = { fromMs: GUN - 5 * MIN, untilMs: GUN + 30 * MIN };
  it("is the settled points after the finish", () => {
    expect(finishCut(GUN + 10 * MIN, settled)).toEqual({ fromMs: GUN + 10 * MIN + 1, untilMs: GUN + 30 * MIN });
    expect(finishCut(GUN - 10 * MIN, settled)).toEqual(settled);
  });
  it("is null for a finish at or after the range's end: the stored finish again, or one after the edge", () => {
    expect(finishCut(GUN + 30 * MIN - 1, settled)).toBeNull();
    expect(finishCut(GUN + 40 * MIN, settled)).toBeNull();
    expect(finishCut(GUN, null)).toBeNull();
    const finished = settledRange(GUN, GUN + 10 * MIN, GUN + 30 * MIN);
    expect(finishCut(GUN + 10 * MIN, finished)).toBeNull();
    expect(finishCut(GUN + 10 * MIN - 1, finished)).toEqual({ fromMs: GUN + 10 * MIN, untilMs: GUN + 10 * MIN + 1 });
  });
});

describe("settledBoatChange", () => {
  const shown: BoatShown = { member: true, approved: true, hasPhone: true, sailNumber: "GBR 1", boatName: "Alpha" };
  it("keeps a shown boat shown, with its sail number and name", () => {
    expect(settledBoatChange(shown, shown)).toBeNull();
    expect(settledBoatChange(shown, { ...shown, member: false })).toBe("member");
    expect(settledBoatChange(shown, { ...shown, approved: false })).toBe("approved");
    expect(settledBoatChange(shown, { ...shown, hasPhone: false })).toBe("hasPhone");
    expect(settledBoatChange(shown, { ...shown, sailNumber: "GBR 11" })).toBe("sailNumber");
    expect(settledBoatChange(shown, { ...shown, boatName: "Alpha II" })).toBe("boatName");
  });
  it("keeps a hidden boat hidden, and lets it change otherwise", () => {
    const hidden = { ...shown, approved: false };
    expect(settledBoatChange(hidden, { ...hidden, approved: true })).toBe("approved");
    expect(settledBoatChange(hidden, { ...hidden, boatName: "Other", member: false })).toBeNull();
  });
});
