import { describe, expect, it } from "vitest";
import { MAX_FIXES_PER_BATCH } from "../../src/domain/fix-rules.js";
import { fastForward } from "../../src/sim/fast-forward.js";
import { fixBatches, lastTimeOf } from "../../src/sim/feed.js";
import { simulateScenario } from "../../src/sim/index.js";

const GUN = Date.parse("2026-06-01T10:00:00Z");
const race = simulateScenario({ seed: "fast-forward", gunMs: GUN, startGroups: 1, boatsPerGroup: 4, laps: 1, legLengthM: 600 });
const groupOf = (scenario: typeof race) => scenario.events[0]!.races[0]!.startGroups[0]!;

describe("fastForward", () => {
  it("brings every time N times closer to the fixed instant, and divides durations by N", () => {
    const fixed = GUN - 5 * 60_000;
    const fast = fastForward(race, fixed, 10);
    const at = (iso: string) => Date.parse(iso);
    const was = groupOf(race);
    const now = groupOf(fast);
    expect(at(now.startTimeUtc!)).toBe(fixed + (GUN - fixed) / 10);
    expect(now.tracks![0]!.t).toEqual(was.tracks![0]!.t.map((t) => Math.round(fixed + (t - fixed) / 10)));
    expect(now.tracks![0]!.lat).toEqual(was.tracks![0]!.lat);
    expect(now.wind!.map((w) => at(w.measuredAtUtc))).toEqual(was.wind!.map((w) => Math.round(fixed + (at(w.measuredAtUtc) - fixed) / 10)));
    expect(now.finishes!.map((f) => at(f.finishTimeUtc))).toEqual(
      was.finishes!.map((f) => Math.round(fixed + (at(f.finishTimeUtc) - fixed) / 10)),
    );
    const row = was.liveOrder!.at(-1)!.rows[0]!;
    expect(now.liveOrder!.at(-1)!.rows[0]!.elapsedSeconds).toBe(Math.round((row.elapsedSeconds! / 10) * 10) / 10);
    expect(at(now.results!.publishedAtUtc)).toBe(Math.round(fixed + (at(was.results!.publishedAtUtc) - fixed) / 10));
    expect(lastTimeOf(fast) - fixed).toBeCloseTo((lastTimeOf(race) - fixed) / 10, -1);
    // Each track stays strictly ascending.
    for (const track of now.tracks!) for (let k = 1; k < track.t.length; k++) expect(track.t[k]!).toBeGreaterThan(track.t[k - 1]!);
  });

  it("leaves the race as it is at speed 1 and refuses a speed out of range", () => {
    expect(fastForward(race, GUN, 1)).toBe(race);
    for (const speed of [0, 0.5, 101, Number.NaN]) expect(() => fastForward(race, GUN, speed)).toThrow(RangeError);
  });
});

describe("fixBatches", () => {
  it("sends a group's fixes in batches of at most MAX_FIXES_PER_BATCH, each fix once and in order", () => {
    const long = (entryId: string, n: number) => ({
      entryId,
      t: Array.from({ length: n }, (_, i) => i * 1000),
      lat: new Array<number>(n).fill(50),
      lon: new Array<number>(n).fill(-1),
    });
    const tracks = [long("a", 15_000), long("b", 12_000), long("c", 30)];
    const batches = fixBatches({ raceId: "r", startGroupId: "g" }, tracks);
    const sizes = batches.map((b) => b.boats.reduce((n, boat) => n + boat.t!.length, 0));
    expect(sizes).toEqual([MAX_FIXES_PER_BATCH, 27_030 - MAX_FIXES_PER_BATCH]);
    for (const id of ["a", "b", "c"]) {
      const sent = batches.flatMap((b) => b.boats.filter((boat) => boat.entryId === id).flatMap((boat) => boat.t!.map(Number)));
      expect(sent).toEqual(tracks.find((t) => t.entryId === id)!.t);
    }
    expect(fixBatches({ raceId: "r", startGroupId: "g" }, [])).toEqual([]);
  });
});
