// The goals of issue 30's "Right, shown against ground truth", asserted for one simulated
// race: the analytics core fed as a service feeds it, measured against the simulator's
// record of what each boat really did (ground-truth.ts does the feeding and matching).

import { describe, expect, it } from "vitest";
import { type SimulateOptions, simulateRace } from "../../../src/sim/index.js";
import { type Measured, measureGroup } from "./ground-truth.js";

/** Goals from the issue. */
const PASSING_S = 3;
const MANOEUVRE_RATE = 0.95;
const MANOEUVRE_S = 5;
const VMG_KN = 0.3;

export function describeRaceAgainstTruth(name: string, options: SimulateOptions): void {
  describe(`${name}: the analytics against the simulator's ground truth`, () => {
    const { scenario, truth } = simulateRace(options);
    const groups = scenario.events[0]!.races[0]!.startGroups;
    const measure = (clean: boolean): Measured[] =>
      groups.map((group, g) => measureGroup(group, truth.groups[g]!, { clean, everyMs: 13_000 }));
    const noisy = measure(false);
    const clean = measure(true);
    const all = <T>(ms: Measured[], pick: (m: Measured) => T[]): T[] => ms.flatMap(pick);

    it("is a race with what the goals need: a course change, a retirement, every boat started", () => {
      const group = groups[0]!;
      expect(group.courses!.length).toBe(2);
      expect(truth.groups[0]!.boats.filter((b) => b.retiredAtMs !== null)).toHaveLength(1);
      expect(truth.groups.every((g) => g.boats.every((b) => b.startedAtMs !== null))).toBe(true);
    });

    it("finds every step passing of every boat, none extra, within 3 s but where GPS or the rules say why not", () => {
      for (const ms of [noisy, clean]) {
        const passings = all(ms, (m) => m.passings);
        expect(passings.length).toBeGreaterThan(40);
        expect(ms.reduce((n, m) => n + m.extraPassings, 0)).toBe(0);
        for (const p of passings) if (p.excuse !== "retiring") expect(p.errorS, `${p.entryId} step ${p.stepIndex}`).not.toBeNull();
        const late = passings.filter((p) => p.errorS !== null && p.errorS > PASSING_S);
        // Over early: found between the gun and the true start (the excuse checks it).
        for (const p of late) expect(["overEarly", "alongLine", "courseChange", null]).toContain(p.excuse);
        // Unexcused: a grazing entry into the 50 m or a GPS gap at it, a second or a few.
        const unexcused = late.filter((p) => p.excuse === null);
        expect(unexcused.length).toBeLessThanOrEqual(Math.ceil(passings.length * 0.02));
        for (const p of unexcused) expect(p.errorS!).toBeLessThan(8);
      }
    });

    it("finds the tacks and gybes with precision and recall of at least 0.95, each within 5 s", () => {
      for (const ms of [noisy, clean]) {
        const matchings = all(ms, (m) => m.manoeuvres);
        const found = matchings.reduce((n, m) => n + m.found, 0);
        const truths = matchings.reduce((n, m) => n + m.truths, 0);
        expect(truths).toBeGreaterThan(50);
        const falsePositives = matchings.reduce((n, m) => n + m.unmatchedFound.length, 0);
        const missed = matchings.reduce((n, m) => n + m.unmatchedTruth.length, 0);
        expect(1 - falsePositives / found).toBeGreaterThanOrEqual(MANOEUVRE_RATE);
        expect(1 - missed / truths).toBeGreaterThanOrEqual(MANOEUVRE_RATE);
        for (const m of matchings) expect(m.worstErrorS).toBeLessThanOrEqual(MANOEUVRE_S);
      }
    });

    it("puts each boat within 5% or 20 m of its true distance behind the leader", () => {
      for (const ms of [noisy, clean]) {
        const distances = all(ms, (m) => m.distance);
        const excluded = ms.reduce((n, m) => n + m.distanceExcluded, 0);
        expect(distances.length).toBeGreaterThan(400);
        expect(excluded / (excluded + distances.length)).toBeLessThan(0.5);
        expect(distances.filter((d) => d.trueBehindM > 150).length).toBeGreaterThan(20);
        for (const d of distances) expect(d.errorM, `${d.entryId} at ${d.atMs}`).toBeLessThanOrEqual(d.allowedM);
      }
    });

    it("gives VMG over 10 s within 0.3 kn of the truth from noise-free fixes, and unbiased through the GPS noise", () => {
      const cleanErrors = all(clean, (m) => m.vmg).map((v) => Math.abs(v.errorKn));
      expect(cleanErrors.length).toBeGreaterThan(400);
      expect(cleanErrors.filter((e) => e <= VMG_KN).length / cleanErrors.length).toBeGreaterThanOrEqual(0.95);
      // The simulator's GPS error (AR(1), 2.5 m, ~12 s correlation) moves a 10 s chord by
      // about 0.53 kn (one standard deviation) however it is fitted: no 10 s estimate can
      // hold 0.3 kn at every moment. What the analytics owe is no bias and no more spread.
      const noisyErrors = all(noisy, (m) => m.vmg).map((v) => v.errorKn);
      const mean = noisyErrors.reduce((a, e) => a + e, 0) / noisyErrors.length;
      const rms = Math.sqrt(noisyErrors.reduce((a, e) => a + e * e, 0) / noisyErrors.length);
      expect(Math.abs(mean)).toBeLessThan(0.06);
      expect(rms).toBeLessThan(0.7);
    });
  });
}
