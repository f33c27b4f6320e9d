// The track page's own writer (V8's JSON.stringify, faster on number arrays, and the
// text of each column written before reused) writes the bytes the route's schema
// serialiser would: NaN, "not reported", as null, and `t` as JSON numbers.

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GetTrackPageResponseSchema } from "../../gen/racing/v1/track_pb.js";
import { writeWindowColumns } from "../../src/gateway/column-text.js";
import { REST_ROUTES } from "../../src/gateway/rest-routes.js";
import { stringifyTrackPage } from "../../src/gateway/track-json.js";
import { serialiserFor } from "../support/rest-json.js";

const T0 = 1_764_000_000_000;
const route = REST_ROUTES.find((r) => r.path === "/races/:raceId/track")!;
/** The page's v1 JSON, as the route writes it before its own writer. */
const trackPageJson = (message: object) => route.json(message);

/** A page of `boats` boats with `fixes` fixes each; every seventh speed and course not reported. */
function page(boats: number, fixes: number) {
  return create(GetTrackPageResponseSchema, {
    raceId: "6f1c2f4e-8a1b-4c3d-9e2f-123456789abc",
    startGroupId: "6f1c2f4e-8a1b-4c3d-9e2f-123456789abd",
    since: timestampFromMs(T0),
    until: timestampFromMs(T0 + fixes * 1000),
    delaySeconds: 30,
    boats: Array.from({ length: boats }, (_, b) => ({
      entryId: `6f1c2f4e-8a1b-4c3d-9e2f-1234567890${String(b).padStart(2, "0")}`,
      sailNumber: `GER ${b}`,
      boatName: `Boat "${b}"`,
      t: Array.from({ length: fixes }, (_, i) => BigInt(T0 + i * 1000)),
      lat: Array.from({ length: fixes }, (_, i) => 54.3 + i * 1e-5 + b * 1e-3),
      lon: Array.from({ length: fixes }, (_, i) => 10.1 - i * 1e-5),
      sogKn: Array.from({ length: fixes }, (_, i) => (i % 7 === 0 ? Number.NaN : 5 + i / 100)),
      cogDeg: Array.from({ length: fixes }, (_, i) => (i % 7 === 3 ? Number.NaN : (i * 3.7) % 360)),
    })),
  });
}

describe("a track page's JSON", () => {
  it("is the bytes the schema's serialiser writes, with null for what was not reported", async () => {
    expect(route.stringify).toBe(stringifyTrackPage);
    const bySchema = await serialiserFor(route);
    for (const [boats, fixes] of [
      [0, 0],
      [1, 1],
      [50, 600],
    ] as const) {
      const json = trackPageJson(page(boats, fixes));
      expect(stringifyTrackPage(json)).toBe(bySchema(withNulls(json)));
    }
    const [boat] = JSON.parse(stringifyTrackPage(trackPageJson(page(1, 8)))).boats;
    expect(boat.sogKn.map((v: number | null) => v === null)).toEqual([true, false, false, false, false, false, false, true]);
    expect(boat.cogDeg.map((v: number | null) => v === null)).toEqual([false, false, false, true, false, false, false, false]);
    expect(boat.t).toEqual(Array.from({ length: 8 }, (_, i) => T0 + i * 1000));
  });
});

describe("a column's text", () => {
  it("is JSON.stringify's whatever the column held before: grown, cut, changed, NaN, empty", () => {
    const value = fc.oneof(fc.double(), fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }), fc.constant(Number.NaN));
    // What a window's column goes through: grows by fixes at its end, a late fix earlier in it, other values, a boat's finish cutting it.
    const change = fc.oneof(
      fc.record({ grow: fc.array(value, { maxLength: 5 }) }),
      fc.record({ insertAt: fc.nat(), value }),
      fc.record({ setAt: fc.nat(), value }),
      fc.record({ cutTo: fc.nat() }),
    );
    let run = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 2 }), change), { maxLength: 30 }), (steps) => {
        run++;
        const window = `run ${run}`;
        const columns: number[][] = [[], [], []];
        for (const [k, step] of steps) {
          const values = [...columns[k]!];
          if ("grow" in step) values.push(...step.grow);
          else if ("insertAt" in step) values.splice(step.insertAt % (values.length + 1), 0, step.value);
          else if ("setAt" in step) values[step.setAt % (values.length + 1)] = step.value;
          else values.length = Math.min(values.length, step.cutTo);
          columns[k] = values;
          expect(writeWindowColumns(window, (written) => written.text(`column ${k}`, values))).toBe(JSON.stringify(values));
        }
      }),
      { seed: 20261124, numRuns: 300 },
    );
  });
});

/** The page JSON as the schema's serialiser takes it: null, not NaN, where nothing was reported. */
function withNulls(json: unknown): unknown {
  const page = json as { boats: Array<{ sogKn: number[]; cogDeg: number[] }> };
  const nulls = (values: number[]) => values.map((v) => (Number.isNaN(v) ? null : v));
  return { ...page, boats: page.boats.map((boat) => ({ ...boat, sogKn: nulls(boat.sogKn), cogDeg: nulls(boat.cogDeg) })) };
}
