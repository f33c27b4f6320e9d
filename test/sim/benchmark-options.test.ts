import { describe, expect, it } from "vitest";
import { BENCHMARK_OPTIONS, simulateScenario } from "../../src/sim/index.js";

describe("BENCHMARK_OPTIONS", () => {
  it("simulate 100 boats for 3 hours at 1 Hz: about 1.0-1.1 million fixes", () => {
    const scenario = simulateScenario(BENCHMARK_OPTIONS);
    const groups = scenario.events[0]!.races[0]!.startGroups;
    expect(groups).toHaveLength(1);
    const group = groups[0]!;
    expect(group.entryIds).toHaveLength(100);
    const fixes = group.tracks!.reduce((n, t) => n + t.t.length, 0);
    expect(fixes).toBeGreaterThanOrEqual(1_000_000);
    expect(fixes).toBeLessThanOrEqual(1_100_000);
    const gun = Date.parse(group.startTimeUtc!);
    const lastFix = Math.max(...group.tracks!.map((t) => t.t[t.t.length - 1]!));
    expect(lastFix).toBeGreaterThan(gun + 175 * 60_000);
    expect(lastFix).toBeLessThan(gun + 180 * 60_000);
  });
});
