// Seeded properties of the analytics' geometry and filters, over random inputs around
// one race area.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { segmentCrossing } from "../../../src/domain/analytics/geometry.js";
import { DEFAULT_MAX_SPEED_KN, type Fix, JumpFilter, speedBetweenKn, trueWindAngleDeg } from "../../../src/domain/analytics/kinematics.js";
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
});
