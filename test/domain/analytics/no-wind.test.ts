// Before the committee's first wind reading a start group has no wind (NaN to the core):
// its legs are reaches on their rhumb lines, no angle to the wind is shown, and no tack
// or gybe is made up, while the boat's progress and VMG toward the mark still are.

import { describe, expect, it } from "vitest";
import { BoatAnalytics } from "../../../src/domain/analytics/boat-analytics.js";
import { courseLegs } from "../../../src/domain/analytics/course.js";
import type { CourseStep } from "../../../src/domain/scenario.js";
import { mark, trackThrough } from "./tracks.js";

const steps: CourseStep[] = [
  { kind: "start", marks: [mark("pin", -100, 0), mark("boat", 100, 0)] },
  { kind: "mark", label: "W", marks: [mark("w", 0, 620)] },
  { kind: "finish", marks: [mark("f1", -100, 100), mark("f2", 100, 100)] },
];
const NO_WIND = Number.NaN;

describe("analytics without a committee wind", () => {
  it("measures legs as reaches, shows no wind angle and finds no tack in a zigzag beat", () => {
    expect(courseLegs(steps, NO_WIND).map((leg) => leg.kind)).toEqual(["reach", "reach"]);
    const boat = new BoatAnalytics({ steps, gunMs: 60_000 });
    // A zigzag up the course: what would be tacks under a northerly.
    for (const fix of trackThrough([
      [0, 0, -20],
      [100, 0, 5],
      [241, 300, 305],
      [382, 0, 605],
    ]))
      boat.push(fix, NO_WIND);
    const shown = boat.snapshot(382_000, NO_WIND);
    expect(shown.legIndex).toBe(1);
    expect(shown.twaDeg).toBeNull();
    expect(shown.vmgKn).toBeGreaterThan(0);
    expect(Number.isFinite(shown.progressM)).toBe(true);
    expect(boat.manoeuvres.filter((m) => m.kind !== "penaltyTurn")).toEqual([]);
  });
});
