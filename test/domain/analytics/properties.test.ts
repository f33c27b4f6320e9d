// Seeded properties of the analytics' geometry and filters, over random inputs around
// one race area, and of a boat's state copied for the unsettled tail of a simulated race.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BoatAnalytics } from "../../../src/domain/analytics/boat-analytics.js";
import { segmentCrossing } from "../../../src/domain/analytics/geometry.js";
import { DEFAULT_MAX_SPEED_KN, type Fix, JumpFilter, speedBetweenKn, trueWindAngleDeg } from "../../../src/domain/analytics/kinematics.js";
import { simulateRace } from "../../../src/sim/index.js";
import { apply, fedState, gunOf, type RaceEvent, raceFeed } from "./race-feed.js";
import { at } from "./tracks.js";

const SEED = 20261126;
const metres = fc.double({ min: -2000, max: 2000, noNaN: true });
const point = fc.tuple(metres, metres);

describe("analytics properties", () => {
  it("a track segment crosses a line at the same point either way, from opposite sides, at mirrored times", () => {
    fc.assert(
      fc.property(point, point, point, point, ([pe, pn], [qe, qn], [ae, an], [be, bn]) => {
        const p = { ...at(pe, pn), tMs: 0 };
        const q = { ...at(qe, qn), tMs: 10_000 };
        const forth = segmentCrossing(p, q, at(ae, an), at(be, bn));
        const back = segmentCrossing({ ...q, tMs: 0 }, { ...p, tMs: 10_000 }, at(ae, an), at(be, bn));
        if (forth === null || back === null) return;
        expect(forth.fromSide).not.toBe(back.fromSide);
        expect(forth.atMs + back.atMs).toBeCloseTo(10_000, 3);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("the true wind angle lies in (-180, 180] and adds back to the wind direction", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 359.999, noNaN: true }), fc.double({ min: 0, max: 359.999, noNaN: true }), (twd, cog) => {
        const twa = trueWindAngleDeg(twd, cog);
        expect(twa).toBeGreaterThan(-180);
        expect(twa).toBeLessThanOrEqual(180);
        expect((((cog + twa - twd) % 360) + 360) % 360).toBeCloseTo(0, 6);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("the jump filter accounts for every fix (kept, ignored or pending) and keeps no fix a jump away from both neighbours", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), metres, metres), { minLength: 1, maxLength: 60 }), (steps) => {
        let tMs = 0;
        const fixes: Fix[] = steps.map(([dt, e, n]) => ({ ...at(e / 20, n / 20), tMs: (tMs += dt * 1000) }));
        const filter = new JumpFilter();
        const kept = fixes.map((fix) => filter.push(fix)).filter((fix) => fix !== null);
        expect(kept.length + filter.ignored + 1).toBe(fixes.length);
        expect(filter.pending).toBe(fixes.at(-1));
        kept.forEach((fix, i) => {
          const next = fixes[fixes.indexOf(fix) + 1]!;
          const fromLast = i === 0 ? Number.POSITIVE_INFINITY : speedBetweenKn(kept[i - 1]!, fix);
          expect(fromLast > DEFAULT_MAX_SPEED_KN && speedBetweenKn(fix, next) > DEFAULT_MAX_SPEED_KN).toBe(false);
        });
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  describe("a boat's state cloned for the unsettled tail", () => {
    const races = [
      simulateRace({ seed: "clone-gates", startGroups: 1, boatsPerGroup: 4, legLengthM: 800, overEarlyReturn: true }),
      simulateRace({
        seed: "clone-triangle",
        layout: "triangle",
        startGroups: 1,
        boatsPerGroup: 4,
        legLengthM: 800,
        overEarlyReturn: true,
      }),
    ].map(({ scenario }) => scenario.events[0]!.races[0]!.startGroups[0]!);
    const fleet = races.flatMap((group) => raceFeed(group).map((boat) => ({ boat, gunMs: gunOf(group) })));

    /** Everything the state shows, at a moment after its newest event, under the newest wind. */
    function observe(state: BoatAnalytics, events: readonly RaceEvent[]) {
      const fixes = events.filter((e) => e.kind === "fix");
      const last = fixes.at(-1);
      const dataAsOfMs = (last?.fix.tMs ?? 0) + 1_000;
      const twdDeg = last?.twdDeg ?? 0;
      return {
        snapshot: state.snapshot(dataAsOfMs, twdDeg),
        passings: structuredClone(state.passings),
        manoeuvres: structuredClone(state.manoeuvres),
        legs: state.legStats(dataAsOfMs),
      };
    }

    it("fed A, cloned and fed B, shows what a state fed A then B shows, and the original stays as A left it", () => {
      const choice = fc.record({
        boat: fc.nat({ max: fleet.length - 1 }),
        // Unbiased: fast-check's default bias would mostly split at the track's ends.
        settled: fc.noBias(fc.integer({ min: 0, max: 999 })),
        tail: fc.oneof(fc.noBias(fc.integer({ min: 0, max: 240 })), fc.constant(Number.POSITIVE_INFINITY)),
        // Every n-th fix of the tail has not arrived yet when the copy is fed (0: none missing).
        lateEvery: fc.integer({ min: 0, max: 6 }),
      });
      fc.assert(
        fc.property(choice, ({ boat: index, settled, tail, lateEvery }) => {
          const { boat, gunMs } = fleet[index]!;
          const split = Math.floor((settled / 1000) * boat.events.length);
          const a = boat.events.slice(0, split);
          const b = boat.events.slice(split, Math.min(boat.events.length, split + tail));
          const arrived = b.filter((e, i) => e.kind !== "fix" || lateEvery === 0 || i % lateEvery !== 1);
          const checkpoint = fedState(boat, gunMs, a);
          const seenBefore = observe(checkpoint, a);
          const copy = checkpoint.clone();
          apply(copy, arrived);
          expect(observe(copy, [...a, ...arrived])).toEqual(observe(fedState(boat, gunMs, [...a, ...arrived]), [...a, ...arrived]));
          expect(observe(checkpoint, a)).toEqual(seenBefore);
          // The checkpoint, fed on with every fix once the late ones came, is as if never copied.
          apply(checkpoint, b);
          expect(observe(checkpoint, [...a, ...b])).toEqual(observe(fedState(boat, gunMs, [...a, ...b]), [...a, ...b]));
        }),
        { seed: SEED, numRuns: 100 },
      );
    });
  });
});
